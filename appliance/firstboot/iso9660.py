"""Read one file from the root directory of an ISO 9660 image or CD-ROM device, without mounting.

The iso transport hands the OVF environment over as ovf-env.xml on a CD-ROM. Mounting would need
a mount point, privileges and cleanup; reading the few sectors directly needs none, and works on
the device node (/dev/sr0) and on an image file alike.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

SECTOR = 2048
FIRST_DESCRIPTOR = 16
MAX_DESCRIPTORS = 32
MAX_FILE = 1024 * 1024
_JOLIET_ESCAPES = (b"%/@", b"%/C", b"%/E")


class IsoError(Exception):
    """Not an ISO 9660 volume, or the file is not there."""


def _read(fh: BinaryIO, offset: int, size: int) -> bytes:
    fh.seek(offset)
    data = fh.read(size)
    if len(data) != size:
        raise IsoError(f"short read at byte {offset}: wanted {size}, got {len(data)}")
    return data


def _root_record(fh: BinaryIO) -> tuple[tuple[int, int], bool]:
    """(extent, length) of the root directory, preferring Joliet's; and whether it is Joliet."""
    primary: tuple[int, int] | None = None
    for index in range(FIRST_DESCRIPTOR, FIRST_DESCRIPTOR + MAX_DESCRIPTORS):
        desc = _read(fh, index * SECTOR, SECTOR)
        if desc[1:6] != b"CD001":
            raise IsoError("no ISO 9660 volume descriptor (CD001) found")
        kind = desc[0]
        root = desc[156 : 156 + 34]
        extent, length = struct.unpack_from("<I", root, 2)[0], struct.unpack_from("<I", root, 10)[0]
        if kind == 2 and desc[88:91] in _JOLIET_ESCAPES:
            return (extent, length), True
        if kind == 1:
            primary = (extent, length)
        if kind == 255:
            break
    if primary is None:
        raise IsoError("no primary volume descriptor")
    return primary, False


def _normalise(name: str) -> str:
    return name.split(";", 1)[0].rstrip(".").lower().replace("_", "-")


def read_root_file(path: Path, wanted: str) -> bytes:
    """Bytes of `wanted` (e.g. ovf-env.xml) from the volume's root directory; IsoError if absent.

    Names compare case-insensitively, without the ';1' version, and with '_' equal to '-', because
    plain ISO 9660 names cannot hold a hyphen (OVF_ENV.XML;1 is how ovf-env.xml looks without Joliet).
    """
    target = _normalise(wanted)
    with path.open("rb") as fh:
        (extent, length), joliet = _root_record(fh)
        directory = _read(fh, extent * SECTOR, length)
        pos = 0
        while pos < len(directory):
            record_len = directory[pos]
            if record_len == 0:  # records never cross a sector: skip to the next one
                pos = (pos // SECTOR + 1) * SECTOR
                continue
            record = directory[pos : pos + record_len]
            pos += record_len
            name_len = record[32]
            raw = record[33 : 33 + name_len]
            if raw in (b"\x00", b"\x01"):  # . and ..
                continue
            name = raw.decode("utf-16-be" if joliet else "ascii", errors="replace")
            if record[25] & 0x02 or _normalise(name) != target:
                continue
            file_extent = struct.unpack_from("<I", record, 2)[0]
            size = struct.unpack_from("<I", record, 10)[0]
            if size > MAX_FILE:
                raise IsoError(f"{wanted} is {size} bytes; more than {MAX_FILE}")
            return _read(fh, file_extent * SECTOR, size)
    raise IsoError(f"{wanted} not found in the root directory of {path}")
