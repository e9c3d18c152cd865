"""The on-disk structures of a stream-optimized sparse extent (VMware's VMDK 5.0 specification).

Pure encoding and decoding, no I/O: the writer (ovf.vmdk_writer) and the checker (ovf.vmdk_check)
share these so the file we write and the rules we check it by cannot drift apart.

A stream-optimized extent is read front to back: the header (its grain directory offset left at
GD_AT_END), the embedded descriptor, then compressed grains, each behind a marker that names its
LBA, a grain table (behind its own marker) after the grains it points to, the grain directory, a
footer (the header again, with the real grain directory offset) and an end-of-stream marker.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace

SECTOR = 512
MAGIC = b"KDMV"
VERSION = 3
GRAIN_SECTORS = 128  # 64 KiB grains: the size vSphere's importer and open-vmdk use
GRAIN_BYTES = GRAIN_SECTORS * SECTOR
GTES_PER_GT = 512
GT_SECTORS = GTES_PER_GT * 4 // SECTOR
GD_AT_END = 0xFFFF_FFFF_FFFF_FFFF
# Room for the descriptor, as open-vmdk reserves it: the descriptor is rewritten in place at the end
# of a write (its content ID hashes the data), so its size cannot depend on what it says.
DESCRIPTOR_SECTORS = 20
COMPRESS_DEFLATE = 1

FLAG_NEWLINE_DETECTOR = 1 << 0
FLAG_REDUNDANT_GT = 1 << 1
FLAG_COMPRESSED = 1 << 16
FLAG_MARKERS = 1 << 17
# No redundant grain directory: a stream has no place for one, and open-vmdk does not claim one.
STREAM_FLAGS = FLAG_NEWLINE_DETECTOR | FLAG_COMPRESSED | FLAG_MARKERS

MARKER_EOS = 0
MARKER_GT = 1
MARKER_GD = 2
MARKER_FOOTER = 3

# The newline detector: four characters a text-mode transfer would have mangled.
NEWLINE_CHARS = b"\n \r\n"
_HEADER = struct.Struct("<4sIIQQQQIQQQB4sH433x")
_GRAIN_MARKER = struct.Struct("<QI")
_META_MARKER = struct.Struct("<QII")
GRAIN_MARKER_BYTES = _GRAIN_MARKER.size
assert _HEADER.size == SECTOR


def sectors_for(nbytes: int) -> int:
    """Whole sectors that hold `nbytes`."""
    return -(-nbytes // SECTOR)


@dataclass(frozen=True)
class SparseHeader:
    """The 512-byte SparseExtentHeader; offsets and sizes in sectors."""

    capacity: int
    overhead: int
    gd_offset: int = GD_AT_END
    version: int = VERSION
    flags: int = STREAM_FLAGS
    grain_size: int = GRAIN_SECTORS
    descriptor_offset: int = 1
    descriptor_size: int = DESCRIPTOR_SECTORS
    num_gtes_per_gt: int = GTES_PER_GT
    rgd_offset: int = 0
    unclean_shutdown: int = 0
    compress_algorithm: int = COMPRESS_DEFLATE
    newline_chars: bytes = NEWLINE_CHARS

    def pack(self) -> bytes:
        return _HEADER.pack(
            MAGIC,
            self.version,
            self.flags,
            self.capacity,
            self.grain_size,
            self.descriptor_offset,
            self.descriptor_size,
            self.num_gtes_per_gt,
            self.rgd_offset,
            self.gd_offset,
            self.overhead,
            self.unclean_shutdown,
            self.newline_chars,
            self.compress_algorithm,
        )

    def with_gd(self, gd_offset: int) -> SparseHeader:
        """The footer: this header with the grain directory's real offset."""
        return replace(self, gd_offset=gd_offset)

    @classmethod
    def unpack(cls, sector: bytes) -> SparseHeader:
        """Decode one sector; ValueError when it is not a sparse extent header."""
        if len(sector) < SECTOR:
            raise ValueError(f"header is {len(sector)} bytes, not {SECTOR}")
        (
            magic,
            version,
            flags,
            capacity,
            grain,
            d_off,
            d_size,
            gtes,
            rgd,
            gd,
            overhead,
            unclean,
            nl,
            algo,
        ) = _HEADER.unpack(sector[:SECTOR])
        if magic != MAGIC:
            raise ValueError(f"magic {magic!r} is not {MAGIC!r}")
        return cls(
            capacity=capacity,
            overhead=overhead,
            gd_offset=gd,
            version=version,
            flags=flags,
            grain_size=grain,
            descriptor_offset=d_off,
            descriptor_size=d_size,
            num_gtes_per_gt=gtes,
            rgd_offset=rgd,
            unclean_shutdown=unclean,
            compress_algorithm=algo,
            newline_chars=nl,
        )


def grain_count(capacity_sectors: int) -> int:
    """Grains that cover the disk (the last may reach past its end)."""
    return -(-capacity_sectors // GRAIN_SECTORS)


def gd_entries(capacity_sectors: int) -> int:
    """Grain tables (and so grain directory entries) that cover the disk."""
    return -(-grain_count(capacity_sectors) // GTES_PER_GT)


def grain_marker(lba: int, compressed_size: int) -> bytes:
    """The 12 bytes before a compressed grain: its first sector and its compressed length."""
    return _GRAIN_MARKER.pack(lba, compressed_size)


def meta_marker(kind: int, sectors: int) -> bytes:
    """A whole-sector marker before a grain table, grain directory or footer (or the end of stream)."""
    return _META_MARKER.pack(sectors, 0, kind).ljust(SECTOR, b"\0")


@dataclass(frozen=True)
class Marker:
    """A decoded marker: a grain (size > 0) or metadata of `kind` spanning `value` sectors."""

    value: int  # the grain's LBA, or the sectors of metadata that follow
    size: int  # compressed bytes of a grain; 0 for metadata markers
    kind: int  # meaningful only when size == 0


def read_marker(sector: bytes) -> Marker:
    """Decode the marker at the start of `sector` (at least 16 bytes)."""
    value, size = _GRAIN_MARKER.unpack_from(sector)
    kind = 0 if size else _META_MARKER.unpack_from(sector)[2]
    return Marker(value=value, size=size, kind=kind)


def pad(data: bytes) -> bytes:
    """`data` zero-filled to a whole number of sectors."""
    return data.ljust(sectors_for(len(data)) * SECTOR, b"\0")


def pack_table(entries: list[int]) -> bytes:
    """A grain table or grain directory: little-endian 32-bit sector offsets, padded to sectors."""
    return pad(struct.pack(f"<{len(entries)}I", *entries))


def unpack_table(data: bytes, count: int) -> list[int]:
    """The first `count` 32-bit entries of a grain table or directory."""
    return list(struct.unpack_from(f"<{count}I", data))


# 255 heads x 63 sectors is the BIOS geometry every disk larger than a few GiB reports; the
# cylinders are rounded up (as open-vmdk does) so the geometry covers the whole disk.
HEADS = 255
SECTORS_PER_TRACK = 63
MAX_CYLINDERS = 65535


def cylinders(capacity_sectors: int) -> int:
    """ddb.geometry.cylinders for a disk of `capacity_sectors`."""
    return min(MAX_CYLINDERS, -(-capacity_sectors // (HEADS * SECTORS_PER_TRACK)))
