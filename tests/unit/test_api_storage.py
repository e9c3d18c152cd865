"""/api/storage on outputs recorded from OpenZFS 2.3 in the lab VM: the api answers what the tools said,
and refuses a bad name or an unsafe property before any tool runs. (A dataset that exists already is
zfs's AlreadyExists, tests/unit/test_control_datasets.py, which the error table makes a 409.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import api_flows
from fixtures.appliance.replay import ReplayRunner, replay

LUN0, LUN1 = "/dev/disk/by-id/virtio-lun0", "/dev/disk/by-id/virtio-lun1"
SLOG, L2ARC = "/dev/disk/by-id/virtio-ssd-slog", "/dev/disk/by-id/virtio-ssd-l2arc"


@pytest.fixture
def storage(tmp_path: Path) -> tuple[TestClient, ReplayRunner]:
    gateway, files, runner = replay("api_wipe", tmp_path / "root")
    client = api_flows.client(tmp_path / "data", gateway, files)  # publishes the state once: commands
    runner.calls.clear()
    return client, runner


def test_pool_with_slog_and_l2arc_and_a_missing_pool(storage: tuple[TestClient, ReplayRunner]) -> None:
    client, runner = storage
    spec = {"name": "tank", "data": [LUN0, LUN1], "log": [SLOG], "cache": [L2ARC]}
    r = client.post("/api/storage/pools", json=spec)
    assert r.status_code == 201, r.text
    health = r.json()
    assert health["name"] == "tank" and health["state"] == "ONLINE"
    assert ["zpool", "create"] in [c[:2] for c in runner.calls]
    ran = len(runner.calls)
    r = client.get("/api/storage/pools/nosuch")
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    r = client.get("/api/storage/pools/tank")  # the state the create refreshed before it answered
    assert r.status_code == 200 and r.json() == health
    assert len(runner.calls) == ran  # neither read ran a command


@pytest.mark.parametrize(
    ("path", "body", "code"),
    [
        ("/api/storage/pools", {"name": "tank;reboot", "data": [LUN0]}, "invalid_name"),
        ("/api/storage/pools", {"name": "tank", "data": ["/dev/sda$(reboot)"]}, "invalid_name"),
        ("/api/storage/pools", {"name": "tank", "layout": "raidz1", "data": [LUN0, LUN1]}, "invalid_request"),
        ("/api/storage/datasets", {"name": "tank/vdi", "profile": "generic", "properties": {"sync": "disabled"}}, "refused"),
        ("/api/storage/datasets", {"name": "tank/`id`", "profile": "generic"}, "invalid_name"),
    ],
)  # fmt: skip
def test_bad_input_is_refused_before_any_tool_runs(
    storage: tuple[TestClient, ReplayRunner], path: str, body: dict[str, object], code: str
) -> None:
    client, runner = storage
    r = client.post(path, json=body)
    assert r.status_code == 422, r.text
    assert r.json()["code"] in (code, "invalid_input"), r.json()
    assert runner.calls == []
