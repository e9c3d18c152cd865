"""The OVA's VMDK read back to raw by two readers we did not write, qemu-img and libyal's libvmdk,
with the SHA-256 of the disk the OVA was packed from; and a VMDK with a changed byte in a compressed
grain, or cut short, refused by both and by our own check."""

from __future__ import annotations

import hashlib
import shutil
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import pyvmdk
from support.ova import MIB, OvaUnderTest, extract, sha256_file

from ovf.envelope import parse_envelope
from ovf.errors import VmdkInvalid
from ovf.namespaces import OVF, q
from ovf.vmdk_check import check_stream_vmdk

pytestmark = pytest.mark.integration

SECTOR = 512


def qemu_img_sha256(vmdk: Path, scratch: Path) -> str:
    """qemu-img's reading of `vmdk` as raw; CalledProcessError when it refuses the file."""
    raw = scratch / f"{vmdk.name}.qemu.raw"
    argv = ["qemu-img", "convert", "-f", "vmdk", "-O", "raw", str(vmdk), str(raw)]
    subprocess.run(argv, check=True, timeout=600, capture_output=True, text=True)
    try:
        return sha256_file(raw)
    finally:
        raw.unlink()


def libvmdk_read(vmdk: Path) -> tuple[int, str]:
    """libvmdk's media size and the SHA-256 of everything it reads; OSError when it refuses the file."""
    handle = pyvmdk.handle()
    handle.open(str(vmdk))
    try:
        handle.open_extent_data_files()
        size = left = handle.get_media_size()
        digest = hashlib.sha256()
        while left:
            chunk = handle.read_buffer(min(left, 4 * MIB))
            if not chunk:
                raise OSError(f"libvmdk read nothing with {left} bytes to go")
            digest.update(chunk)
            left -= len(chunk)
        return size, digest.hexdigest()
    finally:
        handle.close()


def _capacity(extracted: Path) -> int:
    (descriptor,) = extracted.glob("*.ovf")
    disk = parse_envelope(descriptor.read_bytes()).find(f"{q(OVF, 'DiskSection')}/{q(OVF, 'Disk')}")
    assert disk is not None
    return int(disk.get(q(OVF, "capacity"), "0"))


def test_qemu_img_reads_the_source_disk_back(vmdk: Path, source_sha256: str, tmp_path: Path) -> None:
    sha = qemu_img_sha256(vmdk, tmp_path)
    print(f"\nsource disk {source_sha256}\nqemu-img    {sha}")
    assert sha == source_sha256


def test_libvmdk_reads_the_source_disk_back(vmdk: Path, source_sha256: str, extracted: Path) -> None:
    size, sha = libvmdk_read(vmdk)
    print(f"\nsource disk {source_sha256}\nlibvmdk     {sha} ({size} bytes)")
    assert size == _capacity(extracted), "libvmdk's media size is the OVF's capacity"
    assert sha == source_sha256


def test_our_check_agrees_with_the_descriptor(vmdk: Path, extracted: Path, under_test: OvaUnderTest) -> None:
    layout = check_stream_vmdk(vmdk)
    print(
        f"\n{vmdk.name}: {vmdk.stat().st_size} bytes, header flags {layout.header.flags:#x}, "
        f"{layout.grains} grains of 64 KiB in {layout.grain_tables} grain tables, "
        f"grain directory at sector {layout.gd_offset}, footer and end-of-stream in the last 3 sectors; "
        f"OVA {under_test.ova.stat().st_size} bytes"
    )
    assert layout.header.flags == 0x30001
    assert layout.capacity == _capacity(extracted)


# Changed copies of a small VMDK: every reader must refuse them.


def _first_grain(vmdk: Path) -> tuple[int, int]:
    """(byte offset, compressed size) of the first grain, from the header and its marker alone."""
    data = vmdk.read_bytes()
    overhead = struct.unpack_from("<Q", data, 4 + 4 + 4 + 8 * 4 + 4 + 8 + 8)[0]
    _lba, size = struct.unpack_from("<QI", data, overhead * SECTOR)
    assert size > 0, "the first thing after the overhead is a grain"
    return overhead * SECTOR, size


def _flip_grain_byte(vmdk: Path) -> None:
    offset, size = _first_grain(vmdk)
    data = bytearray(vmdk.read_bytes())
    data[offset + 12 + size // 2] ^= 0x01
    vmdk.write_bytes(bytes(data))


def _cut_grain_short(vmdk: Path) -> None:
    offset, size = _first_grain(vmdk)
    vmdk.write_bytes(vmdk.read_bytes()[: offset + 12 + size // 2])


def _cut_last_sector(vmdk: Path) -> None:
    vmdk.write_bytes(vmdk.read_bytes()[:-SECTOR])


DAMAGE: dict[str, Callable[[Path], None]] = {
    "byte changed in a compressed grain": _flip_grain_byte,
    "cut short inside a grain": _cut_grain_short,
    "end-of-stream marker cut off": _cut_last_sector,
}


@pytest.fixture(params=list(DAMAGE))
def damaged(request: pytest.FixtureRequest, small: OvaUnderTest, tmp_path: Path) -> Path:
    (vmdk,) = extract(small.ova, tmp_path / "ova").glob("*.vmdk")
    assert check_stream_vmdk(vmdk).grains > 0, "the copy is sound before it is damaged"
    DAMAGE[request.param](vmdk)
    print(f"\n{request.param}: {vmdk.stat().st_size} bytes")
    return vmdk


def test_qemu_img_refuses_a_damaged_vmdk(damaged: Path, tmp_path: Path) -> None:
    with pytest.raises(subprocess.CalledProcessError) as caught:
        qemu_img_sha256(damaged, tmp_path)
    print(f"qemu-img: {caught.value.stderr.strip()}")


def test_libvmdk_refuses_a_damaged_vmdk(damaged: Path) -> None:
    with pytest.raises(OSError) as caught:
        libvmdk_read(damaged)
    print(f"libvmdk: {str(caught.value).splitlines()[0]}")


def test_our_check_refuses_a_damaged_vmdk(damaged: Path) -> None:
    with pytest.raises(VmdkInvalid) as caught:
        check_stream_vmdk(damaged)
    print(f"ovf.vmdk_check: {caught.value}")


def test_the_readers_are_installed() -> None:
    assert shutil.which("qemu-img"), "make ova-setup installs qemu-utils"
    assert pyvmdk.get_version(), "make setup installs libvmdk-python"
