"""Our stream-optimized VMDK: the layout as written, read back by qemu-img, and the check that refuses
a file cut short or a grain changed."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from support.ova import noise, sha256_file

from ovf.errors import ImageInvalid, VmdkInvalid
from ovf.sparse_extent import (
    GD_AT_END,
    GRAIN_BYTES,
    GT_SECTORS,
    GTES_PER_GT,
    MARKER_EOS,
    MARKER_FOOTER,
    MARKER_GD,
    SECTOR,
    SparseHeader,
    cylinders,
    read_marker,
    unpack_table,
)
from ovf.vmdk import convert_to_stream_vmdk
from ovf.vmdk_check import check_stream_vmdk
from ovf.vmdk_descriptor import content_ids, parse_descriptor
from ovf.vmdk_writer import data_grains, write_stream_vmdk

MIB = 1024**2
TABLE_BYTES = GTES_PER_GT * GRAIN_BYTES  # 32 MiB of disk per grain table


def _qemu_img() -> str:
    path = shutil.which("qemu-img")
    assert path, "qemu-img not installed (make ova-setup installs it)"
    return path


def _disk(path: Path, size: int, writes: dict[int, bytes]) -> Path:
    """A sparse raw file of `size` bytes with `writes` (offset -> bytes); the rest are holes."""
    with path.open("wb") as fh:
        fh.truncate(size)
        for offset, data in writes.items():
            fh.seek(offset)
            fh.write(data)
    return path


# Grain 0 holds noise; grain 1 is written zeros (data, not a hole: still skipped); grain 600 is in the
# second grain table; grain 1100 (the third table) ends 3 sectors past a grain boundary, so the last
# grain is partial.
SIZE = 1100 * GRAIN_BYTES + 3 * SECTOR
WRITES = {
    0: noise(GRAIN_BYTES),
    GRAIN_BYTES: bytes(GRAIN_BYTES),
    600 * GRAIN_BYTES + 17: b"arcvsa" * 1000,
    SIZE - 10: b"last bytes",
}


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _disk(tmp_path_factory.mktemp("raw") / "disk.raw", SIZE, WRITES)


@pytest.fixture(scope="module")
def vmdk(raw: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("vmdk") / "arcvsa-1.2.3-disk1.vmdk"
    write_stream_vmdk(raw, out)
    return out


def _walk(vmdk: Path) -> list[tuple[int, int, int, int]]:
    """(sector, value, size, kind) of every marker, read with nothing but the spec's offsets."""
    data = vmdk.read_bytes()
    header = SparseHeader.unpack(data[:SECTOR])
    sector, found = header.overhead, []
    while sector * SECTOR < len(data):
        marker = read_marker(data[sector * SECTOR : sector * SECTOR + 16])
        found.append((sector, marker.value, marker.size, marker.kind))
        if marker.size:
            sector += -(-(12 + marker.size) // SECTOR)
        else:
            sector += 1 + marker.value
    return found


def test_header_is_open_vmdks_stream_header(vmdk: Path) -> None:
    header = SparseHeader.unpack(vmdk.read_bytes()[:SECTOR])
    assert vmdk.read_bytes()[:4] == b"KDMV"
    assert header.version == 3
    assert header.flags == 0x30001, "newline detector, compressed grains, markers; no redundant directory"
    assert (header.grain_size, header.num_gtes_per_gt) == (128, 512)
    assert (header.rgd_offset, header.gd_offset) == (0, GD_AT_END)
    assert header.capacity == SIZE // SECTOR
    assert header.compress_algorithm == 1
    assert header.overhead % 128 == 0 and header.descriptor_offset == 1


def test_layout_grains_then_tables_then_directory_footer_eos(vmdk: Path) -> None:
    markers = _walk(vmdk)
    kinds = [("grain", value) if size else ({0: "eos", 1: "gt", 2: "gd", 3: "footer"}[kind], value)
             for _, value, size, kind in markers]  # fmt: skip
    assert kinds == [
        ("grain", 0), ("gt", GT_SECTORS),
        ("grain", 600 * 128), ("gt", GT_SECTORS),
        ("grain", 1100 * 128), ("gt", GT_SECTORS),
        ("gd", 1), ("footer", 1), ("eos", 0),
    ]  # fmt: skip
    data = vmdk.read_bytes()
    assert len(data) == (markers[-1][0] + 1) * SECTOR, "the end-of-stream marker is the last sector"
    assert data[-SECTOR:] == bytes(SECTOR)
    footer = SparseHeader.unpack(data[-2 * SECTOR : -SECTOR])
    gd_sector = markers[6][0] + 1
    assert footer.gd_offset == gd_sector
    assert unpack_table(data[gd_sector * SECTOR :], 3) == [markers[i][0] + 1 for i in (1, 3, 5)]
    second_table = unpack_table(data[(markers[3][0] + 1) * SECTOR :], GTES_PER_GT)
    assert second_table[600 - GTES_PER_GT] == markers[2][0]
    assert sum(1 for e in second_table if e) == 1


def test_the_noisy_grain_spans_sectors_and_holds_its_lba(vmdk: Path) -> None:
    sector, lba, size, _ = _walk(vmdk)[0]
    assert (lba, size > SECTOR) == (0, True)
    raw = vmdk.read_bytes()[sector * SECTOR :]
    assert struct.unpack_from("<QI", raw) == (0, size)


def test_descriptor_has_open_vmdks_fields(vmdk: Path) -> None:
    header = SparseHeader.unpack(vmdk.read_bytes()[:SECTOR])
    text = vmdk.read_bytes()[SECTOR : (1 + header.descriptor_size) * SECTOR].rstrip(b"\0").decode()
    descriptor = parse_descriptor(text)
    fields = descriptor.fields
    assert fields["encoding"] == "UTF-8"
    assert fields["createType"] == "streamOptimized" and fields["parentCID"] == "ffffffff"
    assert fields["ddb.longContentID"].endswith(fields["CID"]) and len(fields["ddb.longContentID"]) == 32
    assert fields["ddb.toolsInstallType"] == "4"
    assert fields["ddb.adapterType"] == "lsilogic"
    assert (fields["ddb.geometry.heads"], fields["ddb.geometry.sectors"]) == ("255", "63")
    assert fields["ddb.geometry.cylinders"] == str(cylinders(SIZE // SECTOR))
    assert [(e.access, e.sectors, e.kind, e.file_name) for e in descriptor.extents] == [
        ("RW", SIZE // SECTOR, "SPARSE", vmdk.name)
    ]


@pytest.mark.parametrize(
    ("sectors", "expected"),
    [
        (255 * 63, 1),
        (255 * 63 + 1, 2),  # rounded up, where qemu-img rounds down
        (8 * 1024**3 // SECTOR, 1045),  # the release disk: qemu-img writes 1044
        (65535 * 255 * 63, 65535),
        (65535 * 255 * 63 + 1, 65535),
    ],
)
def test_cylinders_round_up_and_cap(sectors: int, expected: int) -> None:
    assert cylinders(sectors) == expected


def test_content_id_avoids_the_reserved_values() -> None:
    assert content_ids(bytes(12) + b"\xff\xff\xff\xff")[0] == 0xFFFF_FFFD
    assert content_ids(bytes(12) + b"\xff\xff\xff\xfd")[0] == 0xFFFF_FFFD
    cid, long_id = content_ids(bytes(12) + b"\xff\xff\xff\xfe")
    assert (cid, long_id[-8:]) == (0xFFFF_FFFC, "fffffffc")


def test_only_grains_with_data_are_read_and_written(raw: Path, vmdk: Path) -> None:
    fd = os.open(raw, os.O_RDONLY)
    try:
        touched = list(data_grains(fd, SIZE))
    finally:
        os.close(fd)
    assert touched == [0, 1, 600, 1100], "holes are not read"
    layout = check_stream_vmdk(vmdk)
    assert layout.grains == 3, "the grain of written zeros is skipped"
    assert layout.populated_size == 3 * GRAIN_BYTES
    assert layout.capacity == SIZE


def test_same_disk_same_bytes(raw: Path, vmdk: Path, tmp_path: Path) -> None:
    again = tmp_path / vmdk.name
    write_stream_vmdk(raw, again, workers=1)
    assert again.read_bytes() == vmdk.read_bytes()


def test_qemu_img_reads_back_the_source(raw: Path, vmdk: Path, tmp_path: Path) -> None:
    back = tmp_path / "back.raw"
    subprocess.run(
        [_qemu_img(), "convert", "-f", "vmdk", "-O", "raw", str(vmdk), str(back)], check=True, timeout=60
    )
    assert sha256_file(back) == sha256_file(raw)


def test_a_disk_of_holes_has_no_grains(tmp_path: Path) -> None:
    raw = _disk(tmp_path / "empty.raw", 3 * MIB, {})
    out = tmp_path / "empty.vmdk"
    write_stream_vmdk(raw, out)
    layout = check_stream_vmdk(out)
    assert (layout.grains, layout.grain_tables, layout.populated_size) == (0, 0, 0)
    assert [m[3] for m in _walk(out)] == [MARKER_GD, MARKER_FOOTER, MARKER_EOS]


def test_refuses_a_size_that_is_not_whole_sectors(tmp_path: Path) -> None:
    raw = _disk(tmp_path / "odd.raw", MIB + 1, {})
    with pytest.raises(ImageInvalid, match="whole, non-zero number of 512-byte sectors"):
        write_stream_vmdk(raw, tmp_path / "odd.vmdk")


def test_convert_goes_through_raw_for_qcow2(raw: Path, tmp_path: Path) -> None:
    qcow2 = tmp_path / "disk.qcow2"
    subprocess.run(
        [_qemu_img(), "convert", "-f", "raw", "-O", "qcow2", str(raw), str(qcow2)], check=True, timeout=60
    )
    out = tmp_path / "disk.vmdk"
    layout = convert_to_stream_vmdk(qcow2, out, timeout=60)
    assert (layout.capacity, layout.grains) == (SIZE, 3)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".vmdk-")] == [], "scratch removed"


# The check: each rule at its boundary.


def _damaged(vmdk: Path, tmp_path: Path, edit: Callable[[bytearray], object]) -> Path:
    """A copy of ``vmdk`` under its own name with ``edit`` applied to its bytes."""
    data = bytearray(vmdk.read_bytes())
    edit(data)
    out = tmp_path / vmdk.name
    out.write_bytes(bytes(data))
    return out


def _truncated(vmdk: Path, tmp_path: Path, length: int) -> Path:
    """A copy of ``vmdk`` cut to ``length`` bytes (from the end when negative)."""
    return _damaged(vmdk, tmp_path, lambda data: data.__delitem__(slice(length, None)))


def _packed(vmdk: Path, tmp_path: Path, fmt: str, offset: int, value: int) -> Path:
    """A copy of ``vmdk`` with one value packed at byte ``offset`` (from the end when negative)."""
    return _damaged(vmdk, tmp_path, lambda data: struct.pack_into(fmt, data, offset % len(data), value))


def test_check_accepts_what_we_write(vmdk: Path) -> None:
    layout = check_stream_vmdk(vmdk)
    assert (layout.grains, layout.grain_tables, layout.file_size) == (3, 3, vmdk.stat().st_size)


def test_check_refuses_one_byte_changed_in_a_compressed_grain(vmdk: Path, tmp_path: Path) -> None:
    sector, _, size, _ = _walk(vmdk)[0]
    middle = sector * SECTOR + 12 + size // 2
    bad = _packed(vmdk, tmp_path, "<B", middle, vmdk.read_bytes()[middle] ^ 0x01)
    with pytest.raises(
        VmdkInvalid, match=r"grain at sector \d+ \(LBA 0\): compressed data is corrupt|inflates to"
    ):
        check_stream_vmdk(bad)


@pytest.mark.parametrize("cut", [1, SECTOR, 3 * SECTOR, 4 * SECTOR])
def test_check_refuses_a_file_cut_short(vmdk: Path, tmp_path: Path, cut: int) -> None:
    bad = _truncated(vmdk, tmp_path, -cut)
    with pytest.raises(VmdkInvalid, match=r"cut short|end-of-stream|footer"):
        check_stream_vmdk(bad)


def test_check_refuses_grain_data_cut_short(vmdk: Path, tmp_path: Path) -> None:
    sector, _, size, _ = _walk(vmdk)[0]
    bad = _truncated(vmdk, tmp_path, sector * SECTOR + 12 + size - 1)
    with pytest.raises(VmdkInvalid, match=r"cut short: grain at sector \d+ \(LBA 0\)"):
        check_stream_vmdk(bad)


def test_check_refuses_a_byte_after_the_end_of_stream(vmdk: Path, tmp_path: Path) -> None:
    bad = _damaged(vmdk, tmp_path, lambda data: data.append(0))
    with pytest.raises(VmdkInvalid, match="1 bytes after the end-of-stream marker"):
        check_stream_vmdk(bad)


def test_check_refuses_a_grain_table_pointing_elsewhere(vmdk: Path, tmp_path: Path) -> None:
    entry = (_walk(vmdk)[1][0] + 1) * SECTOR
    bad = _packed(vmdk, tmp_path, "<I", entry, 1 + struct.unpack_from("<I", vmdk.read_bytes(), entry)[0])
    with pytest.raises(VmdkInvalid, match=r"grain table 0 .* entry 0 is"):
        check_stream_vmdk(bad)


def test_check_refuses_a_footer_that_is_not_the_header(vmdk: Path, tmp_path: Path) -> None:
    bad = _packed(vmdk, tmp_path, "<Q", -2 * SECTOR + 12, 7)  # the footer's capacity
    with pytest.raises(VmdkInvalid, match=r"footer at sector .* is not the header"):
        check_stream_vmdk(bad)


def test_check_refuses_a_redundant_directory_flag(vmdk: Path, tmp_path: Path) -> None:
    bad = _packed(vmdk, tmp_path, "<I", 8, 0x30003)
    with pytest.raises(VmdkInvalid, match="claim a redundant grain directory"):
        check_stream_vmdk(bad)


def test_check_refuses_a_renamed_file(vmdk: Path, tmp_path: Path) -> None:
    renamed = tmp_path / "other.vmdk"
    renamed.write_bytes(vmdk.read_bytes())
    with pytest.raises(VmdkInvalid, match=f'expected one RW {SIZE // SECTOR} SPARSE "other.vmdk"'):
        check_stream_vmdk(renamed)
    assert check_stream_vmdk(renamed, file_name=vmdk.name).grains == 3


def test_check_refuses_a_marker_of_unknown_kind(vmdk: Path, tmp_path: Path) -> None:
    gd_marker = next(m for m in _walk(vmdk) if m[3] == MARKER_GD and not m[2])[0]
    bad = _packed(vmdk, tmp_path, "<I", gd_marker * SECTOR + 12, 9)
    with pytest.raises(VmdkInvalid, match="unknown marker"):
        check_stream_vmdk(bad)
