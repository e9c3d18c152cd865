"""Write a raw disk image as a stream-optimized VMDK, the way vSphere's importer reads one.

Only grains that hold data are written: the raw file is walked with SEEK_DATA/SEEK_HOLE, so an
8 GiB disk with 1 GiB in use costs the reading of 1 GiB, and a grain of zeros inside the data is
skipped too. Grains are deflated (zlib) on worker threads, since zlib lets go of the GIL, and written
in LBA order. Each grain table follows the grains it points to;
then come the grain directory, the footer and the end-of-stream marker (ovf.sparse_extent).

The descriptor's content ID is a digest of the grains written, so the same disk gives the same
file: it is the one part written last, in the space reserved for it after the header.
"""

from __future__ import annotations

import errno
import hashlib
import os
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ovf.errors import ImageInvalid
from ovf.sparse_extent import (
    DESCRIPTOR_SECTORS,
    GRAIN_BYTES,
    GRAIN_SECTORS,
    GT_SECTORS,
    GTES_PER_GT,
    MARKER_EOS,
    MARKER_FOOTER,
    MARKER_GD,
    MARKER_GT,
    SECTOR,
    SparseHeader,
    gd_entries,
    grain_marker,
    meta_marker,
    pack_table,
    pad,
    sectors_for,
)
from ovf.vmdk_descriptor import render_descriptor

# zlib's default: level 9 (open-vmdk's) costs about three times the CPU for a file barely smaller.
COMPRESSION_LEVEL = 6
# Grains handed to the compressing threads at a time: 16 MiB in flight, whatever the disk's size.
BATCH_GRAINS = 256
_ZERO_GRAIN = bytes(GRAIN_BYTES)


@dataclass(frozen=True)
class WrittenVmdk:
    """What write_stream_vmdk() wrote."""

    path: Path
    capacity: int  # bytes the guest sees
    grains: int  # grains written (the others read as zeros)
    size: int  # bytes of the file


def data_grains(fd: int, size: int) -> Iterator[int]:
    """Indexes of the grains that overlap the file's data extents, in order, each once."""
    pos = next_grain = 0
    while pos < size:
        try:
            start = os.lseek(fd, pos, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole is left
                return
            raise
        end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
        first, past = max(start // GRAIN_BYTES, next_grain), -(-end // GRAIN_BYTES)
        yield from range(first, past)
        next_grain = max(next_grain, past)
        pos = end


def _nonzero_grains(fd: int, size: int) -> Iterator[tuple[int, bytes]]:
    for index in data_grains(fd, size):
        data = os.pread(fd, GRAIN_BYTES, index * GRAIN_BYTES)
        if len(data) < GRAIN_BYTES:  # the last grain reaches past the disk's end: zeros there
            data = data.ljust(GRAIN_BYTES, b"\0")
        if data != _ZERO_GRAIN:
            yield index, data


def _batches(grains: Iterator[tuple[int, bytes]]) -> Iterator[list[tuple[int, bytes]]]:
    batch: list[tuple[int, bytes]] = []
    for grain in grains:
        batch.append(grain)
        if len(batch) == BATCH_GRAINS:
            yield batch
            batch = []
    if batch:
        yield batch


class _Stream:
    """The output file, its position in sectors, and the grain tables filled in as grains go out."""

    def __init__(self, fh: BinaryIO, sector: int) -> None:
        self.fh = fh
        self.sector = sector
        self.table: list[int] = [0] * GTES_PER_GT
        self.table_index = -1
        self.directory: dict[int, int] = {}

    def put(self, data: bytes) -> int:
        """Write whole sectors; the sector they start at."""
        at = self.sector
        self.fh.write(data)
        self.sector += len(data) // SECTOR
        return at

    def grain(self, index: int, compressed: bytes) -> None:
        table_index = index // GTES_PER_GT
        if table_index != self.table_index:
            self.flush_table()
            self.table_index = table_index
        self.table[index % GTES_PER_GT] = self.put(
            pad(grain_marker(index * GRAIN_SECTORS, len(compressed)) + compressed)
        )

    def flush_table(self) -> None:
        if self.table_index < 0:
            return
        self.put(meta_marker(MARKER_GT, GT_SECTORS))
        self.directory[self.table_index] = self.put(pack_table(self.table))
        self.table = [0] * GTES_PER_GT
        self.table_index = -1


def write_stream_vmdk(
    raw: Path,
    target: Path,
    *,
    file_name: str | None = None,
    level: int = COMPRESSION_LEVEL,
    workers: int | None = None,
) -> WrittenVmdk:
    """Write the raw disk image `raw` as the stream-optimized VMDK `target`.

    `file_name` is the name the descriptor gives the extent (the name the file will have in the
    OVA; `target`'s own by default). ImageInvalid when the raw size is not whole sectors.
    """
    capacity = raw.stat().st_size
    if capacity == 0 or capacity % SECTOR:
        raise ImageInvalid(
            f"{raw}: {capacity} bytes is not a whole, non-zero number of {SECTOR}-byte sectors"
        )
    capacity_sectors = capacity // SECTOR
    # Grains start on a grain boundary, as VMware's and qemu's writers place them.
    overhead = -(-(1 + DESCRIPTOR_SECTORS) // GRAIN_SECTORS) * GRAIN_SECTORS
    header = SparseHeader(capacity=capacity_sectors, overhead=overhead)
    digest = hashlib.sha256(capacity.to_bytes(8, "little"))
    written = 0
    threads = workers or min(2, os.cpu_count() or 1)
    with (
        target.open("wb") as fh,
        os.fdopen(os.open(raw, os.O_RDONLY), "rb") as src,
        ThreadPoolExecutor(max_workers=threads, thread_name_prefix="vmdk-deflate") as pool,
    ):
        fh.write(header.pack())
        fh.write(bytes((overhead - 1) * SECTOR))
        stream = _Stream(fh, overhead)
        for batch in _batches(_nonzero_grains(src.fileno(), capacity)):
            compressed = pool.map(lambda grain: zlib.compress(grain[1], level), batch)
            for (index, data), deflated in zip(batch, compressed, strict=True):
                digest.update(index.to_bytes(8, "little"))
                digest.update(data)
                stream.grain(index, deflated)
                written += 1
        stream.flush_table()
        entries = gd_entries(capacity_sectors)
        stream.put(meta_marker(MARKER_GD, sectors_for(entries * 4)))
        gd_offset = stream.put(pack_table([stream.directory.get(i, 0) for i in range(entries)]))
        stream.put(meta_marker(MARKER_FOOTER, 1))
        stream.put(header.with_gd(gd_offset).pack())
        stream.put(meta_marker(MARKER_EOS, 0))
        descriptor = render_descriptor(
            file_name=file_name or target.name, capacity_sectors=capacity_sectors, digest=digest.digest()
        )
        if len(descriptor) > DESCRIPTOR_SECTORS * SECTOR:
            raise ImageInvalid(
                f"VMDK descriptor is {len(descriptor)} bytes; {DESCRIPTOR_SECTORS} sectors hold it"
            )
        fh.seek(header.descriptor_offset * SECTOR)
        fh.write(descriptor)
    return WrittenVmdk(path=target, capacity=capacity, grains=written, size=target.stat().st_size)
