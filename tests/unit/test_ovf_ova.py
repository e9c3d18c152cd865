"""OVA packing from a real (small) qcow2: member order, SHA-256 manifest, .cert signature, streamOptimized
disk."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from support.signing import cert_pem, issue, key_pem, rsa_key, write

from ovf.build_manifest import BuildManifest, read_build_manifest
from ovf.cli import main as ovf_cli
from ovf.descriptor import serialize
from ovf.envelope import parse_envelope
from ovf.errors import PackageInvalid, SignatureInvalid
from ovf.manifest import parse_manifest, render_manifest
from ovf.namespaces import OVF, q
from ovf.ova import pack_ova, verify_ova
from ovf.signer import make_lab_signer
from ovf.vmdk import image_info
from ovf.vmdk_check import check_stream_vmdk

BUILD = BuildManifest(
    version="1.2.3", git_version="v1.2.3-4-gabcdef0", kernel="6.12.41+deb13-amd64", openzfs="2.3.2-2",
    nfs_ganesha="6.5-2", source_date_epoch=1_700_000_000,
)  # fmt: skip
VIRTUAL_SIZE = 64 * 1024**2


def _tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} not installed (make ova-setup installs OVA_APT_PACKAGES)"
    return path


@pytest.fixture(scope="module")
def qcow2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 64 MiB qcow2 with 2 MiB of data, made with qemu-img as `make image` would."""
    folder = tmp_path_factory.mktemp("disk")
    raw = folder / "disk.raw"
    with raw.open("wb") as fh:
        fh.truncate(VIRTUAL_SIZE)
        fh.seek(1024**2)
        fh.write(hashlib.sha256(b"arcvsa").digest() * (2 * 1024**2 // 32))
    image = folder / "arcvsa-1.2.3.qcow2"
    subprocess.run(
        [_tool("qemu-img"), "convert", "-f", "raw", "-O", "qcow2", str(raw), str(image)],
        check=True,
        timeout=60,
    )
    return image


@pytest.fixture(scope="module")
def ova(qcow2: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist") / "arcvsa-1.2.3.ova"
    pack_ova(disk_image=qcow2, out=out, build=BUILD, convert_timeout=120)
    return out


def test_tar_lists_the_ovf_first_then_the_manifest(ova: Path) -> None:
    listing = subprocess.run(
        [_tool("tar"), "tf", str(ova)], capture_output=True, text=True, check=True, timeout=60
    )
    assert listing.stdout.splitlines() == [
        "arcvsa-1.2.3.ovf",
        "arcvsa-1.2.3.mf",
        "arcvsa-1.2.3-disk1.vmdk",
        "build-manifest.json",
    ]


def test_archive_is_ustar_with_neutral_owners(ova: Path) -> None:
    with ova.open("rb") as fh:
        header = fh.read(512)
    assert header[257:263] == b"ustar\x00"
    with tarfile.open(ova) as tar:
        for member in tar.getmembers():
            assert (member.uid, member.gid, member.uname, member.mode) == (0, 0, "root", 0o644)
            assert member.mtime == BUILD.source_date_epoch


def test_every_sha256_in_the_manifest_matches(ova: Path) -> None:
    with tarfile.open(ova) as tar:
        blobs = {}
        for member in tar.getmembers():
            fh = tar.extractfile(member)
            assert fh is not None
            blobs[member.name] = fh.read()
    manifest = parse_manifest(blobs["arcvsa-1.2.3.mf"].decode())
    assert set(manifest) == set(blobs) - {"arcvsa-1.2.3.mf"}
    for name, (algorithm, digest) in manifest.items():
        assert algorithm == "SHA256"
        assert hashlib.sha256(blobs[name]).hexdigest() == digest, name
    for line in blobs["arcvsa-1.2.3.mf"].decode().splitlines():
        assert line.startswith("SHA256(") and ")= " in line


def test_disk_is_stream_optimized_and_described(ova: Path, tmp_path: Path) -> None:
    with tarfile.open(ova) as tar:
        tar.extract("arcvsa-1.2.3-disk1.vmdk", tmp_path, filter="data")
        fh = tar.extractfile("arcvsa-1.2.3.ovf")
        assert fh is not None
        root = parse_envelope(fh.read())
    info = image_info(tmp_path / "arcvsa-1.2.3-disk1.vmdk")
    assert info.format == "vmdk" and info.vmdk_create_type() == "streamOptimized"
    assert info.virtual_size == VIRTUAL_SIZE
    disk = root.find(f"{q(OVF, 'DiskSection')}/{q(OVF, 'Disk')}")
    assert disk is not None and disk.get(q(OVF, "capacity")) == str(VIRTUAL_SIZE)
    ref = root.find(f"{q(OVF, 'References')}/{q(OVF, 'File')}")
    assert ref is not None
    assert ref.get(q(OVF, "size")) == str((tmp_path / "arcvsa-1.2.3-disk1.vmdk").stat().st_size)


def test_sizes_come_from_the_packed_vmdk(ova: Path, tmp_path: Path) -> None:
    with tarfile.open(ova) as tar:
        member = tar.getmember("arcvsa-1.2.3-disk1.vmdk")
        tar.extract(member, tmp_path, filter="data")
        fh = tar.extractfile("arcvsa-1.2.3.ovf")
        assert fh is not None
        root = parse_envelope(fh.read())
    layout = check_stream_vmdk(tmp_path / member.name)
    disk = root.find(f"{q(OVF, 'DiskSection')}/{q(OVF, 'Disk')}")
    ref = root.find(f"{q(OVF, 'References')}/{q(OVF, 'File')}")
    assert disk is not None and ref is not None
    assert ref.get(q(OVF, "size")) == str(member.size), "ovf:size is the tar member's byte count"
    assert disk.get(q(OVF, "capacity")) == str(VIRTUAL_SIZE)
    # 2 MiB of data at 1 MiB: 32 grains of 64 KiB, whatever qcow2 allocated around them.
    assert layout.grains == 32
    assert disk.get(q(OVF, "populatedSize")) == str(32 * 64 * 1024)


def test_verify_refuses_an_ovf_size_that_is_not_the_members(ova: Path, tmp_path: Path) -> None:
    with tarfile.open(ova) as tar:
        fh = tar.extractfile("arcvsa-1.2.3.ovf")
        assert fh is not None
        root = parse_envelope(fh.read())
        size = tar.getmember("arcvsa-1.2.3-disk1.vmdk").size
    ref = root.find(f"{q(OVF, 'References')}/{q(OVF, 'File')}")
    assert ref is not None
    ref.set(q(OVF, "size"), str(size + 1))
    bad = tmp_path / "bad.ova"
    _rewrite(ova, bad, replace={"arcvsa-1.2.3.ovf": serialize(root)}, remanifest=True)
    with pytest.raises(
        PackageInvalid, match=rf"arcvsa-1.2.3-disk1.vmdk: ovf:size is {size + 1}, the archive holds {size}"
    ):
        verify_ova(bad)


def test_build_manifest_is_inside(ova: Path) -> None:
    with tarfile.open(ova) as tar:
        fh = tar.extractfile("build-manifest.json")
        assert fh is not None
        assert BuildManifest.model_validate_json(fh.read()) == BUILD


def test_verify_accepts_the_package(ova: Path) -> None:
    verified = verify_ova(ova)
    assert verified.disk_member == "arcvsa-1.2.3-disk1.vmdk"


def _rewrite(
    src: Path,
    dst: Path,
    *,
    order: list[str] | None = None,
    corrupt: str | None = None,
    replace: dict[str, bytes] | None = None,
    remanifest: bool = False,
) -> None:
    with tarfile.open(src) as tar:
        members = {}
        for member in tar.getmembers():
            fh = tar.extractfile(member)
            assert fh is not None
            members[member.name] = (member, fh.read())
    for name, data in (replace or {}).items():
        members[name] = (members[name][0], data)
    if remanifest:
        mf = next(n for n in members if n.endswith(".mf"))
        listed = [n for n in members if n != mf and not n.endswith(".cert")]
        digests = [(n, hashlib.sha256(members[n][1]).hexdigest()) for n in listed]
        members[mf] = (members[mf][0], render_manifest(digests).encode())
    with tarfile.open(dst, "w", format=tarfile.USTAR_FORMAT) as out:
        for name in order or list(members):
            info, data = members[name]
            if name == corrupt:
                data = data[:-1] + bytes([data[-1] ^ 0xFF])
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))


def test_verify_refuses_a_corrupted_disk(ova: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.ova"
    _rewrite(ova, bad, corrupt="arcvsa-1.2.3-disk1.vmdk")
    with pytest.raises(PackageInvalid, match=r"arcvsa-1.2.3-disk1.vmdk: SHA-256 .* does not match"):
        verify_ova(bad)


def test_verify_refuses_the_ovf_not_first(ova: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.ova"
    _rewrite(
        ova,
        bad,
        order=["arcvsa-1.2.3.mf", "arcvsa-1.2.3.ovf", "arcvsa-1.2.3-disk1.vmdk", "build-manifest.json"],
    )
    with pytest.raises(PackageInvalid, match=r"first member must be the \.ovf"):
        verify_ova(bad)


def test_manifest_text_format() -> None:
    text = render_manifest([("a.ovf", "ab" * 32)])
    assert text == f"SHA256(a.ovf)= {'ab' * 32}\n"
    with pytest.raises(PackageInvalid, match="not 'SHA256"):
        parse_manifest("SHA256 a.ovf = 00\n")


def test_cli_packs_from_the_image_build_record(
    qcow2: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "arcvsa-1.2.3.json"
    record.write_text(
        json.dumps(
            {
                "version": "1.2.3",
                "kernel": "6.12.41+deb13-amd64",
                "zfs_module": "2.3.2-2",
                "packages": {"nfs-ganesha": "6.5-2", "zfs-dkms": "2.3.2-2"},
            }
        )
    )
    assert read_build_manifest(record)["nfs_ganesha"] == "6.5-2"
    out = tmp_path / "cli.ova"
    code = ovf_cli(["pack", "--disk", str(qcow2), "--image-manifest", str(record), "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert "wrote" in capsys.readouterr().out
    assert verify_ova(out).members[0] == "arcvsa-1.2.3.ovf"


def test_cli_refuses_to_guess_versions(qcow2: Path, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="missing build inputs"):
        ovf_cli(["pack", "--disk", str(qcow2), "--version", "1", "--out", str(tmp_path / "x.ova")])
    assert not (tmp_path / "x.ova").exists()


SIGNED = [
    "arcvsa-1.2.3.ovf",
    "arcvsa-1.2.3.mf",
    "arcvsa-1.2.3.cert",
    "arcvsa-1.2.3-disk1.vmdk",
    "build-manifest.json",
]


@pytest.fixture(scope="module")
def signed(qcow2: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("signed")
    out = folder / "arcvsa-1.2.3.ova"
    packed = pack_ova(
        disk_image=qcow2, out=out, build=BUILD, convert_timeout=120, signer=make_lab_signer(folder)
    )
    assert packed.members == tuple(SIGNED)
    return out


def test_the_cert_comes_right_after_the_manifest_and_is_not_in_it(signed: Path) -> None:
    listing = subprocess.run(
        [_tool("tar"), "tf", str(signed)], capture_output=True, text=True, check=True, timeout=60
    )
    assert listing.stdout.splitlines() == SIGNED
    with tarfile.open(signed) as tar:
        fh = tar.extractfile("arcvsa-1.2.3.mf")
        assert fh is not None
        assert set(parse_manifest(fh.read().decode())) == set(SIGNED) - {
            "arcvsa-1.2.3.mf",
            "arcvsa-1.2.3.cert",
        }


def test_verify_names_the_signer(signed: Path, ova: Path) -> None:
    assert verify_ova(signed).signed_by == "O=arcvsa lab,CN=arcvsa lab OVA signing (throwaway)"
    assert verify_ova(ova).signed_by is None


def _renamed(src: Path, dst: Path, names: dict[str, str]) -> None:
    with tarfile.open(src) as tar, tarfile.open(dst, "w", format=tarfile.USTAR_FORMAT) as out:
        for member in tar.getmembers():
            fh = tar.extractfile(member)
            assert fh is not None
            member.name = names.get(member.name, member.name)
            out.addfile(member, fh)


@pytest.mark.parametrize(
    ("order", "problem"),
    [
        ([0, 1, 3, 4, 2], r"arcvsa-1.2.3.cert is member 5: the .cert must come right after the .mf"),
        ([0, 1, 3, 2, 4], r"arcvsa-1.2.3.cert is member 4: the .cert must come right after the .mf"),
        ([0, 2, 1, 3, 4], r"the second member must be the .mf manifest, found \('arcvsa-1.2.3.cert',\)"),
    ],
    ids=["last", "after the disk", "before the manifest"],
)
def test_verify_refuses_a_cert_out_of_place(
    signed: Path, tmp_path: Path, order: list[int], problem: str
) -> None:
    bad = tmp_path / "bad.ova"
    _rewrite(signed, bad, order=[SIGNED[i] for i in order])
    with pytest.raises(PackageInvalid, match=problem):
        verify_ova(bad)


def test_verify_refuses_a_cert_not_named_after_the_manifest(signed: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.ova"
    _renamed(signed, bad, {"arcvsa-1.2.3.cert": "other.cert"})
    with pytest.raises(PackageInvalid, match=r"named after the manifest, arcvsa-1.2.3.cert, not other.cert"):
        verify_ova(bad)


def test_verify_refuses_a_manifest_redigested_after_signing(signed: Path, tmp_path: Path) -> None:
    """A changed disk with a manifest made to match it: the digests agree, the signature does not."""
    with tarfile.open(signed) as tar:
        fh = tar.extractfile("arcvsa-1.2.3-disk1.vmdk")
        assert fh is not None
        disk = fh.read()
    changed = disk[:-1] + bytes([disk[-1] ^ 0xFF])
    bad = tmp_path / "bad.ova"
    _rewrite(signed, bad, replace={"arcvsa-1.2.3-disk1.vmdk": changed}, remanifest=True)
    with pytest.raises(SignatureInvalid, match=r"does not match arcvsa-1.2.3.mf"):
        verify_ova(bad)


def test_cli_refuses_a_key_that_is_not_the_certificates_before_packing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key_path = write(tmp_path, "sign.key", key_pem(rsa_key()))
    cert_path = write(tmp_path, "sign.crt", cert_pem(issue(rsa_key(), "another key's certificate")))
    out = tmp_path / "x.ova"
    # The disk does not exist: packing would fail on it, so refusing the key proves it came first.
    argv = ["pack", "--disk", str(tmp_path / "absent.qcow2"), "--version", "1.2.3", "--git-version", "v1.2.3"]
    argv += ["--kernel", "6.12", "--openzfs", "2.3.2", "--ganesha", "6.5", "--out", str(out)]
    code = ovf_cli([*argv, "--signing-key", str(key_path), "--signing-cert", str(cert_path)])
    assert code == 1
    assert "sign.key is not the key of the certificate" in capsys.readouterr().err
    assert not out.exists()


def test_cli_signs_with_a_throwaway_lab_key_and_says_so(
    qcow2: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "lab.ova"
    argv = ["pack", "--disk", str(qcow2), "--version", "1.2.3", "--git-version", "v1.2.3", "--kernel", "6.12"]
    argv += [
        "--openzfs",
        "2.3.2",
        "--ganesha",
        "6.5",
        "--out",
        str(out),
        "--lab-signing-dir",
        str(tmp_path / "lab"),
    ]
    assert ovf_cli(argv) == 0
    said = capsys.readouterr().out
    assert "no signing key given" in said and "throwaway self-signed lab key" in said
    assert "Never ship this OVA" in said
    assert f"{out}: signed by O=arcvsa lab,CN=arcvsa lab OVA signing (throwaway) (throwaway lab key)" in said
    assert (tmp_path / "lab" / "lab-signing.key").is_file()
    assert verify_ova(out).members == tuple(SIGNED)


def test_cli_signs_with_an_encrypted_key_whose_passphrase_is_in_a_file(
    qcow2: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = rsa_key()
    both = write(
        tmp_path, "release.pem", key_pem(key, passphrase=b"s3cret words") + cert_pem(issue(key, "release"))
    )
    passphrase = write(tmp_path, "passphrase", b"s3cret words\n")
    out = tmp_path / "release.ova"
    argv = ["pack", "--disk", str(qcow2), "--version", "1.2.3", "--git-version", "v1.2.3", "--kernel", "6.12"]
    argv += ["--openzfs", "2.3.2", "--ganesha", "6.5", "--out", str(out), "--signing-key", str(both)]
    code = ovf_cli([*argv, "--signing-cert", str(both), "--signing-passphrase-file", str(passphrase)])
    assert code == 0, capsys.readouterr().err
    assert "throwaway" not in capsys.readouterr().out
    assert verify_ova(out).signed_by == "CN=release"


def test_cli_wants_the_key_and_certificate_together(tmp_path: Path) -> None:
    argv = ["pack", "--disk", "d.qcow2", "--out", str(tmp_path / "x.ova"), "--signing-key", "k.pem"]
    with pytest.raises(SystemExit, match="--signing-key and --signing-cert go together"):
        ovf_cli(argv)
