"""/api/alerts: a pool's faults as alerts, cleared when the cause goes.

The healthy pool is the lab's own recorded ``zpool list``/``zpool status`` answers (pool recording),
replayed strictly. The fault states are that same recorded pool with a LUN's state and counters
changed as ``zpool status`` reports them after a fault; the lab test (tests/lab/faults) raises them for
real and checks the api's alerts on the running appliance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import api_flows
from fixtures.appliance.replay import ReplayRunner, load

from api.alerts import service
from api.alerts.schemas import Alert
from api.alerts.service import pool_alerts
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway
from appliance.control.pools import PoolHealth, parse_status


def _recorded(argv_head: list[str], exit_code: int = 0) -> dict[str, Any]:
    commands: list[dict[str, Any]] = load("pool")["commands"]
    return next(
        c for c in commands if c["argv"][: len(argv_head)] == argv_head and c["exit_code"] == exit_code
    )


def _healthy() -> PoolHealth:
    return parse_status(_recorded(["zpool", "status", "-j", "--json-int", "tank"])["stdout"], "tank")


def _with_lun0(health: PoolHealth, **changes: Any) -> PoolHealth:
    vdevs = [v.model_copy(update=changes) if v.name == "virtio-lun0" else v for v in health.vdevs]
    return health.model_copy(update={"vdevs": vdevs})


def _client(tmp_path: Path, commands: list[dict[str, Any]]) -> tuple[TestClient, ReplayRunner]:
    runner = ReplayRunner({"commands": commands})
    return api_flows.client(tmp_path / "data", Gateway(runner), LocalFiles(tmp_path / "root")), runner


def test_a_healthy_pool_raises_nothing(tmp_path: Path) -> None:
    listed = _recorded(["zpool", "list", "-j", "--json-int"])
    status = _recorded(["zpool", "status", "-j", "--json-int", "tank"])
    client, runner = _client(tmp_path, [listed, status])
    r = client.get("/api/alerts")
    assert r.status_code == 200 and r.json() == []
    assert runner.pending == []  # it asked zpool, and only what was recorded


def test_a_pool_exported_between_list_and_status_raises_nothing(tmp_path: Path) -> None:
    listed = _recorded(["zpool", "list", "-j", "--json-int"])
    gone = _recorded(["zpool", "status", "-j", "--json-int", "tank"], exit_code=1)  # "no such pool"
    client, runner = _client(tmp_path, [listed, gone])
    r = client.get("/api/alerts")
    assert r.status_code == 200 and r.json() == [] and runner.pending == []


def test_pollers_share_one_derivation_until_a_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    derived: list[int] = []
    real = service.current

    def counted(*args: Any, **kwargs: Any) -> list[Alert]:
        derived.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(service, "current", counted)
    listed = _recorded(["zpool", "list", "-j", "--json-int"])
    status = _recorded(["zpool", "status", "-j", "--json-int", "tank"])
    gone = _recorded(["zpool", "status", "-j", "--json-int", "tank"], exit_code=1)
    cleared = {"argv": ["zpool", "clear", "tank"], "exit_code": 0, "stdout": "", "stderr": ""}
    runner = ReplayRunner({"commands": [listed, status, cleared, listed, gone]})
    gw = Gateway(runner, reads_fresh_for=60.0)
    client = api_flows.client(tmp_path / "data", gw, LocalFiles(tmp_path / "root"))
    assert [client.get("/api/alerts").json() for _ in range(3)] == [[], [], []]
    assert (
        runner.calls == [listed["argv"], status["argv"]] and len(derived) == 1
    )  # three polls, one derivation
    gw.run(["zpool", "clear", "tank"])  # a change through the api ends the shared list at once
    assert client.get("/api/alerts").json() == [] and runner.pending == []
    assert runner.calls[-2:] == [listed["argv"], gone["argv"]] and len(derived) == 2


def test_degraded_mirror_names_the_failed_lun() -> None:
    health = _with_lun0(_healthy(), state="FAULTED", read_errors=3, write_errors=12).model_copy(
        update={"state": "DEGRADED"}
    )
    alerts = {a.key: a for a in pool_alerts(health)}
    assert set(alerts) == {"pool/tank/degraded", "pool/tank/device/virtio-lun0/faulted"}
    assert alerts["pool/tank/degraded"].severity == "warning"
    assert alerts["pool/tank/device/virtio-lun0/faulted"].severity == "critical"
    assert "LUN virtio-lun0" in alerts["pool/tank/device/virtio-lun0/faulted"].subject


def test_suspended_pool_is_critical_first_and_says_what_to_do() -> None:
    lun0 = _with_lun0(_healthy(), state="UNAVAIL", write_errors=4)
    # As the lab saw it: a suspended pool also counts its stalled I/O as data errors.
    alerts = pool_alerts(lun0.model_copy(update={"state": "SUSPENDED", "error_count": 3}))
    assert [a.key for a in alerts] == ["pool/tank/suspended", "pool/tank/device/virtio-lun0/unavail"]
    assert alerts[0].severity == "critical"
    assert "clear the pool" in alerts[0].message and "Nothing acknowledged is lost" in alerts[0].message


def test_errors_on_an_online_lun_warn_and_a_lost_slog_is_a_warning() -> None:
    health = _with_lun0(_healthy(), read_errors=2, checksum_errors=1)
    slog = [v.model_copy(update={"state": "REMOVED"}) if v.role == "log" else v for v in health.vdevs]
    alerts = {a.key: a for a in pool_alerts(health.model_copy(update={"vdevs": slog}))}
    assert alerts["pool/tank/device/virtio-lun0/errors"].message.startswith("2 read, 0 write and 1 checksum")
    lost = alerts["pool/tank/device/virtio-ssd-slog/removed"]
    assert lost.severity == "warning" and "SLOG" in lost.subject


def test_permanent_data_errors_are_critical() -> None:
    alerts = pool_alerts(_healthy().model_copy(update={"error_count": 2}))
    assert [(a.key, a.severity) for a in alerts] == [("pool/tank/data-errors", "critical")]


def test_alerts_need_a_login(anon: TestClient) -> None:
    assert anon.get("/api/alerts").status_code == 401
