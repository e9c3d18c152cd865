"""Disks free again (appliance.control.labels) on the api_wipe recording (OpenZFS 2.3.9 in the lab VM):
a destroy that clears its disks' labels, wipes refused for a disk of an imported pool, the system's and an
unknown one, a wipe of an exported pool's disk, and pools made on the freed disks without force.

The recording is the api's flow (fixtures.appliance.api_flows.API_WIPE); these call the control package in
the same order, so each command meets its recorded answer: the api's start observes every part of the
appliance, and each change then refreshes the parts it touched (api.state), which is what the Disks and
Pools pages read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.appliance.replay import ReplayRunner, replay

from api.state.deps import IMPORT_PARTS, POOL_PARTS
from appliance.control import disks, labels, pools
from appliance.control.errors import DeviceInUse, InvalidName, NotFound, Refused
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.nfs.backends import Backend
from appliance.control.observed import EVERY_PART, Part, observe
from appliance.control.pools import ZfsPoolHealth

LUN0, LUN1 = "/dev/disk/by-id/virtio-lun0", "/dev/disk/by-id/virtio-lun1"
SLOG, L2ARC = "/dev/disk/by-id/virtio-ssd-slog", "/dev/disk/by-id/virtio-ssd-l2arc"
TANK = pools.ZfsPoolSpec(name="tank", data=[LUN0, LUN1], log=[SLOG], cache=[L2ARC])


def _pages(
    gw: Gateway, files: Files, parts: tuple[Part, ...]
) -> tuple[list[disks.Disk], list[ZfsPoolHealth]]:
    """What the Disks and Pools pages show after a change: the parts it refreshed."""
    seen = observe(gw, files, parts)
    return seen.part(Part.disks, seen.disks), seen.part(Part.pools, seen.pools)


def _to_the_refusals(tmp_path: Path) -> tuple[Gateway, Files, ReplayRunner, list[disks.Disk]]:
    gw, files, runner = replay("api_wipe", tmp_path)
    observe(gw, files, EVERY_PART, services=(Backend.ganesha,))  # the api's start (ganesha chosen)
    pools.create(gw, TANK)
    found, _ = _pages(gw, files, POOL_PARTS)
    return gw, files, runner, found


def _by_path(found: list[disks.Disk]) -> dict[str, disks.Disk]:
    return {d.path: d for d in found}


def test_a_disk_of_an_imported_pool_the_system_disk_and_an_unknown_one_are_never_wiped(
    tmp_path: Path,
) -> None:
    gw, _, runner, _ = _to_the_refusals(tmp_path)
    ran = len(runner.calls)
    with pytest.raises(DeviceInUse, match="imported pool tank"):
        labels.wipe(gw, LUN0)
    with pytest.raises(Refused, match="running system"):
        labels.wipe(gw, "/dev/vda")
    with pytest.raises(NotFound, match="no such disk"):
        labels.wipe(gw, "/dev/disk/by-id/virtio-nosuch")
    changed = [c for c in runner.calls[ran:] if c[0] in ("wipefs", "udevadm") or c[1:2] == ["labelclear"]]
    assert changed == [], "a refused wipe ran nothing that writes"


def test_destroy_frees_every_disk_of_the_pool(tmp_path: Path) -> None:
    gw, files, runner, found = _to_the_refusals(tmp_path)
    for path in (LUN0, "/dev/vda", "/dev/disk/by-id/virtio-nosuch"):
        with pytest.raises((DeviceInUse, Refused, NotFound)):
            labels.wipe(gw, path)
    before = _by_path(found)
    assert all(before[p].in_use for p in (LUN0, LUN1, SLOG, L2ARC))
    # whether blkid sees a SLOG's label depends on udev's probe (one recording did not): destroy takes zpool's
    # own leaves, so every disk below is cleared either way
    ran = len(runner.calls)
    freed = labels.destroy_and_free(gw, "tank")
    assert sorted(d.path for d in freed) == sorted([LUN0, LUN1, SLOG, L2ARC])
    assert all(d.in_use is None and d.zfs_labels == [] for d in freed)
    done = runner.calls[ran:]
    at = done.index(["zpool", "destroy", "tank"])
    # each of zpool's leaves, SLOG included, then that disk's partition table; then udev settles
    assert done[at + 1 : at + 10] == [
        *(
            step
            for disk in (LUN0, LUN1, SLOG, L2ARC)
            for step in (["zpool", "labelclear", "-f", f"{disk}-part1"], ["wipefs", "-a", disk])
        ),
        labels.SETTLE,
    ]
    found, imported = _pages(gw, files, POOL_PARTS)
    assert imported == [] and all(d.in_use is None for d in found if not d.system)
    pools.create(gw, pools.ZfsPoolSpec(name="old", data=[LUN0]))  # no force needed


def test_an_exported_pools_disk_is_wiped_and_then_free(tmp_path: Path) -> None:
    gw, files, _, _ = _to_the_refusals(tmp_path)
    for path in (LUN0, "/dev/vda", "/dev/disk/by-id/virtio-nosuch"):
        with pytest.raises((DeviceInUse, Refused, NotFound)):
            labels.wipe(gw, path)
    labels.destroy_and_free(gw, "tank")
    _pages(gw, files, POOL_PARTS)
    pools.create(gw, pools.ZfsPoolSpec(name="old", data=[LUN0]))
    _pages(gw, files, POOL_PARTS)
    pools.export(gw, "old")
    found, imported = _pages(gw, files, IMPORT_PARTS)
    old = _by_path(found)[LUN0]
    assert imported == [] and old.in_use and "zfs_member" in old.in_use
    assert old.zfs_labels == [f"{LUN0}-part1"]
    wiped = labels.wipe(gw, LUN0)
    assert wiped.path == LUN0 and wiped.in_use is None and wiped.zfs_labels == []


@pytest.mark.parametrize("bad", list(";|&$`'\" \n\t<>(){}[]*?!#~\\%^=,"))
def test_a_hostile_disk_name_is_refused_before_any_tool(tmp_path: Path, bad: str) -> None:
    gw, _, runner = replay("api_wipe", tmp_path)
    with pytest.raises(InvalidName):
        labels.wipe(gw, f"/dev/disk/by-id/virtio-lun{bad}0")
    assert runner.calls == []


def test_a_path_outside_dev_is_refused_before_any_tool(tmp_path: Path) -> None:
    gw, _, runner = replay("api_wipe", tmp_path)
    for path in ("/etc/passwd", "/dev/disk/by-id/../../sda", "dev/vdb", "/dev/vdb/", "-a"):
        with pytest.raises(InvalidName):
            labels.wipe(gw, path)
    assert runner.calls == []
