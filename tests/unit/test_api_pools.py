"""Day-2 pool operations through /api/storage on the api_pools recording (fixtures.appliance.api_flows):
grow by a LUN, scrub, replace a LUN, quotas and reservations, export and import. The api answers what it
answered live in the lab VM; bad input is refused before any tool runs; a pool or dataset that NFS serves
is neither exported nor destroyed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import api_flows
from fixtures.appliance.replay import load, replay

STEPS = api_flows.API_POOLS


class Flow:
    def __init__(self, tmp_path: Path) -> None:
        self.recording = load("api_pools")
        gateway, self.files, self.runner = replay("api_pools", tmp_path / "root")
        self.client: TestClient = api_flows.client(tmp_path / "data", gateway, self.files)
        self.started = len(self.runner.calls)  # the api's start observed the appliance

    def ran(self) -> list[list[str]]:
        """The commands run since the api's start."""
        return self.runner.calls[self.started :]

    def run(self, upto: int | None = None) -> list[dict[str, Any]]:
        return api_flows.run(self.client, STEPS[:upto])


@pytest.fixture
def flow(tmp_path: Path) -> Flow:
    return Flow(tmp_path)


def _data_disks(pool: dict[str, Any]) -> list[str]:
    return [v["name"] for v in pool["vdevs"] if v["role"] == "data" and v["vdev_type"] == "disk"]


def test_the_recorded_flow_answers_as_it_did_live(flow: Flow) -> None:
    answers = flow.run()
    assert answers == flow.recording["api"]
    assert flow.runner.pending == []  # every command the api ran live, it ran again, nothing more
    grown = answers[2]
    assert grown["status"] == 200 and _data_disks(grown["body"]) == ["virtio-lun0", "virtio-lun1"]
    assert answers[3]["status"] == 409 and answers[3]["body"]["code"] == "device_in_use"
    assert answers[4]["status"] == 422 and answers[5]["status"] == 404
    scrub = answers[6]
    assert scrub["status"] == 202 and scrub["body"]["scan"]["function"] == "SCRUB"
    replaced = answers[7]["body"]
    assert replaced["scan"]["function"] == "RESILVER"
    # A near-empty LUN may finish resilvering before zpool status answers: old and new side by side
    # under replacing-1 while it runs, the new one in the old one's place once it is done.
    leaves = [(v["name"], v["parent"]) for v in replaced["vdevs"] if v["vdev_type"] == "disk"]
    assert leaves in (
        [("virtio-lun0", None), ("virtio-lun1", "replacing-1"), ("virtio-ssd-l2arc", "replacing-1")],
        [("virtio-lun0", None), ("virtio-ssd-l2arc", None)],
    ), leaves
    assert answers[8]["status"] == 409  # the new LUN is taken: lun1 still holds the pool's label
    props = answers[10]["body"]["properties"]
    assert (props["quota"], props["reservation"], props["compression"]) == (1 << 30, 256 << 20, "zstd")
    assert answers[11]["body"]["code"] == "refused" and "sync=disabled" in answers[11]["body"]["detail"]
    assert answers[12]["status"] == 422 and answers[13]["status"] == 404
    # an NFS datastore on the pool blocks export and destroy, naming the export
    for blocked in answers[15], answers[16]:
        assert blocked["status"] == 409 and "NFS export 101" in blocked["body"]["detail"]
    assert answers[18]["status"] == 204 and answers[19]["body"] == []  # exported: no pool left
    imported = answers[20]["body"]
    assert imported["state"] == "ONLINE" and _data_disks(imported) == ["virtio-lun0", "virtio-ssd-l2arc"]
    again = answers[21]
    assert again["status"] == 409 and again["body"]["detail"].startswith("cannot import 'tank': a pool")
    vdi = next(d for d in answers[22]["body"] if d["name"] == "tank/vdi")
    assert vdi["properties"]["quota"] == 1 << 30  # the quota came back with the pool
    assert answers[23]["status"] == 204


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/storage/pools/tank/devices", {"devices": []}),
        ("POST", "/api/storage/pools/tank/devices", {"devices": ["/dev/disk/by-id/../../sda"]}),
        ("POST", "/api/storage/pools/tank/devices", {"devices": [api_flows.LUN1], "layout": "raid5"}),
        ("POST", "/api/storage/pools/ta%20nk/devices", {"devices": [api_flows.LUN1]}),
        ("POST", "/api/storage/pools/tank/replace", {"old": "virtio-lun1", "new": api_flows.LUN1}),
        ("POST", "/api/storage/pools/tank/replace", {"old": api_flows.LUN1}),
        ("POST", "/api/storage/pools/-x/scrub", None),
        ("POST", "/api/storage/pools/mirror/import", None),
        ("POST", "/api/storage/pools/tank;ls/export", None),
        ("PATCH", "/api/storage/datasets/tank/vdi", {"properties": {}}),
        ("PATCH", "/api/storage/datasets/tank/vdi", {"properties": {"mountpoint": "/etc"}}),
        ("PATCH", "/api/storage/datasets/tank/vdi", {"properties": {"sync": "DISABLED"}}),
        ("PATCH", "/api/storage/datasets/tank/v di", {"properties": {"quota": "1G"}}),
    ],
)
def test_bad_input_is_refused_before_any_tool_runs(
    flow: Flow, method: str, path: str, body: dict[str, Any] | None
) -> None:
    r = flow.client.request(method, path, json=body)
    assert r.status_code == 422, r.text
    assert r.json()["detail"] and "Traceback" not in r.text
    assert flow.ran() == []


def test_every_new_route_needs_a_login(flow: Flow) -> None:
    flow.client.cookies.clear()
    for method, path, body in STEPS[2:]:
        r = flow.client.request(method, path, json=body)
        assert r.status_code == 401, (method, path, r.status_code)
    assert flow.ran() == []
