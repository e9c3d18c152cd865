"""The text descriptor embedded in a stream-optimized VMDK, written and read back.

The fields are the ones VMware's open-vmdk writes: `encoding`, a content ID and its 128-bit
`ddb.longContentID`, the BIOS geometry with its cylinders rounded up, the adapter type, and the
tools fields of an appliance that runs open-vm-tools (install type 4: unmanaged, so vSphere never
offers to upgrade tools it does not own; version 2^31-1: the tools report their own).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ovf.sparse_extent import HEADS, SECTORS_PER_TRACK, cylinders

TOOLS_INSTALL_TYPE_UNMANAGED = "4"
TOOLS_VERSION_UNKNOWN = "2147483647"
ADAPTER_TYPE = "lsilogic"
# Some readers (libyal's libvmdk) open the extent by the name written here: it must be the file's.
_SAFE_NAME = re.compile(r"[A-Za-z0-9._-]+")
_EXTENT = re.compile(r'^(RW|RDONLY|NOACCESS) (\d+) (\w+) "([^"]*)"(?: \d+)?$')


@dataclass(frozen=True)
class Extent:
    """One line of the extent description."""

    access: str
    sectors: int
    kind: str
    file_name: str


@dataclass(frozen=True)
class VmdkDescriptor:
    """What a descriptor says, as the checker reads it."""

    fields: dict[str, str]
    extents: tuple[Extent, ...]


def content_ids(digest: bytes) -> tuple[int, str]:
    """CID and ddb.longContentID from a digest of the disk's content.

    Derived, not random, so the same disk makes the same VMDK byte for byte; the long ID ends in the
    CID, as VMware's tools write it. 0xffffffff and 0xfffffffe mean "no parent" and "all zeroes" to
    some readers and are avoided.
    """
    long_id = digest[:16].hex()
    cid = int(long_id[-8:], 16)
    if cid >= 0xFFFF_FFFE:
        cid -= 2
        long_id = long_id[:-8] + f"{cid:08x}"
    return cid, long_id


def render_descriptor(*, file_name: str, capacity_sectors: int, digest: bytes) -> bytes:
    """The descriptor of a monolithic stream-optimized disk whose only extent is `file_name`."""
    if not _SAFE_NAME.fullmatch(file_name):
        raise ValueError(f"VMDK file name {file_name!r} must be a plain name ([A-Za-z0-9._-])")
    cid, long_id = content_ids(digest)
    lines = [
        "# Disk DescriptorFile",
        "version=1",
        'encoding="UTF-8"',
        f"CID={cid:08x}",
        "parentCID=ffffffff",
        'createType="streamOptimized"',
        "",
        "# Extent description",
        f'RW {capacity_sectors} SPARSE "{file_name}"',
        "",
        "# The Disk Data Base",
        "#DDB",
        "",
        f'ddb.longContentID = "{long_id}"',
        # Obsolete (read by ESX 3.x and older only), still written by VMware's tools.
        'ddb.virtualHWVersion = "4"',
        f'ddb.geometry.cylinders = "{cylinders(capacity_sectors)}"',
        f'ddb.geometry.heads = "{HEADS}"',
        f'ddb.geometry.sectors = "{SECTORS_PER_TRACK}"',
        f'ddb.adapterType = "{ADAPTER_TYPE}"',
        f'ddb.toolsInstallType = "{TOOLS_INSTALL_TYPE_UNMANAGED}"',
        f'ddb.toolsVersion = "{TOOLS_VERSION_UNKNOWN}"',
    ]
    return ("\n".join(lines) + "\n").encode()


def parse_descriptor(text: str) -> VmdkDescriptor:
    """Fields (quotes removed) and extent lines of a descriptor; ValueError on a line it cannot read."""
    fields: dict[str, str] = {}
    extents: list[Extent] = []
    for raw in text.split("\0", 1)[0].splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if match := _EXTENT.match(line):
            access, sectors, kind, name = match.groups()
            extents.append(Extent(access=access, sectors=int(sectors), kind=kind, file_name=name))
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"descriptor line {line!r} is neither key=value nor an extent")
        fields[key.strip()] = value.strip().strip('"')
    return VmdkDescriptor(fields=fields, extents=tuple(extents))
