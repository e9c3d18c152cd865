"""The upgrade bundle: a good one stages; unsigned, foreign-key, tampered and malformed ones are refused
with their own error and leave nothing staged."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fixtures.upgrade_bundles import MODULES, manifest_for, payload, signed

from appliance.upgrade import bundle, release
from appliance.upgrade.errors import Malformed, Tampered, Unsigned

KEY = Ed25519PrivateKey.generate()


def staged_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def verify(path: Path, folder: Path, key: Ed25519PrivateKey = KEY) -> bundle.Manifest:
    with path.open("rb") as source:
        return bundle.verify(source, key.public_key(), folder)


def test_a_signed_bundle_stages_and_verifies_again(tmp_path: Path) -> None:
    path = signed(tmp_path / "b.upgrade", KEY, "abc1234", 57)
    manifest = verify(path, tmp_path / "staged")
    assert (manifest.version, manifest.release) == ("abc1234", 57)
    assert staged_files(tmp_path / "staged") == ["manifest.json", "manifest.sig", "payload.tar"]
    assert bundle.verify_staged(tmp_path / "staged", KEY.public_key()) == manifest


def test_the_key_files_round_trip(tmp_path: Path) -> None:
    bundle.new_private_key(tmp_path / "keys" / "upgrade")
    assert (tmp_path / "keys" / "upgrade").stat().st_mode & 0o777 == 0o600
    private = bundle.load_private_key(tmp_path / "keys" / "upgrade")
    public = bundle.load_public_key(bundle.public_key_text(private))
    public.verify(private.sign(b"x"), b"x")
    with pytest.raises(Unsigned):
        bundle.load_public_key("not base64 !")


def test_another_key_is_refused(tmp_path: Path) -> None:
    path = signed(tmp_path / "b.upgrade", Ed25519PrivateKey.generate(), "abc1234", 57)
    with pytest.raises(Unsigned, match="does not match"):
        verify(path, tmp_path / "staged")
    assert staged_files(tmp_path / "staged") == []


def rewrite(src: Path, dst: Path, change: dict[str, bytes | None]) -> Path:
    """Copy a bundle member by member; ``change`` replaces (bytes) or drops (None) members."""
    with tarfile.open(src) as tin, tarfile.open(dst, "w") as tout:
        for info in tin.getmembers():
            data = tin.extractfile(info).read()  # type: ignore[union-attr]
            if info.name in change:
                if change[info.name] is None:
                    continue
                data = change[info.name]  # type: ignore[assignment]
            info.size = len(data)
            tout.addfile(info, io.BytesIO(data))
    return dst


def test_an_unsigned_bundle_is_refused(tmp_path: Path) -> None:
    path = rewrite(
        signed(tmp_path / "b.upgrade", KEY, "v1", 2), tmp_path / "u.upgrade", {"manifest.sig": None}
    )
    with pytest.raises(Unsigned, match="no signature"):
        verify(path, tmp_path / "staged")
    assert staged_files(tmp_path / "staged") == []


def test_a_tampered_payload_is_refused_by_its_hash(tmp_path: Path) -> None:
    good = signed(tmp_path / "b.upgrade", KEY, "v1", 2)
    with tarfile.open(good) as tar:
        data = bytearray(tar.extractfile("payload.tar").read())  # type: ignore[union-attr]
    data[600] ^= 0x01  # one bit inside the first member's content
    path = rewrite(good, tmp_path / "t.upgrade", {"payload.tar": bytes(data)})
    with pytest.raises(Tampered, match="not the payload"):
        verify(path, tmp_path / "staged")
    assert staged_files(tmp_path / "staged") == []


def test_a_tampered_manifest_is_refused_by_its_signature(tmp_path: Path) -> None:
    good = signed(tmp_path / "b.upgrade", KEY, "v1", 2)
    with tarfile.open(good) as tar:
        text = tar.extractfile("manifest.json").read()  # type: ignore[union-attr]
    path = rewrite(good, tmp_path / "t.upgrade", {"manifest.json": text.replace(b'"v1"', b'"v9"')})
    with pytest.raises(Unsigned):
        verify(path, tmp_path / "staged")


@pytest.mark.parametrize("data", [b"", b"hello", b"\x1f\x8b" + b"\0" * 600])
def test_not_a_bundle_is_malformed(tmp_path: Path, data: bytes) -> None:
    (tmp_path / "x").write_bytes(data)
    with pytest.raises(Malformed):
        verify(tmp_path / "x", tmp_path / "staged")


def test_a_cut_bundle_is_malformed_and_unstaged(tmp_path: Path) -> None:
    good = signed(tmp_path / "b.upgrade", KEY, "v1", 2).read_bytes()
    (tmp_path / "cut").write_bytes(good[: len(good) // 2])
    with pytest.raises(Malformed):
        verify(tmp_path / "cut", tmp_path / "staged")
    assert staged_files(tmp_path / "staged") == []


def test_a_version_that_is_not_a_folder_name_is_refused() -> None:
    with pytest.raises(ValueError):
        bundle.Manifest(
            version="../etc", release=1, payload_sha256="a" * 64, payload_bytes=1, base_key="b" * 64
        )


def test_releases_install_switch_and_prune(tmp_path: Path) -> None:
    root = tmp_path / "opt"
    first = payload(tmp_path / "p1.tar")
    release.install(root, manifest_for(first, "v1", 1), first)
    release.switch(root, "v1")
    second = payload(tmp_path / "p2.tar", {**MODULES, "lib/api/app.py": "VALUE = 2\n"})
    release.install(root, manifest_for(second, "v2", 2), second)
    assert release.current(root).version == "v1"  # type: ignore[union-attr]
    release.switch(root, "v2")
    assert (root / "current" / "lib/api/app.py").read_text() == "VALUE = 2\n"
    assert [m.version for m in release.installed(root)] == ["v2", "v1"]
    with pytest.raises(Malformed):
        release.switch(root, "v3")
    assert release.prune(root, {"v2"}) == ["v1"]


def test_a_payload_with_other_top_folders_is_refused(tmp_path: Path) -> None:
    bad = payload(tmp_path / "p.tar", {"etc/shadow": "x", "lib/api/__init__.py": ""})
    with pytest.raises(Malformed, match="top folders"):
        release.install(tmp_path / "opt", manifest_for(bad, "v1", 1), bad)
    assert list((tmp_path / "opt" / "releases").iterdir()) == []
