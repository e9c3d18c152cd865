"""The fleet manager (role manager) and a machine that is not an appliance have no storage of their own:
the storage routes say so in words, before any tool runs, and /api/alerts answers 200 (never the 502 a
missing zpool gave every 10 s); an appliance (role storage) keeps its storage routes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance.replay import replay
from support.api import client_for, logged_in, make_settings

from api.state import poll
from api.storage import presence
from appliance.control.gateway import Gateway, SubprocessRunner
from appliance.control.observed import Part

# The storage routes a page reads; each must answer the explained state on a manager.
READS = [
    "/api/storage/disks",
    "/api/storage/pools",
    "/api/storage/pools/tank",
    "/api/storage/imports",
    "/api/storage/pools/tank/datasets",
]
WRITES = [
    ("post", "/api/storage/pools", {"name": "tank", "data": ["/dev/disk/by-id/virtio-lun0"]}),
    ("delete", "/api/storage/pools/tank?free_disks=true", None),
    ("post", "/api/storage/disks/wipe", {"path": "/dev/disk/by-id/virtio-lun0", "confirm": "virtio-lun0"}),
    ("post", "/api/storage/datasets", {"name": "tank/vdi", "profile": "generic"}),
]


def _client(tmp_path: Path, role: str | None) -> TestClient:
    settings = make_settings(tmp_path / "data")
    if role is not None:
        settings.etc_dir.mkdir(parents=True, exist_ok=True)
        settings.appliance_config.write_text(json.dumps({"role": role, "nfs_backend": "ganesha"}))
    return logged_in(client_for(settings))


class NoTools:
    """A runner that fails the test if anything is run: the manager must refuse before any tool."""

    def execute(self, argv: object, **_: object) -> object:
        raise AssertionError(f"a tool ran on the manager: {argv}")


@pytest.fixture
def manager(tmp_path: Path) -> TestClient:
    client = _client(tmp_path, "manager")
    client.app.state.storage_gateway = Gateway(NoTools())  # type: ignore[attr-defined]
    return client


def test_the_manager_says_it_has_no_storage(manager: TestClient) -> None:
    r = manager.get("/api/storage/presence")
    assert r.status_code == 200
    assert r.json() == {"present": False, "role": "manager", "reason": presence.MANAGER}


@pytest.mark.parametrize("url", READS)
def test_storage_reads_on_the_manager_are_explained_not_a_tool_error(manager: TestClient, url: str) -> None:
    r = manager.get(url)
    assert r.status_code == 404, r.text
    body = r.json()
    assert body["code"] == "no_local_storage"
    assert body["detail"] == presence.MANAGER
    assert "zpool" not in body["detail"] and "lsblk" not in body["detail"]


@pytest.mark.parametrize(("method", "url", "body"), WRITES)
def test_storage_changes_on_the_manager_are_refused_before_any_tool(
    manager: TestClient, method: str, url: str, body: object
) -> None:
    r = manager.request(method.upper(), url, json=body)
    assert r.status_code == 404, r.text
    assert r.json()["code"] == "no_local_storage"


def test_alerts_on_the_manager_answer_200_without_running_zpool(manager: TestClient) -> None:
    for _ in range(3):  # the banner polls: every answer is a 200
        r = manager.get("/api/alerts")
        assert r.status_code == 200, r.text
        assert r.json() == []


@pytest.mark.skipif(
    shutil.which("zpool") is not None, reason="this machine has OpenZFS: it could be an appliance"
)
def test_a_machine_without_openzfs_and_no_role_is_not_an_appliance(tmp_path: Path) -> None:
    client = _client(tmp_path, None)
    assert isinstance(client.app.state.storage_gateway.runner, SubprocessRunner)  # type: ignore[attr-defined]
    found = client.get("/api/storage/presence").json()
    assert found == {"present": False, "role": None, "reason": presence.NOT_AN_APPLIANCE}
    r = client.get("/api/storage/disks")  # lsblk exists here: it must not even be asked
    assert r.status_code == 404 and r.json()["code"] == "no_local_storage"
    assert "lsblk" not in r.text and "ID-LINK" not in r.text
    alerts = client.get("/api/alerts")
    assert alerts.status_code == 200 and alerts.json() == []


def test_an_appliance_keeps_its_storage_routes(tmp_path: Path) -> None:
    """Role storage: the api's start observes this machine's storage (whatever it has: its tools' own
    errors where they are missing), and the routes answer from the state its tools (here a recording's)
    were last observed in."""
    client = _client(tmp_path, "storage")
    state = client.app.state  # type: ignore[attr-defined]
    assert state.state_start is not None  # the first observation, on this machine's own tools
    state.state_start.join(60)
    assert state.snapshot.read() is not None
    gateway, files, runner = replay("disks", tmp_path / "root")
    state.storage_gateway, state.storage_files = gateway, files
    assert client.get("/api/storage/presence").json() == {"present": True, "role": "storage", "reason": None}
    poll.after_change(state, [Part.disks])
    assert runner.calls == [["lsblk", *runner.calls[0][1:]]]
    r = client.get("/api/storage/disks")
    assert r.status_code == 200 and [d["path"] for d in r.json()][1] == "/dev/disk/by-id/virtio-lun0"
    assert len(runner.calls) == 1  # the read ran nothing


def test_an_unknown_role_is_no_manager(tmp_path: Path) -> None:
    """Only the role 'manager' hides storage; anything else in appliance.json counts as no role."""
    client = _client(tmp_path, "Manager")
    gateway, _, _ = replay("disks", tmp_path / "root")
    client.app.state.storage_gateway = gateway  # type: ignore[attr-defined]
    assert client.get("/api/storage/presence").json()["present"] is True
