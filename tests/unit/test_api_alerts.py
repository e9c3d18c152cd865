"""/api/alerts: a pool's faults as alerts, cleared when the cause goes.

The healthy pool is the lab's own recorded ``zpool list``/``zpool status`` answers (pool recording),
replayed strictly. The fault states are that same recorded pool with a LUN's state and counters
changed as ``zpool status`` reports them after a fault; the lab test (tests/lab/faults) raises them for
real and checks the api's alerts on the running appliance. Each state is published as a pass of the
state poller publishes it (api.state.poll), and /api/alerts answers from what was published.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from fixtures.appliance import api_flows
from fixtures.appliance.replay import ReplayRunner, load

from api.alerts.service import pool_alerts
from api.state import poll
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway
from appliance.control.observed import Part
from appliance.control.pools import ZfsPoolHealth, parse_status


def _recorded(argv_head: list[str], exit_code: int = 0) -> dict[str, Any]:
    commands: list[dict[str, Any]] = load("pool")["commands"]
    return next(
        c for c in commands if c["argv"][: len(argv_head)] == argv_head and c["exit_code"] == exit_code
    )


def _healthy() -> ZfsPoolHealth:
    return parse_status(_recorded(["zpool", "status", "-j", "--json-int", "tank"])["stdout"], "tank")


def _with_lun0(health: ZfsPoolHealth, **changes: Any) -> ZfsPoolHealth:
    vdevs = [v.model_copy(update=changes) if v.name == "virtio-lun0" else v for v in health.vdevs]
    return health.model_copy(update={"vdevs": vdevs})


def _app(tmp_path: Path, runner: ReplayRunner) -> TestClient:
    """A logged-in api whose tools answer from ``runner``, no state published yet (what publishes it, and
    when, is each test's)."""
    return api_flows.client(tmp_path / "data", Gateway(runner), LocalFiles(tmp_path / "root"), publish=False)


def _published(tmp_path: Path, commands: list[dict[str, Any]]) -> tuple[TestClient, ReplayRunner]:
    """An app whose pools' state is published from ``commands`` (as the poller's pass or a change does)."""
    runner = ReplayRunner({"commands": commands})
    client = _app(tmp_path, runner)
    poll.after_change(client.app.state, {Part.pools})  # type: ignore[attr-defined]
    return client, runner


def test_a_healthy_pool_raises_nothing(tmp_path: Path) -> None:
    listed = _recorded(["zpool", "list", "-j", "--json-int"])
    status = _recorded(["zpool", "status", "-j", "--json-int", "tank"])
    client, runner = _published(tmp_path, [listed, status])
    assert runner.pending == []  # the state was read from zpool, and only what was recorded
    found = client.app.state.snapshot.read()  # type: ignore[attr-defined]
    assert [h.name for h in found.observed.pools] == ["tank"] and found.alerts == []  # read, and sound
    r = client.get("/api/alerts")
    assert r.status_code == 200 and r.json() == []
    assert len(runner.calls) == 2  # the read answered from the published state: no tool ran


def test_a_pool_exported_between_list_and_status_raises_nothing(tmp_path: Path) -> None:
    listed = _recorded(["zpool", "list", "-j", "--json-int"])
    gone = _recorded(["zpool", "status", "-j", "--json-int", "tank"], exit_code=1)  # "no such pool"
    client, runner = _published(tmp_path, [listed, gone])
    observed = client.app.state.snapshot.read().observed  # type: ignore[attr-defined]
    assert observed.pools == [] and observed.pool_failures == {} and runner.pending == []
    r = client.get("/api/alerts")
    assert r.status_code == 200 and r.json() == []


def test_a_pool_whose_status_cannot_be_read_is_a_critical_alert_naming_why(tmp_path: Path) -> None:
    """The recorded status as a newer OpenZFS would print it (its JSON's major version bumped): the state
    still publishes (the pool's space with it), and the alert says what failed instead of the pool
    looking sound."""
    listed = _recorded(["zpool", "list", "-j", "--json-int"])
    newer = dict(_recorded(["zpool", "status", "-j", "--json-int", "tank"]))
    data = json.loads(newer["stdout"])
    data["output_version"]["vers_major"] += 1
    newer["stdout"] = json.dumps(data)
    client, runner = _published(tmp_path, [listed, newer])
    observed = client.app.state.snapshot.read().observed  # type: ignore[attr-defined]
    assert [s.name for s in observed.spaces] == ["tank"] and runner.pending == []
    r = client.get("/api/alerts")
    assert r.status_code == 200
    (alert,) = r.json()
    assert alert["key"] == "pool/tank/status" and alert["severity"] == "critical"
    assert "zpool status: output version 1 is not supported" in alert["message"]
    # the pool's own read answers the same error (its typed class kept), not a pool that looks sound
    r = client.get("/api/storage/pools/tank")
    assert r.status_code == 502 and r.json()["code"] == "system_fault", r.text


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
