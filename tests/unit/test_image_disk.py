"""The disk disk.sh lays out, on a small fake root tree: the GPT partitions (read back by sfdisk --json),
GRUB's BIOS images pointed at the BIOS boot partition, the ESP carrying the tree's /boot/efi under the
volume id its fstab names, and the root file system without the ESP's files. Real sfdisk, mkfs.ext4,
mkfs.vfat and mtools on files; no loop device, no mount, no root."""

from __future__ import annotations

import json
import shutil
import struct
import uuid
from pathlib import Path
from typing import Any

import pytest

from appliance.image.disk import HERE
from process import Completed, run

TOOLS = ("sfdisk", "mkfs.ext4", "debugfs", "e2fsck", "mkfs.vfat", "fsck.vfat", "mcopy", "mtype")
pytestmark = pytest.mark.skipif(
    any(shutil.which(t) is None for t in TOOLS), reason=f"needs {TOOLS} (make apt)"
)

ROOT_UUID = "72d53155-3a82-5dcd-b822-a1f6f3cb36f2"
SIZE_MIB = 400
MIB = 1 << 20
BIOS_BOOT = "21686148-6449-6E6F-744E-656564454649"
ESP = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"
LINUX = "0FC63DAF-8483-4772-8E79-3D69D8477DE4"
EFI_IMAGE = b"MZ stands in for GRUB's EFI image"


def fake_tree(root: Path, fstab_esp: str = "UUID=72D5-3155") -> Path:
    """A root tree with what disk.sh reads: GRUB's BIOS images as grub-mkimage leaves them (next
    sectors 1 and 2), the ESP's files under /boot/efi, and an fstab naming the ESP."""
    boot = root / "boot" / "grub" / "i386-pc"
    boot.mkdir(parents=True)
    boot_img = bytearray(512)
    boot_img[0x5C:0x64] = struct.pack("<Q", 1)
    (boot / "boot.img").write_bytes(bytes(boot_img))
    core = bytearray(b"\xcc" * 512 * 40)
    core[500:508] = struct.pack("<Q", 2)
    (boot / "core.img").write_bytes(bytes(core))
    for efi in ("EFI/BOOT/BOOTX64.EFI", "EFI/debian/grubx64.efi"):
        (root / "boot" / "efi" / efi).parent.mkdir(parents=True, exist_ok=True)
        (root / "boot" / "efi" / efi).write_bytes(EFI_IMAGE)
    (root / "etc").mkdir()
    (root / "etc" / "fstab").write_text(
        f"UUID={ROOT_UUID}\t/\text4\terrors=remount-ro\t0\t1\n{fstab_esp}\t/boot/efi\tvfat\tumask=0077\t0\t2\n",
        encoding="utf-8",
    )
    return root


def lay(tmp_path: Path, root: Path) -> tuple[Completed, Path]:
    out = tmp_path / "disk.raw"
    argv = [str(HERE / "disk.sh"), str(root), str(out), str(SIZE_MIB), ROOT_UUID]
    return run(argv, timeout=300, check=False), out


def partition_table(raw: Path) -> dict[str, Any]:
    table: dict[str, Any] = json.loads(run(["sfdisk", "--json", str(raw)], timeout=60).stdout)[
        "partitiontable"
    ]
    return table


@pytest.fixture(scope="module")
def disk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("disk")
    done, out = lay(tmp_path, fake_tree(tmp_path / "rootfs"))
    assert done.exit_code == 0, done.stderr
    return out


def u64(data: bytes, offset: int) -> int:
    return int(struct.unpack_from("<Q", data, offset)[0])


def test_the_partition_table_is_gpt_with_bios_boot_esp_and_root(disk: Path) -> None:
    table = partition_table(disk)
    assert table["label"] == "gpt" and table["sectorsize"] == 512
    layout = [(p["start"], p["size"], p["type"], p["name"]) for p in table["partitions"]]
    assert layout == [
        (2048, 2048, BIOS_BOOT, "BIOS boot"),  # 1 MiB at 1 MiB
        (4096, 126 * 2048, ESP, "EFI System"),  # 126 MiB at 2 MiB
        (128 * 2048, (SIZE_MIB - 129) * 2048, LINUX, "arcvsa-root"),  # the rest but the last MiB
    ]
    ids = [table["id"], *(p["uuid"] for p in table["partitions"])]
    assert len(set(ids)) == 4 and all(uuid.UUID(i) for i in ids)


def test_the_same_tree_gives_the_same_identifiers(disk: Path, tmp_path: Path) -> None:
    again, out = lay(tmp_path, fake_tree(tmp_path / "rootfs"))
    assert again.exit_code == 0, again.stderr

    def ids(raw: Path) -> list[str]:
        table = partition_table(raw)
        return [table["id"], *(p["uuid"] for p in table["partitions"])]

    assert ids(out) == ids(disk)


def test_bios_boot_img_and_core_img_point_at_the_bios_boot_partition(disk: Path) -> None:
    with disk.open("rb") as raw:
        mbr = raw.read(512)
        raw.seek(2048 * 512)
        core = raw.read(40 * 512)
    assert u64(mbr, 0x5C) == 2048  # boot.img reads core.img's first sector from there
    assert u64(core, 500) == 2049  # which reads the rest from the next sector on
    assert core[512:] == b"\xcc" * 512 * 39
    assert mbr[446] == 0x80 and mbr[450] == 0xEE  # the protective MBR's entry, active
    assert mbr[510:512] == b"\x55\xaa"


def test_the_esp_holds_the_trees_efi_files_under_the_fstab_volume_id(disk: Path) -> None:
    image = f"{disk}@@{2 * MIB}"
    for efi in ("::/EFI/BOOT/BOOTX64.EFI", "::/EFI/debian/grubx64.efi"):
        copied = run(["mtype", "-i", image, efi], timeout=60, env={"MTOOLS_SKIP_CHECK": "1"})
        assert copied.stdout.encode() == EFI_IMAGE
    with disk.open("rb") as raw:
        raw.seek(2 * MIB)
        boot_sector = raw.read(512)
    assert boot_sector[0x52:0x5A] == b"FAT32   "
    assert struct.unpack_from("<I", boot_sector, 0x43)[0] == 0x72D53155  # fstab's UUID=72D5-3155


def test_the_root_file_system_keeps_boot_efi_as_an_empty_mount_point(disk: Path) -> None:
    part = f"{disk}?offset={128 * MIB}"
    listing = run(["debugfs", "-R", "ls -p /boot/efi", part], timeout=60).stdout
    names = {line.split("/")[5] for line in listing.splitlines() if line.count("/") >= 6}
    assert names == {".", ".."}, listing
    fstab = run(["debugfs", "-R", "cat /etc/fstab", part], timeout=60).stdout
    assert "/boot/efi" in fstab


def test_a_tree_without_an_esp_in_its_fstab_is_refused(tmp_path: Path) -> None:
    done, out = lay(tmp_path, fake_tree(tmp_path / "rootfs", fstab_esp="/dev/sda2"))
    assert done.exit_code != 0 and "mounts no ESP" in done.stderr
    assert not out.exists()


def test_a_core_img_laid_out_otherwise_is_refused(tmp_path: Path) -> None:
    root = fake_tree(tmp_path / "rootfs")
    core = root / "boot" / "grub" / "i386-pc" / "core.img"
    data = bytearray(core.read_bytes())
    data[500:508] = struct.pack("<Q", 7)
    core.write_bytes(bytes(data))
    done, _ = lay(tmp_path, root)
    assert done.exit_code != 0 and "not laid out as this script expects" in done.stderr
