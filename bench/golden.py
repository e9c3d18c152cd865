"""The golden image data: real OS bytes, so compression and dedup figures are honest.

The replica is the appliance image itself (a real, bootable Debian 13 disk) as raw bytes: the 1 MiB
chunks that hold data or that its boot trace touches, packed in disk order (see :func:`build`), so
a boot-storm replay of the (remapped) trace reads the very blocks the boot read. Per-desktop "delta samples" (1 MiB each) are cut from evenly spaced
allocated, non-zero regions of it: fio writes them with ``buffer_pattern='FILE'`` so clones' writes
are real data too, never zero-filled or random buffers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench import trace
from process import ProcessFailed, run

MIB = 1 << 20
ZERO_MIB = bytes(MIB)
SAMPLES = 8
REPLICA_TRACE = "boot-trace.replica.json"  # the boot trace with offsets in the replica: replay this one
# ZFS stores a record compressed only if it saves at least 1/8; sizes round up to the pool's sectors.
ASHIFT_BYTES = 4096


class GoldenError(RuntimeError):
    """The replica could not be made (no trace, qemu-img failed)."""


def cache_key(image: Path, image_key: str, trace_sha256: str, samples: int) -> str:
    """Hash of what the golden data is made from (image identity, the trace, the sample count)."""
    stat = image.stat()
    text = f"recipe=1\nimage={image}\nkey={image_key}\nmtime={stat.st_mtime_ns}\nbytes={stat.st_size}\n"
    return hashlib.sha256(f"{text}trace={trace_sha256}\nsamples={samples}\n".encode()).hexdigest()


def data_extents(path: Path, size: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each allocated extent of a sparse file below ``size`` (SEEK_DATA/SEEK_HOLE)."""
    with path.open("rb") as handle:
        fd = handle.fileno()
        pos = 0
        while pos < size:
            try:
                start = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError:  # ENXIO: no data after pos
                return
            end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
            yield start, end
            pos = max(end, start + 1)


