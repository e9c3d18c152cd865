"""Pools to import through /api/storage/imports on the api_imports recording (fixtures.appliance.api_flows):
two exported pools named tank, as when a LUN comes from another appliance. The api lists both with their
ids; the import by name is refused as ambiguous (409, not a 502); each is imported by its id, the second
under a new name once the first holds the name; bad ids and names get 422 before any command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixtures.appliance import api_flows
from fixtures.appliance.replay import load, replay

STEPS = api_flows.API_IMPORTS


def _run(tmp_path: Path) -> tuple[list[dict[str, Any]], dict[str, Any], Any]:
    recording = load("api_imports")
    gateway, files, runner = replay("api_imports", tmp_path / "root")
    client = api_flows.client(tmp_path / "data", gateway, files)
    return api_flows.run(client, STEPS), recording, runner


def _disks(body: dict[str, Any]) -> set[str]:
    return {v["name"] for v in body["vdevs"] if v["vdev_type"] == "disk"}


def test_the_recorded_flow_answers_as_it_did_live(tmp_path: Path) -> None:
    answers, recording, runner = _run(tmp_path)
    assert answers == recording["api"]
    assert runner.pending == []  # every command the api ran live, it ran again, nothing more


def test_two_pools_of_one_name_are_told_apart_by_id(tmp_path: Path) -> None:
    answers, _, _ = _run(tmp_path)
    assert [a["status"] for a in answers[:4]] == [201, 204, 201, 204]
    listed = answers[4]
    assert listed["status"] == 200
    first, second = listed["body"]
    assert first["name"] == second["name"] == "tank" and first["id"] != second["id"]
    devices = [{(d["name"], d["role"]) for d in p["devices"]} for p in (first, second)]
    assert {("virtio-lun0", "data"), ("virtio-ssd-slog", "log")} in devices
    assert {("virtio-lun1", "data"), ("virtio-ssd-l2arc", "cache")} in devices
    by_name = answers[5]
    assert by_name["status"] == 409 and "more than one matching pool" in by_name["body"]["detail"]


def test_each_is_imported_by_id_the_second_under_a_new_name(tmp_path: Path) -> None:
    answers, _, _ = _run(tmp_path)
    first, second = answers[4]["body"]
    imported = answers[6]
    assert imported["status"] == 200 and imported["body"]["name"] == "tank"
    assert _disks(imported["body"]) == {d["name"] for d in first["devices"]}  # the pool with that id
    assert answers[7] == {"status": 200, "body": [second]}
    taken = answers[8]
    assert taken["status"] == 409 and taken["body"]["code"] == "already_exists"
    assert answers[9]["status"] == 422  # an injected new name: refused before any command
    renamed = answers[10]
    assert renamed["status"] == 200 and renamed["body"]["name"] == "tank2"
    assert _disks(renamed["body"]) == {d["name"] for d in second["devices"]}
    assert answers[11] == {"status": 200, "body": []}  # "no pools available to import"
    assert answers[12]["status"] == 404 and "no pool with id" in answers[12]["body"]["detail"]
    assert answers[13]["status"] == 422 and answers[13]["body"]["code"] == "invalid_name"  # 2**64: no id
    pools = answers[14]["body"]
    assert sorted(p["name"] for p in pools) == ["tank", "tank2"]
    assert [a["status"] for a in answers[15:]] == [204, 204]
