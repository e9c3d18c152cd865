"""The OVA's .mf checked as `sha256sum -c` would check it, after a plain tar extraction: no arcvsa code
reads the package here. A changed digest in the manifest and a changed byte in the VMDK are caught."""

from __future__ import annotations

import io
import re
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
from support.ova import OvaUnderTest, extract, sha256_file

pytestmark = pytest.mark.integration

# DSP0243's manifest line, with SHA256 the only algorithm we accept.
LINE = re.compile(r"SHA256\((?P<name>[^)]+)\)= (?P<digest>[0-9a-f]{64})")


def manifest_failures(ova: Path, folder: Path) -> list[str]:
    """What `sha256sum -c` on the OVA's manifest would report, plus members the manifest leaves out."""
    extract(ova, folder)
    with tarfile.open(ova) as tar:
        names = tar.getnames()
    (manifest,) = [n for n in names if n.endswith(".mf")]
    failures, listed = [], set()
    for line in (folder / manifest).read_text().splitlines():
        match = LINE.fullmatch(line)
        if not match:
            failures.append(f"improperly formatted line: {line!r}")
            continue
        name = match["name"]
        listed.add(name)
        path = folder / name
        if not path.is_file():
            failures.append(f"{name}: FAILED open or read")
        elif sha256_file(path) != match["digest"]:
            failures.append(f"{name}: FAILED")
    failures += [f"{n}: not in the manifest" for n in names if n != manifest and n not in listed]
    return failures


def test_every_member_matches_the_manifest(under_test: OvaUnderTest, tmp_path: Path) -> None:
    assert manifest_failures(under_test.ova, tmp_path) == []


def _rewrite(ova: Path, out: Path, suffix: str, edit: Callable[[bytes], bytes]) -> str:
    """A copy of `ova` with the member ending in `suffix` passed through `edit`; the VMDK's name."""
    with tarfile.open(ova) as src, tarfile.open(out, "w", format=tarfile.USTAR_FORMAT) as dst:
        for info in src.getmembers():
            fh = src.extractfile(info)
            assert fh is not None
            data = fh.read()
            if info.name.endswith(suffix):
                data = edit(data)
                info.size = len(data)
            dst.addfile(info, io.BytesIO(data))
        return next(n for n in src.getnames() if n.endswith(".vmdk"))


def _one_digit_of_the_vmdk_digest(manifest: bytes) -> bytes:
    lines = manifest.decode().splitlines(keepends=True)
    i = next(i for i, line in enumerate(lines) if ".vmdk)= " in line)
    last = lines[i].rstrip("\n")[-1]
    lines[i] = lines[i].rstrip("\n")[:-1] + ("0" if last != "0" else "1") + "\n"
    return "".join(lines).encode()


def _one_byte_of_the_disk(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0x01]) + data[middle + 1 :]


def test_a_tampered_manifest_is_caught(small: OvaUnderTest, tmp_path: Path) -> None:
    bad = tmp_path / "tampered-mf.ova"
    vmdk = _rewrite(small.ova, bad, ".mf", _one_digit_of_the_vmdk_digest)
    assert manifest_failures(small.ova, tmp_path / "sound") == []
    failures = manifest_failures(bad, tmp_path / "bad")
    print(f"\ntampered manifest: {failures}")
    assert failures == [f"{vmdk}: FAILED"]


def test_a_tampered_vmdk_is_caught(small: OvaUnderTest, tmp_path: Path) -> None:
    bad = tmp_path / "tampered-vmdk.ova"
    vmdk = _rewrite(small.ova, bad, ".vmdk", _one_byte_of_the_disk)
    failures = manifest_failures(bad, tmp_path / "bad")
    print(f"\ntampered VMDK: {failures}")
    assert failures == [f"{vmdk}: FAILED"]


def test_a_member_left_out_of_the_manifest_is_caught(small: OvaUnderTest, tmp_path: Path) -> None:
    bad = tmp_path / "unlisted.ova"

    def drop_build_manifest(manifest: bytes) -> bytes:
        return b"".join(line for line in manifest.splitlines(keepends=True) if b"build-manifest" not in line)

    _rewrite(small.ova, bad, ".mf", drop_build_manifest)
    assert manifest_failures(bad, tmp_path / "bad") == ["build-manifest.json: not in the manifest"]
