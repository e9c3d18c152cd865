"""/api/storage on outputs recorded from OpenZFS 2.3 in the lab VM: the api answers what the tools said,
and refuses a bad name or an unsafe property before any tool runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance.replay import ReplayRunner, replay
from support.api import client_for, logged_in, make_settings

LUN0, LUN1 = "/dev/disk/by-id/virtio-lun0", "/dev/disk/by-id/virtio-lun1"
SLOG, L2ARC = "/dev/disk/by-id/virtio-ssd-slog", "/dev/disk/by-id/virtio-ssd-l2arc"


@pytest.fixture
def storage(tmp_path: Path) -> tuple[TestClient, ReplayRunner]:
    client = logged_in(client_for(make_settings(tmp_path / "data")))
    gateway, _, runner = replay("pool", tmp_path / "root")
    client.app.state.storage_gateway = gateway  # type: ignore[attr-defined]
    return client, runner


def test_pool_with_slog_and_l2arc_and_a_missing_pool(storage: tuple[TestClient, ReplayRunner]) -> None:
    client, _ = storage
    spec = {"name": "tank", "data": [LUN0, LUN1], "log": [SLOG], "cache": [L2ARC]}
    r = client.post("/api/storage/pools", json=spec)
    assert r.status_code == 201, r.text
    health = r.json()
    assert health["name"] == "tank" and health["state"] == "ONLINE"
    r = client.get("/api/storage/pools/nosuch")
    assert r.status_code == 404 and r.json()["code"] == "not_found"


def test_dataset_with_the_stateless_linked_profile(storage: tuple[TestClient, ReplayRunner]) -> None:
    client, _ = storage
    r = client.post("/api/storage/datasets", json={"name": "tank/vdi", "profile": "stateless-linked"})
    assert r.status_code == 201, r.text
    assert r.json()["name"] == "tank/vdi"
    again = client.post("/api/storage/datasets", json={"name": "tank/vdi", "profile": "stateless-linked"})
    assert again.status_code == 409 and again.json()["code"] == "already_exists"


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
