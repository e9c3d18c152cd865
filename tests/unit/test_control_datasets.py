"""Datasets on zfs output recorded in the lab VM: profile applied, properties, snapshots, clones, zvols."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.appliance.replay import replay
from zfs_tuning import profiles

from appliance.control import datasets
from appliance.control.errors import AlreadyExists, InvalidName, InvalidRequest, NotFound, Refused


def test_profile_is_applied_and_read_back(tmp_path: Path) -> None:
    gw, _, runner = replay("pool", tmp_path)
    ds = datasets.create_for_profile(gw, "tank/vdi", profiles.load("stateless-linked"))
    create = next(c for c in runner.calls if c[:2] == ["zfs", "create"])
    assert "sync=standard" in create and "recordsize=16K" in create and "acltype=posix" in create
    assert ds.type == "FILESYSTEM" and ds.mountpoint == "/tank/vdi"
    assert ds.properties["recordsize"] == 16384  # --json-int gives numbers for sizes
    assert ds.properties["compression"] == "lz4" and ds.properties["sync"] == "standard"
    assert {"compression", "recordsize", "atime", "logbias", "sync"} <= set(ds.local)


def test_existing_and_missing_datasets(tmp_path: Path) -> None:
    gw, _, _ = replay("pool", tmp_path)
    profile = profiles.load("stateless-linked")
    datasets.create_for_profile(gw, "tank/vdi", profile)
    with pytest.raises(AlreadyExists):
        datasets.create_for_profile(gw, "tank/vdi", profile)
    with pytest.raises(NotFound, match="does not exist"):
        datasets.get(gw, "tank/nosuch")


def test_sync_disabled_is_refused_before_any_command(tmp_path: Path) -> None:
    gw, _, runner = replay("pool", tmp_path)
    with pytest.raises(Refused, match="never"):
        datasets.set_properties(gw, "tank/vdi", {"sync": "disabled"})
    with pytest.raises(Refused):
        datasets.create_for_profile(gw, "tank/x", profiles.load("generic"), {"sync": "DISABLED"})
    with pytest.raises(InvalidRequest):
        datasets.set_properties(gw, "tank/vdi", {"mountpoint": "/etc"})
    with pytest.raises(InvalidName):
        datasets.create(gw, "tank/a;b", {})
    assert runner.calls == []


def test_real_data_compresses(tmp_path: Path) -> None:
    gw, _, _ = replay("pool", tmp_path)
    assert datasets.compressratio(gw, "tank/vdi") == pytest.approx(1.39)  # /usr/bin, lz4, 16K records


def test_set_properties_snapshot_and_clone(tmp_path: Path) -> None:
    gw, _, _ = replay("pool", tmp_path)
    datasets.get(gw, "tank/vdi")  # the read right after create
    changed = datasets.set_properties(gw, "tank/vdi", {"quota": "1G", "compression": "zstd"})
    assert changed.properties["quota"] == 1 << 30 and changed.properties["compression"] == "zstd"
    snap = datasets.snapshot(gw, "tank/vdi@golden")
    assert snap.type == "SNAPSHOT"
    clone = datasets.clone(gw, "tank/vdi@golden", "tank/desktop1", {"compression": "lz4"})
    assert clone.origin == "tank/vdi@golden" and clone.used < snap.referenced
    datasets.destroy(gw, "tank/desktop1")


def test_zvol_and_listing(tmp_path: Path) -> None:
    gw, _, _ = replay("pool", tmp_path)
    vol = datasets.create_volume(gw, "tank/lun1", 256 << 20)
    assert vol.type == "VOLUME"
    with pytest.raises(InvalidRequest):
        datasets.create_volume(gw, "tank/odd", 1000)
    listed = {d.name: d.type for d in datasets.list_all(gw, "tank")}
    assert listed["tank/lun1"] == "VOLUME" and listed["tank/desktop1"] == "FILESYSTEM"


def test_dedup_comes_with_a_memory_warning() -> None:
    props = datasets.check_properties({"dedup": "on", "recordsize": "16K"})
    warning = datasets.dedup_warning(props, 100 << 30)
    assert warning is not None and "2.0 GiB" in warning
    assert datasets.dedup_warning(datasets.check_properties({"dedup": "off"}), 1 << 40) is None
