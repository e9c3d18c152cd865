"""An arcvsa OVA whose disk holds random data: it does not compress, so its upload takes a while over a
slowed link (tests/support/slow_proxy.py), long enough to act during it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ovf.build_manifest import BuildManifest
from ovf.ova import pack_ova


def random_ova(folder: Path, mib: int = 8) -> Path:
    raw = folder / "disk.raw"
    with raw.open("wb") as fh:
        fh.truncate(32 * 1024**2)
        fh.write(os.urandom(mib * 1024**2))
    qcow2 = folder / "arcvsa-9.9.9.qcow2"
    subprocess.run(["qemu-img", "convert", "-O", "qcow2", str(raw), str(qcow2)], check=True, timeout=60)  # noqa: S607
    build = BuildManifest(
        version="9.9.9", git_version="v9.9.9", kernel="6.12", openzfs="2.3.2", nfs_ganesha="6.5"
    )
    out = folder / "arcvsa-9.9.9.ova"
    pack_ova(disk_image=qcow2, out=out, build=build, convert_timeout=120)
    return out
