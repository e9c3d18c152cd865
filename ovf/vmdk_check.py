"""Check a stream-optimized VMDK front to back before it is packed, as vSphere's importer reads it.

Every grain is inflated and must give exactly one grain; every grain table must point at the grains
before it, the directory at the tables, the footer must repeat the header with the directory's
offset, and the end-of-stream marker must be the file's last sector. A file cut short, a flipped
byte in compressed data, or tables that point elsewhere are refused with VmdkInvalid.

What the check reads (capacity, grains present) is what the OVF descriptor states about the disk:
the numbers come from the file that is packed, not from the tool that made it.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ovf.errors import VmdkInvalid
from ovf.sparse_extent import (
    COMPRESS_DEFLATE,
    FLAG_COMPRESSED,
    FLAG_MARKERS,
    FLAG_REDUNDANT_GT,
    GD_AT_END,
    GRAIN_BYTES,
    GRAIN_MARKER_BYTES,
    GRAIN_SECTORS,
    GT_SECTORS,
    GTES_PER_GT,
    MARKER_EOS,
    MARKER_FOOTER,
    MARKER_GD,
    MARKER_GT,
    NEWLINE_CHARS,
    SECTOR,
    VERSION,
    SparseHeader,
    gd_entries,
    grain_count,
    read_marker,
    sectors_for,
    unpack_table,
)
from ovf.vmdk_descriptor import VmdkDescriptor, parse_descriptor


@dataclass(frozen=True)
class StreamLayout:
    """What check_stream_vmdk() found in a VMDK it accepted."""

    header: SparseHeader
    descriptor: VmdkDescriptor
    grains: int
    grain_tables: int
    gd_offset: int  # sectors
    file_size: int

    @property
    def capacity(self) -> int:
        """Bytes the guest sees (ovf:capacity)."""
        return self.header.capacity * SECTOR

    @property
    def populated_size(self) -> int:
        """Bytes of the disk the VMDK carries data for (ovf:populatedSize): its grains, within capacity."""
        return min(self.grains * GRAIN_BYTES, self.capacity)


class _Reader:
    """Sequential reads of whole sectors, with the position for error messages."""

    def __init__(self, fh: BinaryIO, path: Path, sector: int) -> None:
        self.fh, self.path, self.sector = fh, path, sector
        fh.seek(sector * SECTOR)

    def take(self, sectors: int, what: str) -> bytes:
        data = self.fh.read(sectors * SECTOR)
        if len(data) < sectors * SECTOR:
            raise VmdkInvalid(
                f"{self.path.name}: cut short: {what} at sector {self.sector} needs {sectors} sector(s), "
                f"the file ends {len(data)} bytes in"
            )
        self.sector += sectors
        return data


def _check_header(header: SparseHeader, path: Path) -> None:
    problems = []
    if header.version != VERSION:
        problems.append(f"version {header.version}, not {VERSION}")
    if header.flags & (FLAG_COMPRESSED | FLAG_MARKERS) != FLAG_COMPRESSED | FLAG_MARKERS:
        problems.append(f"flags {header.flags:#x} lack compressed grains and markers")
    if header.flags & FLAG_REDUNDANT_GT or header.rgd_offset:
        problems.append(
            f"flags {header.flags:#x} / rgdOffset {header.rgd_offset} claim a redundant grain directory"
        )
    if header.newline_chars != NEWLINE_CHARS:
        problems.append(f"newline detector {header.newline_chars!r} was mangled in transfer")
    if header.compress_algorithm != COMPRESS_DEFLATE:
        problems.append(f"compressAlgorithm {header.compress_algorithm}, not deflate")
    if (header.grain_size, header.num_gtes_per_gt) != (GRAIN_SECTORS, GTES_PER_GT):
        problems.append(f"grain size {header.grain_size} / {header.num_gtes_per_gt} GTEs per GT")
    if header.gd_offset != GD_AT_END:
        problems.append(f"gdOffset {header.gd_offset} in the header; a stream puts it in the footer")
    if header.capacity <= 0:
        problems.append("capacity 0")
    if problems:
        raise VmdkInvalid(f"{path.name}: header: " + "; ".join(problems))


def _check_descriptor(text: bytes, header: SparseHeader, name: str, path: Path) -> VmdkDescriptor:
    try:
        descriptor = parse_descriptor(text.decode())
    except (UnicodeDecodeError, ValueError) as exc:
        raise VmdkInvalid(f"{path.name}: unreadable descriptor: {exc}") from exc
    if descriptor.fields.get("createType") != "streamOptimized":
        raise VmdkInvalid(
            f"{path.name}: createType {descriptor.fields.get('createType')!r}, not streamOptimized"
        )
    extents = [(e.access, e.sectors, e.kind, e.file_name) for e in descriptor.extents]
    if extents != [("RW", header.capacity, "SPARSE", name)]:
        raise VmdkInvalid(
            f'{path.name}: extents {extents}, expected one RW {header.capacity} SPARSE "{name}"'
        )
    return descriptor


def _inflate(data: bytes, where: str, path: Path) -> None:
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, GRAIN_BYTES + 1)
    except zlib.error as exc:
        raise VmdkInvalid(f"{path.name}: grain {where}: compressed data is corrupt: {exc}") from exc
    if len(out) != GRAIN_BYTES or not inflater.eof or inflater.unused_data:
        raise VmdkInvalid(
            f"{path.name}: grain {where}: inflates to {len(out)} bytes (complete: {inflater.eof}), not one grain"
        )


def check_stream_vmdk(path: Path, *, file_name: str | None = None) -> StreamLayout:
    """Read `path` as a stream-optimized VMDK and return its layout; VmdkInvalid on the first broken rule.

    `file_name` is the extent name the descriptor must give (the file's own by default).
    """
    size = path.stat().st_size
    with path.open("rb") as fh:
        try:
            header = SparseHeader.unpack(fh.read(SECTOR))
        except ValueError as exc:
            raise VmdkInvalid(f"{path.name}: not a sparse VMDK: {exc}") from exc
        _check_header(header, path)
        fh.seek(header.descriptor_offset * SECTOR)
        descriptor = _check_descriptor(
            fh.read(header.descriptor_size * SECTOR), header, file_name or path.name, path
        )
        reader = _Reader(fh, path, header.overhead)
        grains: dict[int, int] = {}  # grain index -> sector of its marker
        pending: dict[int, int] = {}  # grains no table has pointed at yet
        tables: dict[int, int] = {}  # table index -> sector of the table
        last_lba = -1
        gd_offset: int | None = None
        footer_seen = False
        while True:
            at = reader.sector
            first = reader.take(1, "a marker")
            marker = read_marker(first)
            if marker.size:
                where = f"at sector {at} (LBA {marker.value})"
                if (
                    marker.value % GRAIN_SECTORS
                    or marker.value >= header.capacity
                    or marker.value <= last_lba
                ):
                    raise VmdkInvalid(
                        f"{path.name}: grain {where}: LBA not grain-aligned, past the disk or out of order"
                    )
                if gd_offset is not None:
                    raise VmdkInvalid(f"{path.name}: grain {where} after the grain directory")
                total = GRAIN_MARKER_BYTES + marker.size
                data = first + (
                    reader.take(sectors_for(total) - 1, f"grain {where}") if total > SECTOR else b""
                )
                _inflate(data[GRAIN_MARKER_BYTES:total], where, path)
                last_lba = marker.value
                grains[marker.value // GRAIN_SECTORS] = pending[marker.value // GRAIN_SECTORS] = at
            elif marker.kind == MARKER_GT:
                _check_table(reader, marker.value, pending, tables, at, path)
            elif marker.kind == MARKER_GD:
                if pending:
                    raise VmdkInvalid(
                        f"{path.name}: grains {sorted(pending)[:5]} have no grain table before the directory"
                    )
                gd_offset = _check_directory(reader, marker.value, header, tables, at, path)
            elif marker.kind == MARKER_FOOTER:
                footer = reader.take(1, "the footer")
                if (
                    gd_offset is None
                    or marker.value != 1
                    or footer[:SECTOR] != header.with_gd(gd_offset).pack()
                ):
                    raise VmdkInvalid(
                        f"{path.name}: footer at sector {at + 1} is not the header with gdOffset {gd_offset}"
                    )
                footer_seen = True
            elif marker.kind == MARKER_EOS and marker.value == 0 and first.count(0) == SECTOR:
                if not footer_seen:
                    raise VmdkInvalid(f"{path.name}: end-of-stream marker at sector {at} before any footer")
                if size != reader.sector * SECTOR:
                    raise VmdkInvalid(
                        f"{path.name}: {size - reader.sector * SECTOR} bytes after the end-of-stream marker"
                    )
                break
            else:
                raise VmdkInvalid(f"{path.name}: unknown marker {marker} at sector {at}")
    assert gd_offset is not None  # the footer was seen, and it needs the directory
    return StreamLayout(
        header=header,
        descriptor=descriptor,
        grains=len(grains),
        grain_tables=len(tables),
        gd_offset=gd_offset,
        file_size=size,
    )


def _check_table(
    reader: _Reader, sectors: int, pending: dict[int, int], tables: dict[int, int], at: int, path: Path
) -> None:
    if sectors != GT_SECTORS or not pending:
        raise VmdkInvalid(
            f"{path.name}: grain table at sector {at}: {sectors} sectors, {len(pending)} grains before it"
        )
    index = min(pending) // GTES_PER_GT
    if max(pending) // GTES_PER_GT != index or index in tables:
        raise VmdkInvalid(
            f"{path.name}: grain table at sector {at}: the grains before it span several tables"
        )
    table = unpack_table(reader.take(GT_SECTORS, f"grain table at sector {at + 1}"), GTES_PER_GT)
    expected = [pending.get(index * GTES_PER_GT + i, 0) for i in range(GTES_PER_GT)]
    if table != expected:
        wrong = next(i for i in range(GTES_PER_GT) if table[i] != expected[i])
        raise VmdkInvalid(
            f"{path.name}: grain table {index} at sector {at + 1}: entry {wrong} is {table[wrong]}, "
            f"the grain is at {expected[wrong]}"
        )
    tables[index] = at + 1
    pending.clear()


def _check_directory(
    reader: _Reader, sectors: int, header: SparseHeader, tables: dict[int, int], at: int, path: Path
) -> int:
    entries = gd_entries(header.capacity)
    if sectors != sectors_for(entries * 4):
        raise VmdkInvalid(
            f"{path.name}: grain directory at sector {at}: {sectors} sectors for {entries} tables"
        )
    directory = unpack_table(reader.take(sectors, f"grain directory at sector {at + 1}"), entries)
    expected = [tables.get(i, 0) for i in range(entries)]
    if directory != expected or max(tables, default=-1) >= entries:
        raise VmdkInvalid(
            f"{path.name}: grain directory at sector {at + 1} does not point at the grain tables"
        )
    assert grain_count(header.capacity) <= entries * GTES_PER_GT
    return at + 1
