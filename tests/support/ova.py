"""A small arcvsa OVA for tests: packed by ovf.ova from a qcow2 made with qemu-img (32 MiB, 1 MiB of data);
and what `make ova-test` needs to read one without arcvsa code: extraction, SHA-256."""

from __future__ import annotations

import hashlib
import os
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from ovf.build_manifest import BuildManifest
from ovf.ova import pack_ova, verify_ova

# Property values a deploy test fills in: a static address from TEST-NET-1, a password that passes the rules.
PROPERTY_VALUES = {
    "hostname": "arcvsa-esx01",
    "role": "appliance",
    "admin_password": "Corr3ct-Horse!",
    "ipv4_mode": "static",
    "ipv4_address": "192.0.2.21",
    "ipv4_prefix": "24",
    "ipv4_gateway": "192.0.2.1",
    "dns_servers": "192.0.2.53",
    "nfs_backend": "ganesha",
}


def make_ova(folder: Path, data: bytes | None = None) -> Path:
    """`data` at the start of the disk: 1 MiB that compresses by default; random data makes an OVA whose
    upload takes a while over a slowed link (tests/support/slow_proxy.py), long enough to act during it."""
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
    pack_ova(disk_image=qcow2, out=out, build=build, convert_timeout=120)
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
    """A 32 MiB disk: 1 MiB of noise, holes after; packed as the release is."""
    ova = make_ova(folder, data=noise(MIB))
    return OvaUnderTest(ova=ova, source=folder / "arcvsa-9.9.9.qcow2")


def extract(ova: Path, folder: Path) -> Path:
    """Every member of `ova` into `folder` with nothing but tarfile."""
    with tarfile.open(ova) as tar:
        tar.extractall(folder, filter="data")
    return folder
