"""Pools to import on zpool import's report recorded in the lab VM (the imports scenario): a mirror whose
second LUN was wiped after its export is listed DEGRADED with zpool's status and action, its vdev tree and
its id; it is imported by that id under a new name; then none is left. Ids and new names are checked
before any command runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.appliance.replay import replay

from appliance.control import imports, pools
from appliance.control.errors import InvalidName, NotFound
from appliance.control.pools import ZfsPoolLayout, ZfsPoolSpec

LUN0, LUN1 = "/dev/disk/by-id/virtio-lun0", "/dev/disk/by-id/virtio-lun1"
SLOG, L2ARC = "/dev/disk/by-id/virtio-ssd-slog", "/dev/disk/by-id/virtio-ssd-l2arc"


def test_a_degraded_mirror_is_listed_and_imported_by_id_under_a_new_name(tmp_path: Path) -> None:
    gw, _, runner = replay("imports", tmp_path)
    pools.create(
        gw, ZfsPoolSpec(name="m", layout=ZfsPoolLayout.mirror, data=[LUN0, LUN1], log=[SLOG], cache=[L2ARC])
    )
    pools.export(gw, "m")
    [found] = imports.importable(gw)
    assert found.name == "m" and found.state == "DEGRADED"
    assert imports.pool_id(found.id) == found.id
    assert found.status == "One or more devices contains corrupted data."
    # zpool wraps its action over two lines: read back as one sentence
    assert found.action == (
        "The pool can be imported despite missing or damaged devices.  The "
        "fault tolerance of the pool may be compromised if imported."
    )
    tree = [(d.name, d.role, d.depth) for d in found.devices]
    assert tree[0] == ("mirror-0", "data", 0)
    assert ("virtio-lun0", "data", 1) in tree
    assert [d for d in tree if d[1] == "log"] == [("virtio-ssd-slog", "log", 0)]
    assert [d[:2] for d in tree if d[1] == "cache"] == [("virtio-ssd-l2arc", "cache")]
    states = {d.name: (d.state, d.note) for d in found.devices}
    assert states["mirror-0"] == ("DEGRADED", None) and states["virtio-lun0"] == ("ONLINE", None)
    assert states["virtio-lun1"] == ("UNAVAIL", "invalid label")
    imported = imports.import_by_id(gw, found.id, "m2")
    assert imported.name == "m2" and imported.state == "DEGRADED"
    assert imports.importable(gw) == []  # "no pools available to import"
    pools.destroy(gw, "m2")
    assert runner.pending == []


@pytest.mark.parametrize(
    "ident", ["", "0", "01", "-f", "tank", "1;reboot", "12 34", str(1 << 64), "9" * 21, " 123"]
)
def test_a_bad_id_is_refused_before_any_command(tmp_path: Path, ident: str) -> None:
    gw, _, runner = replay("imports", tmp_path)
    with pytest.raises(InvalidName):
        imports.import_by_id(gw, ident)
    assert runner.calls == []


def test_a_bad_new_name_is_refused_before_any_command(tmp_path: Path) -> None:
    gw, _, runner = replay("imports", tmp_path)
    for name in ("m;reboot", "-f", "mirror", "c0t0d0", ""):
        with pytest.raises(InvalidName):
            imports.import_by_id(gw, "4958685680270539150", name)
    assert runner.calls == []


def test_an_id_not_on_the_luns_is_not_found(tmp_path: Path) -> None:
    gw, _, runner = replay("imports", tmp_path)
    pools.create(
        gw, ZfsPoolSpec(name="m", layout=ZfsPoolLayout.mirror, data=[LUN0, LUN1], log=[SLOG], cache=[L2ARC])
    )
    pools.export(gw, "m")
    with pytest.raises(NotFound, match="no pool with id 4958685680270539150"):
        imports.import_by_id(gw, "4958685680270539150")
    assert ["zpool", "import", "-d", "/dev/disk/by-id", "4958685680270539150"] not in runner.calls


def test_the_largest_id_fits_and_one_more_does_not() -> None:
    assert imports.pool_id(str((1 << 64) - 1)) == str((1 << 64) - 1)
    with pytest.raises(InvalidName):
        imports.pool_id(str(1 << 64))
