"""Metrics and module parameters on outputs recorded in the lab VM (arcstats, zpool iostat, sysfs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.appliance.replay import replay

from appliance.control import metrics, modparams
from appliance.control.errors import BadOutput, InvalidName, NotFound
from appliance.control.files import LocalFiles


def test_arcstats_from_the_kernel(tmp_path: Path) -> None:
    _, files, _ = replay("metrics", tmp_path)
    arc = metrics.arc(files)
    assert arc.size > 0 and arc.max >= arc.target > 0
    assert 0 <= arc.hit_ratio <= 1 and arc.hits == arc.raw["hits"]
    assert {"l2_size", "l2_hits", "l2_write_bytes", "demand_data_hits"} <= set(arc.raw)


def test_arcstats_garbage_is_bad_output() -> None:
    with pytest.raises(BadOutput):
        metrics.parse_arcstats("13 1 0x01\nname type data\n")


def test_iostat_per_vdev_with_latency(tmp_path: Path) -> None:
    gw, _, _ = replay("pool", tmp_path)
    rows = {r.name: r for r in metrics.iostat(gw, "tank")}
    assert set(rows) == {"tank", "virtio-lun0", "virtio-lun1", "virtio-ssd-slog", "virtio-ssd-l2arc"}
    assert rows["tank"].write_bytes > 0
    assert rows["virtio-lun0"].total_wait_w_ns is not None and rows["virtio-lun0"].total_wait_w_ns > 0
    assert rows["virtio-ssd-slog"].read_ops == 0


def test_iostat_over_an_interval(tmp_path: Path) -> None:
    gw, _, runner = replay("metrics", tmp_path)
    rows = metrics.iostat(gw, "tank", interval=1)
    assert rows[0].name == "tank"
    assert runner.calls[-1][-4:] == ["-y", "tank", "1", "1"]
    with pytest.raises(ValueError):
        metrics.iostat(gw, "tank", interval=0)


def test_module_parameters_applied_once_and_persisted(tmp_path: Path) -> None:
    _, files, _ = replay("metrics", tmp_path)
    files.write(f"{modparams.SYSFS}/zfs_vdev_open_timeout_ms", "10000\n")  # as the api held it at start
    wanted = {"zfs_arc_max": 2 << 30, "l2arc_noprefetch": 0, "zfs_txg_timeout": 5}
    first = modparams.hold(files, wanted)
    live = [(name, new) for name, _, new in first.live]
    assert live == [("l2arc_noprefetch", 0), ("zfs_arc_max", 2 << 30)]  # txg timeout was 5 already
    assert modparams.MODPROBE in first.files
    assert files.read(modparams.MODPROBE) == modparams.render(wanted)
    assert "options zfs l2arc_noprefetch=0 zfs_arc_max=2147483648 zfs_txg_timeout=5" in modparams.render(
        wanted
    )
    second = modparams.hold(files, wanted)
    assert second.live == [] and second.files == []


def test_module_parameter_names_are_checked(tmp_path: Path) -> None:
    files = LocalFiles(tmp_path)
    with pytest.raises(InvalidName):
        modparams.hold(files, {"../../../etc/passwd": 1})
    with pytest.raises(NotFound):
        modparams.hold(files, {"zfs_no_such_knob": 1})
