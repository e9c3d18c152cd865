"""/api/deployments/{id}/inventory and /appliances: a deployment as it is now, read-only.

The inventory against a vcsim of this module's own (a pool applied through the api, then shrunk in the
plan); the appliances against real arcvsa apis served over TLS on the strict replay of the 'fleet'
recording, next to one that accepts connections and never answers and one never pinned.
"""

from __future__ import annotations

import io
import json
import socket
import time
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import fleet_flows
from fixtures.appliance.replay import replay_log
from support.api import client_for, logged_in, make_settings
from support.appliance_server import replayed_appliances
from support.notify_servers import Rsyslog

from api.backup import envelope
from api.fleet import alerts as fleet_alerts
from api.fleet import backups as fleet_backup
from api.fleet import dashboard, figures, service
from api.fleet.schemas import FleetFigures
from api.fleet.sessions import ApplianceSessions
from api.metrics import sampler
from api.metrics import store as metrics_store
from api.metrics.schemas import Sample
from lab.vcsim import CLUSTER, DATACENTER, DATASTORES, GOLDEN_SNAPSHOT, GOLDEN_VM, Vcsim
from provisioning.appliance_api import ApplianceApi
from provisioning.appliance_errors import ApplianceLoginFailed, ApplianceRequestRefused
from provisioning.plan import ApplianceSpec

POOL = {
    "name": "pool-f", "count": 3, "naming": "fl-##", "folder": "fleet-f", "golden_vm": GOLDEN_VM,
    "snapshot": GOLDEN_SNAPSHOT, "datastore": DATASTORES[0], "memory_mb": 256, "vcpus": 1,
}  # fmt: skip


@pytest.fixture(scope="module")
def site() -> Iterator[Vcsim]:
    """A vcsim of this module's own: applying a plan changes its inventory."""
    with Vcsim() as sim:
        yield sim


