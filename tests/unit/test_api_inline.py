"""The dashboard's polled reads are answered on the event loop once their tool answers are shared
(api.inline): no worker-thread hop for the route, its answer's validation or the caller's cached session;
what would wait for a tool still goes to a worker thread, and answers the same."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance import api_flows
from support.any_recording import any_recording

from api import deps, inline
from appliance.control.gateway import Gateway

POLLED = (
    "/api/health",
    "/api/appliance",
    "/api/storage/pools",
    "/api/storage/exports",
    "/api/storage/nfs",
    "/api/storage/metrics/summary",
    "/api/alerts",
)


class Hops:
    """run_in_threadpool as the api calls it, counting which module hopped."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.hops: list[str] = []
        for module in (inline, deps):
            real = module.run_in_threadpool
            monkeypatch.setattr(module, "run_in_threadpool", self._counting(module.__name__, real))

    def _counting(self, name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        async def counted(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            self.hops.append(name)
            return await real(fn, *args, **kwargs)

        return counted


def test_polled_reads_hop_to_a_worker_only_while_a_tool_must_be_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, files, runner = any_recording(tmp_path / "root")
    gateway = Gateway(runner, reads_fresh_for=60.0)
    client = api_flows.client(tmp_path / "data", gateway, files)
    hops = Hops(monkeypatch)
    first = {path: client.get(path) for path in POLLED}
    assert {p: r.status_code for p, r in first.items()} == dict.fromkeys(POLLED, 200)
    assert "api.inline" in hops.hops  # the pools' tools ran once, on a worker thread
    assert runner.calls
    ran, hops.hops[:] = len(runner.calls), []
    again = {path: client.get(path) for path in POLLED}
    assert hops.hops == []  # session cached, every tool answer shared: all on the loop
    assert len(runner.calls) == ran
    assert {p: r.json() for p, r in again.items()} == {p: r.json() for p, r in first.items()}


def test_with_nothing_shared_every_read_goes_to_a_worker_and_answers_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, files, runner = any_recording(tmp_path / "root")
    client = api_flows.client(tmp_path / "data", Gateway(runner), files)  # reads_fresh_for 0
    client.get("/api/auth/me")
    hops = Hops(monkeypatch)
    for _ in range(2):
        hops.hops.clear()
        assert client.get("/api/storage/pools").status_code == 200
        assert hops.hops == ["api.inline"]


def test_an_unknown_token_is_looked_up_on_a_worker_and_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, files, runner = any_recording(tmp_path / "root")
    client = api_flows.client(tmp_path / "data", Gateway(runner), files)
    hops = Hops(monkeypatch)
    r = client.get("/api/alerts", headers={"Authorization": "Bearer not-a-session"})
    assert r.status_code == 401 and hops.hops == ["api.deps"]
    assert client.get("/api/auth/me").status_code == 200
    hops.hops.clear()  # the cookie's session is cached now: its CSRF check runs on the loop
    assert client.post("/api/auth/logout", headers={"X-CSRF-Token": "wrong"}).status_code == 403
    assert hops.hops == []
    assert client.get("/api/auth/me").status_code == 200  # still logged in
