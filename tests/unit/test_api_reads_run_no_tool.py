"""No GET route starts a tool: every read answers from the published state (api.state) or SQLite.

The state is published by the api's own changes on a recorded flow (a pool, datasets, exports), then the
app's gateway is swapped for one that fails the test on any command, and every GET route the app
declares is called, with path parameters naming things that exist (the recorded pool, its export). A new GET
route is walked without being listed here; a route that starts a tool fails with the argv it ran.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import api_flows
from fixtures.appliance.replay import replay
from support.api import client_for, logged_in, make_settings
from support.routes import api_routes

from appliance.control.gateway import Gateway, Result

# Values for the path parameters: what the recorded flow made (pool tank, export 101), or nothing.
PARAMETERS = {
    "name": "tank",
    "export_id": "101",
    "job_id": "1",
    "deployment_id": "1",
    "vcenter_id": "1",
    "calibration_id": "1",
    "path": "storage/pools",  # the manager's drill-down: no deployment 1 there, so a 404 and no tool
}


class CommandOnRead(AssertionError):
    """A GET route started a tool."""


class FailingRunner:
    """A Runner that fails the test on any command, naming it."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        self.calls.append(list(argv))
        raise CommandOnRead(f"a read ran {list(argv)}")


def _get_routes(client: TestClient) -> list[str]:
    return sorted({path for method, path in api_routes(client.app) if method == "GET"})  # type: ignore[arg-type]


def _fill(path: str) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1).split(":")[0]
        if name not in PARAMETERS:
            raise AssertionError(f"{path}: no test value for its parameter {name}: add one to PARAMETERS")
        return PARAMETERS[name]

    return re.sub(r"\{([^}]+)\}", value, path)


@pytest.fixture
def published(tmp_path: Path) -> tuple[TestClient, FailingRunner]:
    """The recorded export flow's first steps (a pool, two datasets, two exports) through the api on its
    replay, so the published state holds them; then a gateway that fails on any command."""
    gateway, files, _ = replay("api_exports", tmp_path / "root")
    client = api_flows.client(tmp_path / "data", gateway, files)
    answers = api_flows.run(client, api_flows.API_EXPORTS[:7])
    assert [a["status"] for a in answers] == [200, 201, 201, 201, 201, 404, 201]
    failing = FailingRunner()
    client.app.state.storage_gateway = Gateway(failing)  # type: ignore[attr-defined]
    return client, failing


def test_the_published_state_holds_what_the_reads_need(published: tuple[TestClient, FailingRunner]) -> None:
    """The walk below proves something only if the reads have state to answer from."""
    client, _ = published
    found = client.app.state.snapshot.read()  # type: ignore[attr-defined]
    assert found is not None
    assert [p.name for p in found.observed.pools or []] == ["tank"]
    assert [d.name for d in (found.observed.datasets or {})["tank"]] == ["tank", "tank/ds1", "tank/ds2"]
    assert "tank" in (found.observed.datasets or {})
    assert found.observed.disks


def test_every_get_route_answers_without_a_command(published: tuple[TestClient, FailingRunner]) -> None:
    client, failing = published
    walked = []
    for path in _get_routes(client):
        r = client.get(_fill(path))
        assert r.status_code < 500, (path, r.text)
        walked.append((path, r.status_code))
    assert failing.calls == []
    storage = {p: s for p, s in walked if p.startswith("/api/storage")}
    # the storage reads answered from the state, not with a refusal
    assert storage["/api/storage/pools/{name}"] == 200
    assert storage["/api/storage/pools/{name}/datasets"] == 200
    assert storage["/api/storage/disks"] == 200
    assert storage["/api/storage/exports/{export_id}/io"] == 200
    assert len(walked) >= 35


def test_a_read_that_runs_a_tool_is_caught(published: tuple[TestClient, FailingRunner]) -> None:
    """The failing gateway is the app's: a route that used it would fail the walk."""
    client, failing = published
    with pytest.raises(CommandOnRead):
        client.post("/api/storage/pools/tank/scrub")
    assert failing.calls and failing.calls[0][:2] == ["zpool", "scrub"]


def test_before_the_first_observation_a_read_is_a_typed_not_yet(tmp_path: Path) -> None:
    """No state published yet (the poller's first pass and the api's start still running): 503, said so."""
    client = logged_in(client_for(make_settings(tmp_path / "data")))
    state = client.app.state  # type: ignore[attr-defined]
    assert state.state_start is None  # not an appliance: nothing observed at start
    state.storage_gateway = Gateway(FailingRunner())  # has storage (not this machine's tools): no refusal
    for path in ("/api/storage/pools", "/api/storage/disks", "/api/storage/pools/tank"):
        r = client.get(path)
        assert r.status_code == 503 and r.json()["code"] == "state_pending", (path, r.text)
        assert "first time since it started" in r.json()["detail"]