@pytest.fixture
def admin(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(make_settings(tmp_path / "api")) as c:
        yield logged_in(c)


def _deployment(admin: TestClient, site: Vcsim, **plan: Any) -> int:
    vc = {"name": "vc", "host": site.host, "port": site.port, "username": site.username,
          "password": site.password, "thumbprint_sha256": site.thumbprint_sha256}  # fmt: skip
    known = {v["name"]: v["id"] for v in admin.get("/api/vcenters").json()}
    if "vc" not in known:
        r = admin.post("/api/vcenters", json=vc)
        assert r.status_code == 201, r.text
        known["vc"] = r.json()["id"]
    body = {"name": "fleet-a", "datacenter": DATACENTER, "cluster": CLUSTER, **plan}
    r = admin.post("/api/deployments", json={"vcenter_id": known["vc"], "plan": body})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def test_inventory_counts_the_desktops_present_against_the_plan_and_lists_the_teardown(
    admin: TestClient, site: Vcsim
) -> None:
    dep = _deployment(admin, site, pool=POOL)
    before = admin.get(f"/api/deployments/{dep}/inventory").json()
    assert (before["planned"], before["present"], before["desktops"], before["teardown"]) == (3, 0, [], [])

    job = admin.post(f"/api/deployments/{dep}/apply").json()
    assert admin.app.state.jobs.wait(job["id"], 60)  # type: ignore[attr-defined]
    assert admin.get(f"/api/jobs/{job['id']}").json()["state"] == "succeeded"
    after = admin.get(f"/api/deployments/{dep}/inventory").json()
    assert (after["planned"], after["present"], after["current"], after["powered_on"]) == (3, 3, 3, 3)
    assert [d["name"] for d in after["desktops"]] == ["fl-01", "fl-02", "fl-03"]
    assert {d["source"] for d in after["desktops"]} == {f"{GOLDEN_VM}@{GOLDEN_SNAPSHOT}"}
    assert [(a["op"], a["kind"], a["name"]) for a in after["teardown"]] == [
        ("delete", "desktop", "fl-01"), ("delete", "desktop", "fl-02"), ("delete", "desktop", "fl-03"),
        ("delete", "folder", "fleet-f"),
    ]  # fmt: skip

    plan = admin.get(f"/api/deployments/{dep}").json()["plan"]
    plan["pool"]["count"] = 2
    assert admin.put(f"/api/deployments/{dep}", json={"plan": plan}).status_code == 200
    shrunk = admin.get(f"/api/deployments/{dep}/inventory").json()
    assert (shrunk["planned"], shrunk["present"], len(shrunk["desktops"])) == (2, 2, 3), (
        "the third desktop is still there, no longer planned"
    )
    assert admin.get("/api/deployments/999/inventory").status_code == 404


def _count_logins(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the appliances each ApplianceApi.login from now on was for, in order."""
    logins: list[str] = []
    real_login = ApplianceApi.login

    def counted(api: ApplianceApi, password: str, username: str = "admin") -> None:
        logins.append(api.name)
        real_login(api, password, username)

    monkeypatch.setattr(ApplianceApi, "login", counted)
    return logins


def _appliance(name: str, host: str, endpoint: str, thumbprint: str | None) -> dict[str, Any]:
    return {"host": host, "name": name, "api_endpoint": endpoint, "api_thumbprint_sha256": thumbprint}


def test_appliances_report_health_version_pool_and_alerts_and_a_dead_one_does_not_stall(
    admin: TestClient, site: Vcsim, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Short enough that a stall would show; long enough for a replayed appliance's login (argon2) on a
    # machine whose two cores run other tests too.
    monkeypatch.setattr(service, "PROBE_TIMEOUT", 3.0)
    logins = _count_logins(monkeypatch)
    silent = socket.create_server(("127.0.0.1", 0))  # accepts (backlog), never speaks TLS
    with silent, replayed_appliances(tmp_path / "fleet", 2, "fleet", fleet_flows.PASSWORD) as served:
        appliances = [
            _appliance(f"vsa-{i}", f"DC0_C0_H{i}", s.endpoint, s.thumbprint)
            for i, (s, _) in enumerate(served)
        ]
        appliances.append(_appliance("vsa-2", "DC0_C0_H2", f"127.0.0.1:{silent.getsockname()[1]}", "AB" * 32))
        appliances.append(_appliance("vsa-3", "DC0_C0_H3", "127.0.0.1:9", None))
        fleet = {"ova_path": "x.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
                 "admin_password": fleet_flows.PASSWORD, "appliances": appliances}  # fmt: skip
        nfs = {"name": "arcvsa-nfs", "server": "192.0.2.21", "path": f"/{fleet_flows.DATASET}"}
        dep = _deployment(admin, site, fleet=fleet, nfs=nfs)

        started = time.monotonic()
        first = {a["name"]: a for a in admin.get(f"/api/deployments/{dep}/appliances").json()}
        # The silent appliance is given up on at its first call's timeout; the live ones take four calls.
        # Without the timeouts the silent appliance would hold the page for ever.
        assert time.monotonic() - started < 20, "the silent appliance is given up on after its 3 s timeout"
        assert sorted(logins) == ["vsa-0", "vsa-1"]
        server = served[1][0]  # apply's storage step on vsa-1 (the recording's pool and export)
        fleet_flows.fleet_flow(ApplianceApi(server.endpoint, server.thumbprint, name="apply"))
        logins.clear()
        second = {a["name"]: a for a in admin.get(f"/api/deployments/{dep}/appliances").json()}
        assert logins == [], "the manager's kept sessions: no argon2 login per page read"

    assert list(first) == ["vsa-0", "vsa-1", "vsa-2", "vsa-3"]
    fresh = first["vsa-0"]  # the recording's first look: no pool tank yet (as on a new appliance)
    assert (fresh["reachable"], fresh["healthy"], fresh["host"]) == (True, False, "DC0_C0_H0")
    assert fresh["pools"] == [{"name": "tank", "state": "MISSING", "data_errors": 0, "device_errors": 0}]
    assert fresh["alerts"] == ["pool tank is MISSING"]
    built = second["vsa-1"]  # then the pool apply built, as its api published it after the change
    assert (built["reachable"], built["healthy"], built["alerts"]) == (True, True, [])
    assert built["pools"] == [{"name": "tank", "state": "ONLINE", "data_errors": 0, "device_errors": 0}]
    assert built["version"] and built["address"] == served[1][0].endpoint
    dead = first["vsa-2"]
    assert (dead["reachable"], dead["healthy"], dead["pools"]) == (False, False, None)
    assert dead["alerts"][0].startswith("unreachable"), dead["alerts"]
    assert first["vsa-3"]["alerts"] == ["its certificate is not pinned yet: apply pins it on first contact"]
    assert "secret" not in str(first) and fleet_flows.PASSWORD not in str(first)


def test_a_deployment_without_a_fleet_has_no_appliances(admin: TestClient, site: Vcsim) -> None:
    dep = _deployment(admin, site, pool={**POOL, "naming": "nf-##", "folder": "nf"})
    assert admin.get(f"/api/deployments/{dep}/appliances").json() == []
    assert admin.get("/api/deployments/999/appliances").status_code == 404


def _recorded_samples(root: Path) -> list[Sample]:
    """The counters the sampler read in the lab VM (the metrics_series recording: idle, a file written,
    read warm, read from a new export), as four samples 10 s apart ending now."""
    gw, files, _ = replay_log("metrics_series", root)
    now = datetime.now(UTC)
    return [sampler.take(gw, files, now - timedelta(seconds=10 * (3 - i))) for i in range(4)]


def test_the_fleet_view_reads_every_appliance_at_once_and_names_why_one_could_not_be_read(
    admin: TestClient, site: Vcsim, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dashboard, "TIMEOUT", 3.0)
    logins = _count_logins(monkeypatch)
    samples = _recorded_samples(tmp_path / "recorded")
    silent = socket.create_server(("127.0.0.1", 0))  # accepts (backlog), never speaks TLS
    with silent, replayed_appliances(tmp_path / "fleet", 2, "fleet", fleet_flows.PASSWORD) as served:
        (busy, _), (quiet, _) = served
        with busy.app.state.sessionmaker() as db:
            for sample in samples:
                metrics_store.add(db, sample)
            db.commit()
        first = [
            _appliance("vsa-0", "DC0_C0_H0", busy.endpoint, busy.thumbprint),
            _appliance("vsa-1", "DC0_C0_H1", quiet.endpoint, quiet.thumbprint),
            _appliance("vsa-2", "DC0_C0_H2", f"127.0.0.1:{silent.getsockname()[1]}", "AB" * 32),
        ]
        second = [
            _appliance("vsb-0", "DC0_C0_H3", "127.0.0.1:9", "CD" * 32),  # nothing listens: refused at once
            _appliance("vsb-1", "DC0_C0_H0", busy.endpoint, "EF" * 32),  # another certificate than pinned
            _appliance("vsb-2", "DC0_C0_H1", quiet.endpoint, None),
        ]
        nfs = {"name": "arcvsa-nfs", "server": "192.0.2.21", "path": f"/{fleet_flows.DATASET}"}
        horizon = {"endpoint": "horizon.example.test:443", "username": "vdiadmin", "domain": "corp",
                   "vcenter": "vc.example.test"}  # fmt: skip
        for name, appliances, handed in (("fleet-b", second, {"pool": POOL, "horizon": horizon}),
                                         ("fleet-a", first, {})):  # fmt: skip
            fleet = {"ova_path": "x.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
                     "admin_password": fleet_flows.PASSWORD, "appliances": appliances}  # fmt: skip
            _deployment(admin, site, name=name, fleet=fleet, nfs=nfs, **handed)

        started = time.monotonic()
        r = admin.get("/api/fleet", params={"minutes": 15})
        took = time.monotonic() - started
        assert r.status_code == 200, r.text
        view = r.json()
        fleet_flows.fleet_flow(ApplianceApi(quiet.endpoint, quiet.thumbprint, name="vsa-1"))  # its pool built
        again = admin.get("/api/fleet", params={"minutes": 15}).json()
        series = ApplianceApi(busy.endpoint, busy.thumbprint)
        series.login(fleet_flows.PASSWORD)
        points = series.call("GET", "/api/storage/metrics?minutes=15")["points"]

    assert [d["name"] for d in view["deployments"]] == ["fleet-a", "fleet-b"]
    assert {(d["vcenter"], d["cluster"]) for d in view["deployments"]} == {("vc", CLUSTER)}
    assert [d["horizon"] for d in view["deployments"]] == [None, "horizon.example.test:443"]
    got = {a["name"]: a for d in view["deployments"] for a in d["appliances"]}
    states = {name: a["state"] for name, a in got.items()}
    assert states == {"vsa-0": "ok", "vsa-1": "ok", "vsa-2": "slow",
                      "vsb-0": "unreachable", "vsb-1": "certificate", "vsb-2": "unpinned"}  # fmt: skip
    # one dead and one silent appliance cost no more than one budget: they were read beside the others
    assert took < dashboard.TIMEOUT + 2.5, took
    assert got["vsa-2"]["seconds"] >= dashboard.TIMEOUT - 0.1 and got["vsb-0"]["seconds"] < 1.0
    assert got["vsa-2"]["reason"] == "no answer within 3 s"
    assert "presented a certificate" in got["vsb-1"]["reason"] and got["vsb-1"]["figures"] is None
    assert "cannot be reached" in got["vsb-0"]["reason"]

    busy_row = got["vsa-0"]
    assert len(points) == 3 and busy_row["backend"] == "ganesha" and busy_row["version"]
    assert (
        busy_row["figures"] == FleetFigures.model_validate(figures.combine(points, summed=False)).model_dump()
    )
    assert busy_row["figures"]["client_write_bytes"] > 0 and busy_row["figures"]["write_offload"] is not None
    assert 1 <= len(busy_row["series"]) <= 3
    assert [a["key"] for a in busy_row["alerts"]] == ["time/sync"] and busy_row["healthy"] is False
    assert got["vsa-1"]["figures"]["client_iops"] == 0.0 and got["vsa-1"]["series"] == []
    assert got["vsa-1"]["used_bytes"] == 0 and got["vsa-1"]["pools"] == []  # the recording's first look
    # the fleet's figures are the answering appliances' sums
    assert view["figures"]["client_write_bytes"] == pytest.approx(busy_row["figures"]["client_write_bytes"])
    assert [p["appliances"] for p in view["series"]] == [1] * len(busy_row["series"])

    # one login per appliance, kept for the next read
    assert sorted(logins) == sorted(["vsa-0", "vsa-1", "vsa-1", busy.endpoint]), logins
    assert {a["name"]: a["state"] for d in again["deployments"] for a in d["appliances"]} == states
    built = next(a for d in again["deployments"] for a in d["appliances"] if a["name"] == "vsa-1")
    assert [(p["name"], p["health"]) for p in built["pools"]] == [("tank", "ONLINE")]
    assert 0 < built["used_bytes"] < built["size_bytes"] == built["pools"][0]["size"]
    assert fleet_flows.PASSWORD not in r.text and "secret" not in r.text


def test_a_kept_appliance_session_that_ended_logs_in_once_more(tmp_path: Path) -> None:
    sessions = ApplianceSessions()
    with replayed_appliances(tmp_path / "fleet", 1, "fleet", fleet_flows.PASSWORD) as served:
        server = served[0][0]
        api = ApplianceApi(server.endpoint, server.thumbprint, name="vsa-0")
        alerts = sessions.read(api, fleet_flows.PASSWORD, "/api/alerts")
        assert [a["key"] for a in alerts] == ["time/sync"]  # the recording's chronyd, with no source
        kept = api.token
        ended = ApplianceApi(server.endpoint, server.thumbprint)
        ended.token = kept
        ended.call("POST", "/api/auth/logout")  # as an appliance restarted or a session that expired
        again = ApplianceApi(server.endpoint, server.thumbprint, name="vsa-0")
        assert sessions.read(again, fleet_flows.PASSWORD, "/api/alerts") == alerts
        assert again.token and again.token != kept
        wrong = ApplianceApi(server.endpoint, server.thumbprint, name="vsa-0")
        with pytest.raises(ApplianceLoginFailed):  # no token kept there: the password is asked
            ApplianceSessions().read(wrong, "not-the-password", "/api/alerts")
        with pytest.raises(ApplianceRequestRefused) as refused:
            sessions.read(again, fleet_flows.PASSWORD, "/api/storage/pools/nope")
    assert refused.value.status == 404, "only a 401 logs in again; any other refusal is the caller's"


def test_an_appliances_storage_routes_answer_through_the_manager_as_the_appliance_gives_them(
    admin: TestClient, site: Vcsim, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with replayed_appliances(tmp_path / "fleet", 1, "fleet", fleet_flows.PASSWORD) as served:
        server = served[0][0]
        appliances = [
            _appliance("vsa-0", "DC0_C0_H0", server.endpoint, server.thumbprint),
            _appliance("vsa-9", "DC0_C0_H1", "127.0.0.1:9", None),
        ]
        fleet = {"ova_path": "x.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
                 "admin_password": fleet_flows.PASSWORD, "appliances": appliances}  # fmt: skip
        dep = _deployment(admin, site, name="fleet-p", fleet=fleet)
        base = f"/api/fleet/{dep}/appliances/vsa-0"
        own = ApplianceApi(server.endpoint, server.thumbprint)
        own.login(fleet_flows.PASSWORD)

        disks = admin.get(f"{base}/api/storage/disks")
        assert disks.status_code == 200 and disks.json() == own.call("GET", "/api/storage/disks")
        week = admin.get(f"{base}/api/storage/metrics", params={"minutes": 10080})
        assert week.status_code == 200 and week.json()["points"] == []  # the query string goes along
        too_long = admin.get(f"{base}/api/storage/metrics", params={"minutes": 10081})
        assert too_long.status_code == 422 and too_long.json()["field"] == "minutes", too_long.text
        missing = admin.get(f"{base}/api/storage/pools/nope")  # the appliance's own refusal, word for word
        assert (missing.status_code, missing.json()) == own.exchange("GET", "/api/storage/pools/nope")
        bad = admin.post(f"{base}/api/storage/pools", json={"name": "tank"})  # no vdevs: refused there
        assert bad.status_code == 422 and bad.json()["field"], bad.text
        not_json = admin.post(
            f"{base}/api/storage/pools", content=b"{", headers={"content-type": "text/plain"}
        )
        assert not_json.status_code == 422 and "not JSON" in not_json.json()["detail"]

        for refused in ("api/users", "api/auth/token", "api/settings/tls", "api/storage/../users",
                        "api/storage//disks", "api/alertsx"):  # fmt: skip
            r = admin.get(f"{base}/{refused}")
            assert r.status_code == 404, (refused, r.text)
        assert admin.get(f"/api/fleet/{dep}/appliances/vsa-7/api/alerts").status_code == 404
        unpinned = admin.get(f"/api/fleet/{dep}/appliances/vsa-9/api/alerts")
        assert unpinned.status_code == 422 and "not known yet" in unpinned.json()["detail"]
        assert admin.get("/api/fleet/999/appliances/vsa-0/api/alerts").status_code == 404

        # An appliance that refuses even a fresh session is its fault, not the end of the browser's.
        monkeypatch.setattr(ApplianceSessions, "send", lambda *_: (401, {"detail": "Not authenticated"}))
        shut = admin.get(f"{base}/api/alerts")
        assert (shut.status_code, shut.json()["code"]) == (422, "appliance_refused"), shut.text
        assert "vsa-0" in shut.json()["detail"] and admin.get("/api/auth/me").status_code == 200
    assert fleet_flows.PASSWORD not in disks.text


def test_the_managers_alerts_are_its_appliances_each_named_and_they_reach_syslog(
    admin: TestClient, site: Vcsim, tmp_path: Path, rsyslog: Rsyslog, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[int] = []
    real_gather = fleet_alerts.gather

    def counted(*args: Any) -> Any:
        reads.append(1)
        return real_gather(*args)

    monkeypatch.setattr(fleet_alerts, "gather", counted)
    with replayed_appliances(tmp_path / "fleet", 1, "fleet", fleet_flows.PASSWORD) as served:
        server = served[0][0]
        appliances = [
            _appliance("vsa-0", "DC0_C0_H0", server.endpoint, server.thumbprint),
            _appliance("vsa-9", "DC0_C0_H1", "127.0.0.1:9", "CD" * 32),  # nothing listens there
            _appliance("vsa-5", "DC0_C0_H2", "127.0.0.1:9", None),  # not deployed yet: nothing to miss
        ]
        fleet = {"ova_path": "x.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
                 "admin_password": fleet_flows.PASSWORD, "appliances": appliances}  # fmt: skip
        _deployment(admin, site, name="fleet-n", fleet=fleet)
        listed = admin.get("/api/alerts")
        syslog = {"enabled": True, "host": "127.0.0.1", "port": rsyslog.tcp_port, "transport": "tcp"}
        r = admin.put("/api/settings/notifications", json={"smtp": {}, "syslog": syslog})
        assert r.status_code == 200, r.text
        sent = admin.app.state.alert_checker.run_once()  # type: ignore[attr-defined]
        again = admin.get("/api/alerts").json()

    assert listed.status_code == 200, listed.text
    got = [(a["key"], a["severity"], a["subject"]) for a in listed.json()]
    assert got == [
        ("fleet/fleet-n/vsa-9/unread", "critical", "vsa-9"),  # critical first
        ("fleet/fleet-n/vsa-0/time/sync", "warning", "vsa-0: time synchronisation"),
    ], got
    assert listed.json()[0]["message"].startswith(
        "the manager cannot read this appliance of deployment fleet-n: "
    )
    assert "cannot be reached" in listed.json()[0]["message"]
    assert again == listed.json() and len(reads) == 1, "the banner and the checker share one read"
    assert sent == {"syslog": 2}
    lines = rsyslog.lines(2)
    assert {line[4] for line in lines} == {"raised"}
    assert any("[fleet/fleet-n/vsa-9/unread]" in line[5] for line in lines), lines
    assert any("[fleet/fleet-n/vsa-0/time/sync]" in line[5] and "vsa-0" in line[5] for line in lines)


@pytest.mark.parametrize(
    ("state", "severity"),
    [("unreachable", "critical"), ("certificate", "critical"), ("slow", "warning"), ("refused", "warning")],
)
def test_an_appliance_the_manager_cannot_read_is_an_alert_by_why(state: str, severity: str) -> None:
    spec = ApplianceSpec.model_validate(_appliance("vsa-3", "DC0_C0_H0", "127.0.0.1:9", "AB" * 32))
    [alert] = fleet_alerts.named("fleet-q", {"spec": spec, "state": state, "reason": "vsa-3: because"})
    assert (alert.key, alert.severity, alert.subject) == ("fleet/fleet-q/vsa-3/unread", severity, "vsa-3")
    assert alert.message == "the manager cannot read this appliance of deployment fleet-q: because"
    assert fleet_alerts.named("fleet-q", {"spec": spec, "state": "unpinned", "reason": "not yet"}) == []


def test_every_appliance_is_backed_up_in_one_archive_and_one_that_fails_is_named(
    admin: TestClient, site: Vcsim, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fleet_backup, "KEEP", 1)
    passphrase = "correct horse battery"
    with replayed_appliances(tmp_path / "fleet", 2, "fleet", fleet_flows.PASSWORD) as served:
        (one, _), (two, _) = served
        first = [
            _appliance("vsa-0", "DC0_C0_H0", one.endpoint, one.thumbprint),
            _appliance("vsa-9", "DC0_C0_H1", "127.0.0.1:9", "CD" * 32),  # nothing listens there
            _appliance("vsa-5", "DC0_C0_H2", "127.0.0.1:9", None),
        ]
        second = [_appliance("vsb-0", "DC0_C0_H3", two.endpoint, two.thumbprint)]
        made = []
        for name, appliances in (("fleet-k", first), ("fleet-l", second)):
            fleet = {"ova_path": "x.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
                     "admin_password": fleet_flows.PASSWORD, "appliances": appliances}  # fmt: skip
            made.append(_deployment(admin, site, name=name, fleet=fleet))
        short = admin.post("/api/fleet/backups", json={"passphrase": "x" * 11})
        r = admin.post("/api/fleet/backups", json={"passphrase": passphrase})
        download = admin.get(f"/api/fleet/backups/{r.json()['name']}")
        only = admin.post("/api/fleet/backups", json={"passphrase": passphrase, "deployment_id": made[1]})
        none = admin.post("/api/fleet/backups", json={"passphrase": passphrase, "deployment_id": 999})

    assert short.status_code == 422 and short.json()["field"] == "passphrase"
    assert r.status_code == 201, r.text
    made_all = r.json()
    states = {a["appliance"]: (a["state"], a["file"]) for a in made_all["appliances"]}
    assert states == {
        "vsa-0": ("taken", "fleet-k/vsa-0.arcvsa-backup"),
        "vsa-9": ("failed", None),
        "vsa-5": ("not deployed", None),
        "vsb-0": ("taken", "fleet-l/vsb-0.arcvsa-backup"),
    }
    assert made_all["taken"] == 2
    assert "cannot be reached" in next(
        a["reason"] for a in made_all["appliances"] if a["appliance"] == "vsa-9"
    )
    assert [a["appliance"] for a in only.json()["appliances"]] == ["vsb-0"]
    assert none.status_code == 404

    assert download.status_code == 200 and download.headers["content-type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(download.content))
    assert sorted(archive.namelist()) == [
        "fleet-backup.json", "fleet-k/vsa-0.arcvsa-backup", "fleet-l/vsb-0.arcvsa-backup",
    ]  # fmt: skip
    for member in ("fleet-k/vsa-0.arcvsa-backup", "fleet-l/vsb-0.arcvsa-backup"):
        sealed = json.loads(
            archive.read(member)
        )  # each as its appliance wrote it: it opens with the passphrase
        assert sealed["format"] == "arcvsa-config-backup"
        assert envelope.unseal(json.dumps(sealed).encode(), passphrase)["sections"]
        assert fleet_flows.PASSWORD not in archive.read(member).decode()
    assert json.loads(archive.read("fleet-backup.json"))["appliances"] == made_all["appliances"]

    kept = admin.get("/api/fleet/backups").json()  # the newest KEEP
    assert [k["name"] for k in kept] == [only.json()["name"]] != [made_all["name"]]
    assert kept[0]["appliances"] == only.json()["appliances"] and kept[0]["taken"] == 1
    assert admin.get(f"/api/fleet/backups/{made_all['name']}").status_code == 404
    for bad in ("../arcvsa.db", "arcvsa-fleet-backup-x.zip", "nothing.zip"):
        assert admin.get(f"/api/fleet/backups/{bad}").status_code == 404, bad
