"""Disk discovery on lsblk output recorded in the lab VM (OpenZFS 2.3.9, Debian 13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures.appliance.replay import load, replay

from appliance.control import disks
from appliance.control.errors import BadOutput, DeviceInUse, InvalidName, NotFound, Refused

LUN0 = "/dev/disk/by-id/virtio-lun0"


def test_blank_lab_disks_are_found_by_stable_id(tmp_path: Path) -> None:
    gw, _, _ = replay("disks", tmp_path)
    found = {d.serial: d for d in disks.inventory(gw)}
    assert set(found) == {"os", "lun0", "lun1", "ssd-slog", "ssd-l2arc"}
    lun = found["lun0"]
    assert lun.path == LUN0 and lun.kernel_path.startswith("/dev/vd")
    assert lun.size_bytes == 2 << 30
    assert lun.in_use is None and lun.trim and lun.physical_sector == 512
    assert lun.rotational  # qemu's virtio disks claim to spin, SSDs included: roles are chosen, not guessed
    assert found["os"].system and found["os"].in_use


def test_a_pool_member_is_in_use_and_refused(tmp_path: Path) -> None:
    gw, _, _ = replay("disks", tmp_path)
    disks.inventory(gw)  # blank
    gw.run(["zpool", "create", "busy", LUN0])
    busy = {d.serial: d for d in disks.inventory(gw)}["lun0"]
    assert busy.in_use is not None and "zfs_member" in busy.in_use
    with pytest.raises(DeviceInUse):
        disks.resolve(gw, [LUN0])


def test_forced_use_still_never_takes_the_system_disk(tmp_path: Path) -> None:
    gw, _, _ = replay("disks", tmp_path)
    with pytest.raises(Refused):
        disks.resolve(gw, ["/dev/disk/by-id/virtio-os"], force=True)


def test_unknown_and_invalid_devices(tmp_path: Path) -> None:
    gw, _, runner = replay("disks", tmp_path)
    with pytest.raises(InvalidName):
        disks.resolve(gw, ["/dev/vdb;reboot"])
    assert runner.calls == []  # refused before any tool ran
    with pytest.raises(NotFound):
        disks.resolve(gw, ["/dev/disk/by-id/virtio-nosuch"])


def test_listing_a_disk_twice_is_refused(tmp_path: Path) -> None:
    gw, _, _ = replay("disks", tmp_path)
    with pytest.raises(DeviceInUse):
        disks.resolve(gw, [LUN0, "/dev/vdb"])


def test_garbage_is_bad_output() -> None:
    with pytest.raises(BadOutput):
        disks.parse("not json")
    assert load("disks")["versions"]["zfs"].startswith("{")
    assert json.loads(load("disks")["versions"]["zfs"])["zfs_version"]["kernel"].startswith("zfs-kmod-2.3")