def data_chunks(path: Path, size: int) -> list[int]:
    """Offsets of the 1 MiB chunks of ``path`` that are wholly allocated and not all zero."""
    found: list[int] = []
    with path.open("rb") as handle:
        for start, end in data_extents(path, size):
            chunk = -(-start // MIB) * MIB
            while chunk + MIB <= end:
                handle.seek(chunk)
                if handle.read(MIB) != ZERO_MIB:
                    found.append(chunk)
                chunk += MIB
    return found


def evenly(items: list[int], count: int) -> list[int]:
    """``count`` items spread evenly over ``items`` (all of them if there are fewer)."""
    if len(items) <= count:
        return list(items)
    return [items[(2 * i + 1) * len(items) // (2 * count)] for i in range(count)]


def lz4_record_sizes(data: bytes, record: int) -> list[tuple[int, bool]]:
    """(stored bytes, compressed?) per ``record`` block of ``data`` from the lz4 CLI's frame blocks."""
    done = subprocess.run(
        [trace.tool("lz4"), "-1", f"-B{record}", "-BI", "--no-frame-crc", "-c", "-q"],
        input=data,
        capture_output=True,
        check=True,
        timeout=600,
    )
    out = done.stdout
    pos = 7  # magic (4), FLG, BD, HC: no content size, no dictionary id
    sizes: list[tuple[int, bool]] = []
    while pos + 4 <= len(out):
        word = int.from_bytes(out[pos : pos + 4], "little")
        if word == 0:
            break
        size = word & 0x7FFFFFFF
        sizes.append((size, not word & 0x80000000))
        pos += 4 + size
    return sizes


def zfs_lz4_ratio(path: Path, size: int, record: int) -> float:
    """Estimate of ZFS's lz4 compressratio for ``path`` at ``record``-byte records.

    All-zero records are skipped (ZFS stores them as holes); a record is kept compressed only if
    it saves 1/8, and its size rounds up to 4 KiB sectors (ashift 12), as ZFS does.
    """
    logical = physical = 0
    zero = bytes(record)
    with path.open("rb") as handle:
        left = size
        while left > 0:
            block = handle.read(min(64 * MIB, left))
            if not block:
                break
            left -= len(block)
            records = [block[i : i + record] for i in range(0, len(block), record)]
            kept = b"".join(r for r in records if r != zero[: len(r)])
            if not kept:
                continue
            for (csize, compressed), start in zip(
                lz4_record_sizes(kept, record), range(0, len(kept), record), strict=True
            ):
                length = min(record, len(kept) - start)
                stored = length if not compressed or csize > length - length // 8 else csize
                logical += length
                physical += -(-stored // ASHIFT_BYTES) * ASHIFT_BYTES
    return round(logical / physical, 3) if physical else 1.0


def allocated_chunks(path: Path) -> set[int]:
    """Indexes of the 1 MiB chunks of a sparse file that hold any allocated byte."""
    found: set[int] = set()
    for start, end in data_extents(path, path.stat().st_size):
        found.update(range(start // MIB, -(-end // MIB)))
    return found


def touched_chunks(ops: list[trace.Op]) -> set[int]:
    """Indexes of the 1 MiB chunks any request of the trace touches."""
    found: set[int] = set()
    for op in ops:
        found.update(range(op.offset // MIB, -(-(op.offset + op.length) // MIB)))
    return found


def chunk_map(chunks: set[int]) -> dict[int, int]:
    """Disk chunk index -> replica chunk index: the chunks packed in disk order."""
    return {chunk: i for i, chunk in enumerate(sorted(chunks))}


def remap(ops: list[trace.Op], mapping: dict[int, int]) -> list[trace.Op]:
    """The trace with disk offsets turned into replica offsets (requests keep their chunk offsets).

    A request spanning chunks spans consecutive disk chunks, all of which are kept, so it stays
    contiguous in the replica.
    """
    return [trace.Op(o.t, o.op, mapping[o.offset // MIB] * MIB + o.offset % MIB, o.length) for o in ops]


def build(
    image: Path, image_key: str, trace_path: Path, out: Path, *, samples: int = SAMPLES
) -> dict[str, Any]:
    """Make the replica, its remapped trace and the delta samples under ``out`` (cached); returns the marker.

    The disk is 8 GiB with ~1.1 GiB allocated, and a boot reads its last MiB (udev/blkid probes for
    end-of-disk labels), so a truncated copy would be the whole disk. The replica instead packs, in
    disk order, every 1 MiB chunk that holds data or that the boot touches; the trace is remapped
    onto it (``boot-trace.replica.json``). Its bytes are the disk's, its reads read the same bytes.
    """
    if not trace_path.is_file():
        raise GoldenError(f"no boot trace at {trace_path}: run `python -m bench.trace` first")
    recorded = json.loads(trace_path.read_text(encoding="utf-8"))
    if recorded.get("image") != str(image):
        raise GoldenError(f"{trace_path} was recorded on {recorded.get('image')}, not {image}")
    trace_sha = hashlib.sha256(trace_path.read_bytes()).hexdigest()
    key = cache_key(image, image_key, trace_sha, samples)
    done = out / "replica.done"
    if done.is_file():
        marker: dict[str, Any] = json.loads(done.read_text(encoding="utf-8"))
        if marker.get("key") == key:
            marker.setdefault("replica_trace", str(out / REPLICA_TRACE))
            return marker
    done.unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    disk = out / "disk.raw.tmp"
    disk.unlink(missing_ok=True)
    try:
        run(
            [trace.tool("qemu-img"), "convert", "-U", "-f", "qcow2", "-O", "raw", str(image), str(disk)],
            timeout=1800,
        )
    except ProcessFailed as err:
        raise GoldenError(f"qemu-img convert failed: {err.stderr}") from None
    ops = trace.load(trace_path)
    mapping = chunk_map(allocated_chunks(disk) | touched_chunks(ops))
    replica = out / "replica.raw"
    tmp = out / "replica.raw.tmp"
    with disk.open("rb") as src, tmp.open("wb") as dst:
        for chunk, index in mapping.items():
            src.seek(chunk * MIB)
            block = src.read(MIB)
            if block.rstrip(b"\0"):
                dst.seek(index * MIB)
                dst.write(block)
        dst.truncate(len(mapping) * MIB)
    disk.unlink()
    tmp.replace(replica)
    size = len(mapping) * MIB
    replica_ops = remap(ops, mapping)
    trace.save(replica_ops, out / REPLICA_TRACE, {"image": str(image), "replica": str(replica)})
    chunks = data_chunks(replica, size)
    for old in out.glob("delta-*.bin"):
        old.unlink()
    picked = evenly(chunks, samples)
    with replica.open("rb") as handle:
        for i, offset in enumerate(picked):
            handle.seek(offset)
            (out / f"delta-{i:02d}.bin").write_bytes(handle.read(MIB))
    marker = {
        "key": key,
        "image": str(image),
        "image_key": image_key,
        "trace_sha256": trace_sha,
        "replica": str(replica),
        "replica_bytes": size,
        "replica_trace": str(out / REPLICA_TRACE),
        "allocated_bytes": replica.stat().st_blocks * 512,
        "chunks_from_boot_only": len(mapping) - len(allocated_chunks(replica)),
        "dense_data_chunks": len(chunks),
        "delta_samples": [{"file": f"delta-{i:02d}.bin", "offset": off} for i, off in enumerate(picked)],
    }
    if shutil.which("lz4"):
        marker["lz4_ratio_16k"] = zfs_lz4_ratio(replica, size, 16384)
        marker["lz4_ratio_128k"] = zfs_lz4_ratio(replica, size, 131072)
    done.write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
    return marker


def main() -> None:
    """Cut build/bench/golden/replica.raw and the delta samples from the traced image."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--trace", type=Path, default=trace.GOLDEN / "boot-trace.json")
    parser.add_argument("--out", type=Path, default=trace.GOLDEN)
    parser.add_argument("--samples", type=int, default=SAMPLES)
    args = parser.parse_args()
    recorded = json.loads(args.trace.read_text(encoding="utf-8"))
    marker = build(
        Path(recorded["image"]),
        str(recorded.get("image_key", "")),
        args.trace,
        args.out,
        samples=args.samples,
    )
    print(json.dumps(marker, indent=2))


if __name__ == "__main__":
    main()
