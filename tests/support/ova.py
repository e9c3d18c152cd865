"""A small arcvsa OVA for tests: packed by ovf.ova from a qcow2 made with qemu-img (32 MiB, 1 MiB of data);
and what `make ova-test` needs to read one without arcvsa code: extraction, SHA-256, a member rewritten."""

from __future__ import annotations

import hashlib
import io
import os
import re
import subprocess
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ovf.build_manifest import BuildManifest
from ovf.ova import pack_ova, verify_ova
from ovf.signer import OvaSigner, make_lab_signer

# Property values a deploy test fills in: a static address from TEST-NET-1, a password that passes the rules.
PROPERTY_VALUES = {
    "hostname": "arcvsa-esx01",
    "fqdn": "arcvsa-esx01.example.com",
    "role": "appliance",
    "admin_password": "Corr3ct-Horse!",
    "ipv4_mode": "static",
    "ipv4_address": "192.0.2.21",
    "ipv4_prefix": "24",
    "ipv4_gateway": "192.0.2.1",
    "dns_servers": "192.0.2.53",
    "dns_search": "example.com",
    "nfs_backend": "ganesha",
}


def make_ova(folder: Path, data: bytes | None = None, signer: OvaSigner | None = None) -> Path:
    """`data` at the start of the disk: 1 MiB that compresses by default; random data makes an OVA whose
    upload takes a while over a slowed link (tests/support/slow_proxy.py), long enough to act during it.
    With `signer` the OVA carries a .cert, as `make ova` packs it."""
    raw = folder / "disk.raw"
    with raw.open("wb") as fh:
        fh.truncate(32 * 1024**2)
        fh.write(hashlib.sha256(b"boot").digest() * 32768 if data is None else data)
    qcow2 = folder / "arcvsa-9.9.9.qcow2"
    subprocess.run(["qemu-img", "convert", "-O", "qcow2", str(raw), str(qcow2)], check=True, timeout=60)  # noqa: S607
    build = BuildManifest(
        version="9.9.9", git_version="v9.9.9", kernel="6.12", openzfs="2.3.2", nfs_ganesha="6.5"
    )
    out = folder / "arcvsa-9.9.9.ova"
    pack_ova(disk_image=qcow2, out=out, build=build, convert_timeout=120, signer=signer)
    verify_ova(out)
    return out


def ova_under_test(folder: Path) -> Path:
    """The release OVA named by ARCVSA_OVA (``make ova-test``), else a small one made here."""
    named = os.environ.get("ARCVSA_OVA")
    return Path(named) if named else make_ova(folder)


MIB = 1024**2


@dataclass(frozen=True)
class OvaUnderTest:
    """An OVA and the disk image (any qemu-img format) it was packed from."""

    ova: Path
    source: Path


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(4 * MIB):
            digest.update(chunk)
    return digest.hexdigest()


def noise(n: int, seed: bytes = b"ova-test") -> bytes:
    """Bytes that do not compress: grains of them span many sectors."""
    out = bytearray()
    block = seed
    while len(out) < n:
        block = hashlib.sha256(block).digest()
        out += block
    return bytes(out[:n])


def small_ova(folder: Path) -> OvaUnderTest:
    """A 32 MiB disk: 1 MiB of noise, holes after; packed and signed (with a throwaway lab key) as the
    release is."""
    ova = make_ova(folder, data=noise(MIB), signer=make_lab_signer(folder / "signing"))
    return OvaUnderTest(ova=ova, source=folder / "arcvsa-9.9.9.qcow2")


def extract(ova: Path, folder: Path) -> Path:
    """Every member of `ova` into `folder` with nothing but tarfile."""
    with tarfile.open(ova) as tar:
        tar.extractall(folder, filter="data")
    return folder


# DSP0243's manifest line, with SHA256 the only algorithm we accept.
MANIFEST_LINE = re.compile(r"SHA256\((?P<name>[^)]+)\)= (?P<digest>[0-9a-f]{64})")


def manifest_failures(ova: Path, folder: Path) -> list[str]:
    """What `sha256sum -c` on the OVA's manifest would report after a plain tar extraction, plus members
    it leaves out (all but the .mf itself and the .cert, which signs it)."""
    extract(ova, folder)
    with tarfile.open(ova) as tar:
        names = tar.getnames()
    (manifest,) = [n for n in names if n.endswith(".mf")]
    failures, listed = [], set()
    for line in (folder / manifest).read_text().splitlines():
        match = MANIFEST_LINE.fullmatch(line)
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
    unlisted = [n for n in names if n != manifest and not n.endswith(".cert") and n not in listed]
    return failures + [f"{n}: not in the manifest" for n in unlisted]


def member_named(ova: Path, suffix: str) -> str:
    """The one member of `ova` whose name ends in `suffix`."""
    with tarfile.open(ova) as tar:
        (name,) = [n for n in tar.getnames() if n.endswith(suffix)]
    return name


def rewrite_member(ova: Path, out: Path, suffix: str, edit: Callable[[bytes], bytes]) -> None:
    """A copy of `ova` with the member ending in `suffix` passed through `edit`, the rest as they were."""
    with tarfile.open(ova) as src, tarfile.open(out, "w", format=tarfile.USTAR_FORMAT) as dst:
        for info in src.getmembers():
            fh = src.extractfile(info)
            assert fh is not None
            data = fh.read()
            if info.name.endswith(suffix):
                data = edit(data)
                info.size = len(data)
            dst.addfile(info, io.BytesIO(data))


def flip_middle_byte(data: bytes) -> bytes:
    """`data` with one bit of its middle byte flipped: one byte of a disk changed in transit."""
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0x01]) + data[middle + 1 :]


def change_vmdk_digest(manifest: bytes) -> bytes:
    """The manifest with the last hex digit of the VMDK's digest changed: an edited .mf."""
    lines = manifest.decode().splitlines(keepends=True)
    i = next(i for i, line in enumerate(lines) if ".vmdk)= " in line)
    line = lines[i].rstrip("\n")
    lines[i] = line[:-1] + ("0" if line[-1] != "0" else "1") + "\n"
    return "".join(lines).encode()
