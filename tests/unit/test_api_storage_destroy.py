"""DELETE /api/storage/datasets/{name} and /snapshots/{name} on the lab VM's recording 'zfs_clones':
what zfs answered (204, 404, 409 for a snapshot with a dependent clone) and what is refused before any
tool runs (a bad name, the pool root, a dataset an NFS export uses)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import fleet_flows
from fixtures.appliance.replay import ReplayRunner, UnrecordedCommand, replay
from support.api import client_for, logged_in, make_settings

from api.exports.table import NfsExport

DS = fleet_flows.DATASET
CLONE = f"{DS}/{fleet_flows.DESKTOPS[0]}"
GOLDEN_SNAP = f"{DS}/{fleet_flows.GOLDEN}@arcvsa-{fleet_flows.SNAPSHOT}"
FOREIGN_SNAP = f"{DS}/{fleet_flows.GOLDEN}@{fleet_flows.FOREIGN_SNAPSHOT}"


@pytest.fixture
def storage(tmp_path: Path) -> tuple[TestClient, ReplayRunner]:
    client = logged_in(client_for(make_settings(tmp_path / "data")))
    gateway, _, runner = replay("zfs_clones", tmp_path / "root")
    client.app.state.storage_gateway = gateway
    now = datetime.now(UTC)
    with client.app.state.sessionmaker() as db:
        for export_id, dataset in ((101, DS), (102, "tank/other/ds")):
            db.add(
                NfsExport(
                    export_id=export_id, dataset=dataset, protocol="3",
                    clients_json=json.dumps(["10.0.2.2"]), insecure_ports=True, created_at=now, updated_at=now,
                )
            )  # fmt: skip
        db.commit()
    return client, runner


def test_a_clone_is_destroyed_then_is_gone(storage: tuple[TestClient, ReplayRunner]) -> None:
    client, runner = storage
    r = client.delete(f"/api/storage/datasets/{CLONE}")
    assert r.status_code == 204, r.text
    destroys = [c for c in runner.calls if c[:2] == ["zfs", "destroy"]]
    assert destroys == [["zfs", "destroy", CLONE]], "one plain destroy: never -r or -R"
    assert runner.calls[0] == ["zfs", "destroy", CLONE]  # then the state it changed is read again
    r = client.delete(f"/api/storage/datasets/{CLONE}")
    assert r.status_code == 404 and r.json()["code"] == "not_found", r.text
    with pytest.raises(UnrecordedCommand):  # the recording has exactly those two answers: strict
        client.delete(f"/api/storage/datasets/{CLONE}")


def test_a_snapshot_with_a_dependent_clone_is_a_conflict_in_zfs_words(
    storage: tuple[TestClient, ReplayRunner],
) -> None:
    client, runner = storage
    r = client.delete(f"/api/storage/snapshots/{FOREIGN_SNAP}")
    assert r.status_code == 409 and r.json()["code"] == "storage_conflict", r.text
    detail = r.json()["detail"]
    assert "snapshot has dependent clones" in detail and f"{DS}/{fleet_flows.FOREIGN}" in detail, detail
    assert runner.calls == [["zfs", "destroy", FOREIGN_SNAP]]
    r = client.delete(f"/api/storage/snapshots/{GOLDEN_SNAP}")
    assert r.status_code == 204, r.text


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        (f"/api/storage/datasets/{DS}", 409, "storage_conflict"),  # NFS export 101 uses it
        ("/api/storage/datasets/tank/other", 409, "storage_conflict"),  # export 102 lies below it
        ("/api/storage/datasets/tank", 422, "refused"),  # a pool's root goes with the pool
        (f"/api/storage/datasets/{DS}/zc-01;reboot", 422, "invalid_name"),
        (f"/api/storage/datasets/{DS}/-r", 422, "invalid_name"),
        (f"/api/storage/datasets/{CLONE}@x", 422, "invalid_name"),  # a snapshot goes through /snapshots
        (f"/api/storage/snapshots/{DS}", 422, "invalid_name"),
        (f"/api/storage/snapshots/{DS}@%", 422, "invalid_name"),
    ],
)
def test_refused_before_any_tool_runs(
    storage: tuple[TestClient, ReplayRunner], path: str, status: int, code: str
) -> None:
    client, runner = storage
    r = client.delete(path)
    assert (r.status_code, r.json()["code"]) == (status, code), r.text
    assert runner.calls == []
    if status == 409:
        assert "NFS export 10" in r.json()["detail"]
