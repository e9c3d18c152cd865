"""Pools on zpool output recorded in the lab VM: create with SLOG and L2ARC, errors, scrub, export/import."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.appliance.replay import replay

from appliance.control import pools
from appliance.control.errors import (
    AlreadyExists,
    Conflict,
    DeviceInUse,
    DeviceVanished,
    InvalidName,
    InvalidRequest,
    NotFound,
)
from appliance.control.gateway import Result, translate
from appliance.control.pools import ZfsPoolLayout, ZfsPoolSpec

LUN0, LUN1 = "/dev/disk/by-id/virtio-lun0", "/dev/disk/by-id/virtio-lun1"
SLOG, L2ARC = "/dev/disk/by-id/virtio-ssd-slog", "/dev/disk/by-id/virtio-ssd-l2arc"


def test_create_argv_for_each_layout() -> None:
    spec = ZfsPoolSpec(name="tank", data=[LUN0, LUN1], log=[SLOG], cache=[L2ARC])
    assert pools.create_argv(spec, 12, True) == [
        "zpool", "create", "-o", "ashift=12", "-o", "autotrim=on",
        "-O", "acltype=posix", "-O", "xattr=sa", "-O", "compression=lz4", "-O", "atime=off",
        "tank", LUN0, LUN1, "log", SLOG, "cache", L2ARC,
    ]  # fmt: skip
    mirror = ZfsPoolSpec(
        name="m",
        layout=ZfsPoolLayout.mirror,
        data=["/dev/vdb", "/dev/vdc", "/dev/vdd", "/dev/vde"],
        log=[SLOG, L2ARC],
    )
    assert pools.create_argv(mirror, 12, False)[-11:] == [
        "m", "mirror", "/dev/vdb", "/dev/vdc", "mirror", "/dev/vdd", "/dev/vde", "log", "mirror", SLOG, L2ARC,
    ]  # fmt: skip
    raidz = ZfsPoolSpec(
        name="r",
        layout=ZfsPoolLayout.raidz2,
        data=["/dev/vdb", "/dev/vdc", "/dev/vdd", "/dev/vde"],
        force=True,
    )
    assert pools.create_argv(raidz, 13, False)[-7:] == [
        "-f",
        "r",
        "raidz2",
        "/dev/vdb",
        "/dev/vdc",
        "/dev/vdd",
        "/dev/vde",
    ]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"layout": "raidz1", "data": [LUN0, LUN1]},
        {"layout": "mirror", "data": [LUN0, LUN1, SLOG]},
        {"data": [LUN0], "cache": [LUN0]},
        {"data": [LUN0], "log": [SLOG, L2ARC, LUN1]},
    ],
)
def test_bad_shapes_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises((InvalidRequest, ValueError)):
        ZfsPoolSpec(name="tank", **kwargs)  # type: ignore[arg-type]


def test_bad_names_never_reach_zpool(tmp_path: Path) -> None:
    gw, _, runner = replay("pool", tmp_path)
    with pytest.raises((InvalidName, ValueError)):
        ZfsPoolSpec(name="tank;reboot", data=[LUN0])
    with pytest.raises(InvalidName):
        pools.destroy(gw, "tank$(id)")
    assert runner.calls == []


def test_stripe_with_slog_and_l2arc(tmp_path: Path) -> None:
    gw, _, runner = replay("pool", tmp_path)
    health = pools.create(gw, ZfsPoolSpec(name="tank", data=[LUN0, LUN1], log=[SLOG], cache=[L2ARC]))
    assert runner.calls[1][:6] == ["zpool", "create", "-o", "ashift=12", "-o", "autotrim=on"]
    assert health.state == "ONLINE" and health.healthy
    roles = {v.name: (v.role, v.parent) for v in health.vdevs}
    assert roles == {
        "virtio-lun0": ("data", None),
        "virtio-lun1": ("data", None),
        "virtio-ssd-slog": ("log", None),
        "virtio-ssd-l2arc": ("cache", None),
    }
    assert all(v.path and v.path.endswith("-part1") for v in health.vdevs)


def test_create_errors_are_typed(tmp_path: Path) -> None:
    gw, _, _ = replay("pool", tmp_path)
    pools.create(gw, ZfsPoolSpec(name="tank", data=[LUN0, LUN1], log=[SLOG], cache=[L2ARC]))
    with pytest.raises(DeviceInUse):
        pools.create(gw, ZfsPoolSpec(name="tank2", data=[LUN0]))
    with pytest.raises(AlreadyExists, match="pool already exists"):
        gw.run(["zpool", "create", "tank", "/var/tmp/spare.img"], rules=pools.RULES)
    with pytest.raises(NotFound, match="no such pool"):
        pools.status(gw, "nosuch")


def test_scrub_export_import_destroy(tmp_path: Path) -> None:
    gw, _, _ = replay("pool", tmp_path)
    pools.status(gw, "tank")  # the one right after create
    pools.scrub(gw, "tank")
    after = pools.status(gw, "tank")
    assert after.scan is not None and after.scan["function"] == "SCRUB" and after.scan["state"] == "FINISHED"
    assert after.scan["errors"] == 0
    assert pools.list_names(gw) == ["tank"]
    pools.export(gw, "tank")
    with pytest.raises(NotFound):
        pools.status(gw, "tank")
    assert pools.import_pool(gw, "tank").state == "ONLINE"
    pools.destroy(gw, "tank")


def test_mirror_with_mirrored_slog_raidz_grow_and_replace(tmp_path: Path) -> None:
    gw, _, runner = replay("layouts", tmp_path)
    mirror = pools.create(
        gw, ZfsPoolSpec(name="m", layout=ZfsPoolLayout.mirror, data=[LUN0, LUN1], log=[SLOG, L2ARC])
    )
    groups = {v.name: v for v in mirror.vdevs if v.vdev_type == "mirror"}
    assert {g.role for g in groups.values()} == {"data", "log"}
    assert {v.parent for v in mirror.vdevs if v.vdev_type == "disk"} == set(groups)
    pools.destroy(gw, "m")
    raidz = pools.create(gw, ZfsPoolSpec(name="r", layout=ZfsPoolLayout.raidz1, data=[LUN0, LUN1, SLOG]))
    assert raidz.vdevs[0].vdev_type == "raidz"
    pools.destroy(gw, "r")
    pools.create(gw, ZfsPoolSpec(name="s", data=[LUN0]))
    grown = pools.add(gw, "s", [LUN1])
    assert [v.name for v in grown.vdevs] == ["virtio-lun0", "virtio-lun1"]
    replaced = pools.replace(gw, "s", LUN1, SLOG)
    assert "virtio-ssd-slog" in {v.name for v in replaced.vdevs}
    assert ["zpool", "replace", "s", LUN1, SLOG] in runner.calls


def test_scrub_while_a_scan_runs_is_a_conflict() -> None:
    # zpool's answer in the lab (make reliability) right after a clear resumed a suspended stripe pool
    said = Result(("zpool", "scrub", "spool"), 1, "", "cannot scrub spool: currently resilvering\n")
    err = translate(said, pools.SCRUB_RULES)
    assert isinstance(err, Conflict) and str(err) == "cannot scrub spool: currently resilvering"


def test_a_create_that_loses_a_device_link_is_not_a_missing_pool() -> None:
    # zpool's answer in CI (reliability smoke, stop 35): ENOENT from the create ioctl. To an admin a 404
    # "no such pool" for a pool they are creating says nothing; this names the device and what to do.
    said = Result(("zpool", "create", "tank"), 1, "", "cannot create 'tank': no such pool or dataset\n")
    err = translate(said, pools.LABEL_RULES)
    assert isinstance(err, DeviceVanished) and str(err).startswith("cannot create 'tank': no such pool")
    assert "try again with force" in str(err)
    assert isinstance(translate(said, pools.RULES), NotFound)  # elsewhere the same words mean no pool
    # ENXIO, the same race met a partition node an instant before udev re-made it (make test's bench smoke)
    said = Result(
        ("zpool", "create", "tank"),
        1,
        "",
        "cannot create 'tank': one or more devices is currently unavailable\n",
    )
    assert isinstance(translate(said, pools.LABEL_RULES), DeviceVanished)
    # make reliability (session 42): a spare replacing a failed mirror side, ENOENT on its new partition
    line = "cannot replace /dev/disk/by-id/virtio-lun0-part1 with /dev/disk/by-id/virtio-lun2: no such pool or dataset"
    said = Result(("zpool", "replace", "-f", "mpool"), 1, "", line + "\n")
    assert isinstance(translate(said, pools.LABEL_RULES), DeviceVanished)
    said = Result(
        ("zpool", "add"), 1, "", "cannot add to 'tank': one or more devices is currently unavailable\n"
    )
    assert isinstance(translate(said, pools.LABEL_RULES), DeviceVanished)
    # add and replace open the pool first: a missing pool stays a 404
    said = Result(("zpool", "replace", "nosuch"), 1, "", "cannot open 'nosuch': no such pool\n")
    assert isinstance(translate(said, pools.LABEL_RULES), NotFound)


def test_a_create_that_loses_the_race_with_udev_is_made_on_its_retry(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Recorded in the lab VM while udev worked through every block device's add event: the module's open
    # of a new partition failed, zpool exited 1; after udevadm settle the same create, forced, made it.
    gw, _, runner = replay("pool_race", tmp_path)
    health = pools.create(gw, ZfsPoolSpec(name="tank", data=[LUN0], log=[SLOG], cache=[L2ARC]))
    assert health.state == "ONLINE"
    creates = [c for c in runner.calls if c[:2] == ["zpool", "create"]]
    assert (
        len(creates) == 2
        and "-f" not in creates[0]
        and creates[1] == [*creates[0][:-6], "-f", *creates[0][-6:]]
    )
    settle = runner.calls.index(["udevadm", "settle", f"--timeout={pools.SETTLE_TIMEOUT}"])
    assert runner.calls.index(creates[0]) < settle < runner.calls.index(creates[1])
    assert [r.getMessage() for r in caplog.records] == [
        "cannot create 'tank': one or more devices is currently unavailable: retrying once, forced,"
        " when udev is idle"
    ]


def test_each_pool_is_listed_with_its_guid(tmp_path: Path) -> None:
    """The GUID zpool list gives (a number with --json-int) is kept in decimal: it tells a pool from any
    other of its name, where a backup's restore imports by it."""
    gw, _, runner = replay("api_exports", tmp_path)
    runner.pending = [
        c for c in runner.pending if c["argv"][:2] == ["zpool", "list"] and "tank" in c["stdout"]
    ]
    [tank] = pools.space(gw)
    assert tank.name == "tank" and tank.guid == "18328816075162305721" and tank.size > 0


@pytest.mark.parametrize(
    ("raw", "guid"),
    [
        (18328816075162305721, "18328816075162305721"),
        ("42", "42"),
        (None, None),
        ("-", None),
        (True, None),
        (1.5, None),
    ],
)
def test_a_guid_zpool_cannot_give_is_none(raw: object, guid: str | None) -> None:
    assert pools._guid(raw) == guid
