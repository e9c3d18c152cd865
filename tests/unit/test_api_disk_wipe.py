"""/api/storage/disks/wipe and DELETE /api/storage/pools/{name}?free_disks=true on the api_wipe recording
(fixtures.appliance.api_flows.API_WIPE, OpenZFS 2.3.9 in the lab VM): a destroyed pool's disks are free
for the next pool without force; a wipe needs the disk's name typed out and never touches a disk of an
imported pool, the system's or an unknown one; a hostile path is refused before any tool runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance import api_flows
from fixtures.appliance.replay import ReplayRunner, load, replay

STEPS = api_flows.API_WIPE
LUN0, LUN1 = api_flows.LUN0, api_flows.LUN1
POOL_DISKS = {LUN0, LUN1, api_flows.SLOG, api_flows.L2ARC}


def _run(tmp_path: Path) -> tuple[list[dict[str, Any]], ReplayRunner]:
    gateway, files, runner = replay("api_wipe", tmp_path / "root")
    client = api_flows.client(tmp_path / "data", gateway, files)
    return api_flows.run(client, STEPS), runner


def _disks(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    assert answer["status"] == 200
    return {d["path"]: d for d in answer["body"]}


def test_the_recorded_flow_answers_as_it_did_live(tmp_path: Path) -> None:
    answers, runner = _run(tmp_path)
    assert answers == load("api_wipe")["api"]
    assert runner.pending == []


def test_wipes_refused_with_their_reasons_and_nothing_written(tmp_path: Path) -> None:
    answers, runner = _run(tmp_path)
    assert answers[0]["status"] == 201
    in_pool = _disks(answers[1])
    assert all(in_pool[p]["in_use"] for p in POOL_DISKS)
    # blkid sees the labels of the data and cache devices; not the SLOG's (destroy clears it from zpool's list)
    assert all(in_pool[p]["zfs_labels"] == [f"{p}-part1"] for p in POOL_DISKS - {api_flows.SLOG})
    imported = answers[4]
    assert imported["status"] == 409 and imported["body"]["code"] == "device_in_use"
    assert "imported pool tank" in imported["body"]["detail"]
    system = answers[5]
    assert system["status"] == 422 and system["body"]["code"] == "refused"
    assert answers[6]["status"] == 404 and "no such disk" in answers[6]["body"]["detail"]
    typo = answers[7]  # virtio-lun0 typed for virtio-lun1
    assert typo["status"] == 422 and typo["body"]["field"] == "confirm"
    assert "type virtio-lun1 to confirm" in typo["body"]["detail"]
    writes = [i for i, c in enumerate(runner.calls) if c[0] == "wipefs" or c[1:2] == ["labelclear"]]
    assert runner.calls.index(["zpool", "destroy", "tank"]) < writes[0], "a refused wipe wrote"


def test_destroy_with_free_disks_leaves_them_free_for_a_pool_without_force(tmp_path: Path) -> None:
    answers, runner = _run(tmp_path)
    assert answers[8]["status"] == 204
    after = _disks(answers[9])
    assert all(after[p]["in_use"] is None and after[p]["zfs_labels"] == [] for p in POOL_DISKS)
    assert answers[10] == {"status": 200, "body": []}
    again = answers[11]  # the retry that needed force before
    assert again["status"] == 201, again
    for path in POOL_DISKS:
        assert ["wipefs", "-a", path] in runner.calls


def test_an_exported_pools_disk_is_wiped_by_name(tmp_path: Path) -> None:
    answers, _ = _run(tmp_path)
    assert answers[12]["status"] == 204
    exported = _disks(answers[13])[LUN0]
    assert "zfs_member" in exported["in_use"] and exported["zfs_labels"] == [f"{LUN0}-part1"]
    wiped = answers[15]
    assert wiped["status"] == 200 and wiped["body"]["path"] == LUN0
    assert wiped["body"]["in_use"] is None and wiped["body"]["zfs_labels"] == []
    assert _disks(answers[16])[LUN0]["in_use"] is None
    assert answers[18]["status"] == 201 and answers[19]["status"] == 204
    assert all(d["in_use"] is None for d in answers[20]["body"] if not d["system"])


@pytest.mark.parametrize("bad", list(";|&$`'\" \n<>(){}*?!\\"))
def test_a_hostile_path_is_refused_before_any_tool(tmp_path: Path, bad: str) -> None:
    gateway, files, runner = replay("api_wipe", tmp_path / "root")
    client = api_flows.client(tmp_path / "data", gateway, files)
    started = len(runner.calls)
    path = f"/dev/disk/by-id/virtio-lun{bad}0"
    r = client.post("/api/storage/disks/wipe", json={"path": path, "confirm": path.rsplit("/", 1)[-1]})
    assert r.status_code == 422, r.text
    assert runner.calls[started:] == []


def test_a_missing_confirmation_is_refused_before_any_tool(tmp_path: Path) -> None:
    gateway, files, runner = replay("api_wipe", tmp_path / "root")
    client = api_flows.client(tmp_path / "data", gateway, files)
    started = len(runner.calls)
    for body in ({"path": LUN0}, {"path": LUN0, "confirm": ""}, {"path": LUN0, "confirm": LUN0}):
        r = client.post("/api/storage/disks/wipe", json=body)
        assert r.status_code == 422, r.text
    assert runner.calls[started:] == []
