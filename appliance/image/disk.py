"""Stage 2 of the image build: the root tree laid onto a disk that boots under BIOS and UEFI
(``disk.sh``), as qcow2."""

from __future__ import annotations

import hashlib
from pathlib import Path

from appliance.image.rootfs import HERE, hash_files
from process import stream

DISK_TIMEOUT = 1200.0


def disk_key(rootfs: str, size_mib: int, authorized_keys: Path | None) -> str:
    """Hash of the root tree's key, the disk layout script, the size and the lab key (if any)."""
    digest = hashlib.sha256(f"rootfs={rootfs}\nsize={size_mib}\n".encode())
    hash_files(digest, [HERE / "disk.sh"])
    if authorized_keys is not None:
        digest.update(authorized_keys.read_bytes())
    return digest.hexdigest()


def build_disk(
    tree: Path, cache: Path, logs: Path, key: str, size_mib: int, root_uuid: str, keys: Path | None
) -> tuple[Path, bool]:
    """The cached qcow2 for ``key``, laying the tree onto a disk if missing; returns (qcow2, was_cached)."""
    qcow2 = cache / f"disk-{key[:16]}.qcow2"
    if qcow2.is_file():
        return qcow2, True
    raw = cache / f"disk-{key[:16]}.raw"
    partial = qcow2.with_suffix(".qcow2.partial")
    log = logs / f"disk-{key[:16]}.log"
    log.unlink(missing_ok=True)
    argv = [str(HERE / "disk.sh"), str(tree), str(raw), str(size_mib), root_uuid]
    if keys is not None:
        argv.append(str(keys))
    try:
        stream(argv, timeout=DISK_TIMEOUT, log=log)
        stream(["qemu-img", "convert", "-O", "qcow2", str(raw), str(partial)], timeout=DISK_TIMEOUT, log=log)
    finally:
        raw.unlink(missing_ok=True)
    partial.rename(qcow2)
    return qcow2, False
