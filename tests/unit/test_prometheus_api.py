"""/api/metrics/prometheus and its scrape tokens, on the real app.

The appliance is the lab's ``metrics_series`` recording replayed strictly: the poller's passes publish
the appliance's state and store a sample each, as on the appliance, then a scrape reads arcstats live
(a file: what was recorded next) and the pools and alerts from the published state, never a tool.
The knfsd figures come from the ``metrics_knfsd`` recording, the fault states
from the recorded healthy pool with a LUN's state changed as ``zpool status`` reports a fault (as
test_api_alerts does). Every exposition goes through ``promtool check metrics``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance.replay import ReplayRunner, load, replay_log
from support.any_recording import AnyRecordingRunner
from support.api import client_for, logged_in, make_settings
from support.routes import guarded_routes, sample_url
from test_prometheus_exposition import promtool_check

from api.alerts.service import pool_alerts
from api.metrics import sampler, series, store
from api.metrics.schemas import Sample
from api.prometheus.collect import alert_families, pool_families, sample_families
from api.prometheus.exposition import render
from api.state import poll
from appliance.control import metrics
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway
from appliance.control.observed import Part
from appliance.control.pools import ZfsPoolSpace, parse_status

URL = "/api/metrics/prometheus"
ZPOOL_LIST = ["zpool", "list", "-j", "--json-int"]
ZPOOL_STATUS = ["zpool", "status", "-j", "--json-int", "tank"]
_SAMPLE = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)")
_LABEL = re.compile(r'([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"')

Series = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(text: str) -> Series:
    """{(name, labels): value} of an exposition (label values as written; the tests use plain ones)."""
    out: Series = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        found = _SAMPLE.fullmatch(line)
        assert found, f"not a sample line: {line!r}"
        labels = frozenset(_LABEL.findall(found.group(2) or ""))
        out[(found.group(1), labels)] = float(found.group(3))
    return out


def value(found: Series, name: str, **labels: str) -> float:
    return found[(name, frozenset(labels.items()))]


def names(found: Series) -> set[str]:
    return {name for name, _ in found}


def _store(client: TestClient, sample: Sample) -> None:
    with client.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        store.add(db, sample)
        db.commit()


def _pass(client: TestClient) -> Sample:
    """One pass of the poller as Sampler.run_once makes it, over the parts the recordings hold (SAMPLED):
    publish the appliance's state, then store the sample taken from that state."""
    state = client.app.state  # type: ignore[attr-defined]
    gw, files = state.storage_gateway, state.storage_files
    published = poll.refresh(state.snapshot, gw, files, state.sessionmaker, state.settings, sampler.SAMPLED)
    sample = sampler.collect(gw, files, published.observed)
    _store(client, sample)
    return sample


@pytest.fixture
def appliance(tmp_path: Path) -> tuple[TestClient, ReplayRunner, Sample]:
    """A logged-in api on the metrics_series recording after two passes of the poller; the second's sample."""
    client = logged_in(client_for(make_settings(tmp_path / "data")))
    gw, files, runner = replay_log("metrics_series", tmp_path / "root")
    client.app.state.storage_gateway, client.app.state.storage_files = gw, files  # type: ignore[attr-defined]
    _pass(client)
    return client, runner, _pass(client)


def _nowhere(client: TestClient, tmp_path: Path) -> AnyRecordingRunner:
    """No appliance under the api: every tool missing (as on a developer's machine), no arcstats."""
    runner = AnyRecordingRunner([])
    client.app.state.storage_gateway = Gateway(runner)  # type: ignore[attr-defined]
    client.app.state.storage_files = LocalFiles(tmp_path / "empty")  # type: ignore[attr-defined]
    return runner


def test_a_scrape_shows_the_recorded_appliance(appliance: tuple[TestClient, ReplayRunner, Sample]) -> None:
    client, runner, sample = appliance
    polled = len(runner.calls)
    r = client.get(URL)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert promtool_check(r.text) == ""
    # pools and alerts from the published state, LUN and NFS figures from the row: no tool runs
    assert runner.calls[polled:] == []
    found = parse(r.text)
    for source in ("arc", "pools", "alerts", "sample"):
        assert value(found, "arcvsa_collector_success", collector=source) == 1

    recording = load("metrics_series")
    arcstats = [e["text"] for e in recording["read_log"] if e["path"] == metrics.ARCSTATS]
    arc = metrics.parse_arcstats(arcstats[2])  # the two passes read the first two
    assert value(found, "arcvsa_arc_hits_total") == arc.hits
    assert value(found, "arcvsa_arc_misses_total") == arc.misses
    assert value(found, "arcvsa_arc_max_size_bytes") == arc.max and arc.max > 0
    assert value(found, "arcvsa_l2arc_size_bytes") == arc.l2_size
    assert value(found, "arcvsa_l2arc_written_bytes_total") == arc.l2_write_bytes

    lists = [c["stdout"] for c in recording["commands"] if c["argv"] == ZPOOL_LIST]
    assert lists[0] != lists[1]  # so the figures below are the newest pass's
    listed = json.loads(lists[1])  # the state the second pass published
    props = listed["pools"]["tank"]["properties"]
    assert value(found, "arcvsa_pool_size_bytes", pool="tank") == props["size"]["value"]
    assert value(found, "arcvsa_pool_allocated_bytes", pool="tank") == props["allocated"]["value"]
    assert value(found, "arcvsa_pool_free_bytes", pool="tank") == props["free"]["value"]
    health = {dict(labels)["state"]: v for (name, labels), v in found.items() if name == "arcvsa_pool_health"}
    assert health["ONLINE"] == 1 and sum(health.values()) == 1 and len(health) == 7
    assert value(found, "arcvsa_alerts_active", severity="critical") == 0
    assert "arcvsa_alert_active" not in names(found)  # a healthy pool raises nothing

    assert set(sample.luns) == {"tank/vdb1", "tank/vdc1"}  # the data LUNs; SLOG and L2ARC left out
    for key, lun in sample.luns.items():
        where = dict(zip(("pool", "device"), key.split("/"), strict=True))
        assert value(found, "arcvsa_lun_read_bytes_total", **where) == lun.read_bytes
        assert value(found, "arcvsa_lun_written_bytes_total", **where) == lun.write_bytes
        assert value(found, "arcvsa_lun_writes_total", **where) == lun.write_ops
        assert value(found, "arcvsa_lun_write_time_seconds_total", **where) == pytest.approx(
            lun.write_ms / 1000
        )
    export = sample.exports[0]
    where = {"backend": "ganesha", "export_id": "101", "path": "/tank/ds1"}
    assert value(found, "arcvsa_nfs_written_bytes_total", **where) == export.write_bytes
    assert value(found, "arcvsa_nfs_io_time_seconds_total", **where) == pytest.approx(export.latency_ns / 1e9)
    assert value(found, "arcvsa_nfs_export_info", **where, dataset="tank/ds1") == 1
    ds1 = next(d for d in sample.datasets if d.name == "tank/ds1")
    assert ds1.compressratio == pytest.approx(1.59)  # the second pass's zfs get (the first's was 1.01)
    assert value(found, "arcvsa_dataset_compress_ratio", dataset="tank/ds1") == pytest.approx(1.59)
    assert value(found, "arcvsa_sample_timestamp_seconds") == pytest.approx(sample.t.timestamp())


def test_offload_from_the_counters_is_what_the_api_computes(tmp_path: Path) -> None:
    """PromQL's rate ratio over two scrapes' counters gives the write offload /api/storage/metrics shows."""
    gw, files, _ = replay_log("metrics_series", tmp_path / "root")
    before, after = sampler.take(gw, files), sampler.take(gw, files)
    was, now = (parse(render(sample_families(s))) for s in (before, after))

    def grown(name: str) -> float:
        return sum(v - was[k] for k, v in now.items() if k[0] == name)

    offload = grown("arcvsa_nfs_written_bytes_total") / grown("arcvsa_lun_written_bytes_total")
    expected = series.point(before, after)
    assert expected is not None and expected.write_offload is not None
    assert offload == pytest.approx(expected.write_offload) and offload > 1


def test_knfsd_counts_one_server_wide_series(tmp_path: Path) -> None:
    gw, files, _ = replay_log("metrics_knfsd", tmp_path / "root")
    sample = sampler.take(gw, files)  # ganesha not answering on DBus: knfsd's counters
    assert sample.backend == "knfsd"
    text = render(sample_families(sample))
    assert promtool_check(text) == ""
    found = parse(text)
    server = sample.clients["server"]
    assert value(found, "arcvsa_nfs_read_bytes_total", backend="knfsd") == server.read_bytes
    assert value(found, "arcvsa_nfs_written_bytes_total", backend="knfsd") == server.write_bytes
    assert "arcvsa_nfs_io_time_seconds_total" not in names(found)  # knfsd keeps no time
    info = [dict(labels) for (name, labels), _ in found.items() if name == "arcvsa_nfs_export_info"]
    assert [(i["backend"], i["export_id"]) for i in info] == [("knfsd", "102")]


def test_faults_show_as_health_and_alert_gauges() -> None:
    listed = next(c for c in load("pool")["commands"] if c["argv"] == ZPOOL_STATUS and c["exit_code"] == 0)
    healthy = parse_status(listed["stdout"], "tank")
    vdevs = [
        v.model_copy(update={"state": "FAULTED"}) if v.name == "virtio-lun0" else v for v in healthy.vdevs
    ]
    degraded = healthy.model_copy(update={"state": "DEGRADED", "vdevs": vdevs})
    pools = [
        ZfsPoolSpace(name="tank", size=4 << 30, allocated=1 << 30, free=3 << 30, health="DEGRADED"),
        ZfsPoolSpace(name="cold", size=1, allocated=0, free=1, health="SUSPENDED"),
    ]
    text = render([*pool_families(pools), *alert_families(pool_alerts(degraded))])
    assert promtool_check(text) == ""
    found = parse(text)
    assert value(found, "arcvsa_pool_health", pool="tank", state="DEGRADED") == 1
    assert value(found, "arcvsa_pool_health", pool="tank", state="ONLINE") == 0
    assert value(found, "arcvsa_pool_health", pool="cold", state="SUSPENDED") == 1
    alerts = {
        dict(labels)["key"]: dict(labels)["severity"]
        for (n, labels), _ in found.items()
        if n == "arcvsa_alert_active"
    }
    assert alerts == {"pool/tank/degraded": "warning", "pool/tank/device/virtio-lun0/faulted": "critical"}
    assert value(found, "arcvsa_alerts_active", severity="critical") == 1
    assert value(found, "arcvsa_alerts_active", severity="warning") == 1
    # a state this code does not know yet is shown, not dropped
    odd = parse(
        render(pool_families([ZfsPoolSpace(name="tank", size=1, allocated=0, free=1, health="SPLIT")]))
    )
    assert value(odd, "arcvsa_pool_health", pool="tank", state="SPLIT") == 1


def test_without_an_appliance_the_scrape_says_what_it_could_not_read(
    admin: TestClient, tmp_path: Path
) -> None:
    runner = _nowhere(admin, tmp_path)
    r = admin.get(URL)
    assert r.status_code == 200, r.text
    assert promtool_check(r.text) == ""
    found = parse(r.text)
    assert {
        dict(labels)["collector"]: v for (n, labels), v in found.items() if n == "arcvsa_collector_success"
    } == {
        "arc": 0,
        "pools": 0,
        "alerts": 0,
        "sample": 0,
    }
    assert names(found) == {"arcvsa_build_info", "arcvsa_collector_success"}
    assert runner.calls == []  # no state published: nothing to show, and no tool is run to find more


def test_a_pass_that_could_not_read_the_pools_shows_as_a_failed_source_and_an_alert(
    admin: TestClient, tmp_path: Path
) -> None:
    runner = _nowhere(admin, tmp_path)
    poll.after_change(admin.app.state, {Part.pools})  # type: ignore[attr-defined]
    assert runner.misses == [ZPOOL_LIST]  # the pass tried zpool and found it missing
    r = admin.get(URL)
    assert r.status_code == 200, r.text
    assert promtool_check(r.text) == ""
    found = parse(r.text)
    assert value(found, "arcvsa_collector_success", collector="pools") == 0
    assert value(found, "arcvsa_collector_success", collector="alerts") == 1
    assert value(found, "arcvsa_alert_active", key="pools/status", severity="critical", subject="pools") == 1
    assert value(found, "arcvsa_alerts_active", severity="critical") == 1
    assert "arcvsa_pool_size_bytes" not in names(found)
    assert len(runner.calls) == 1  # the scrape itself ran nothing


# --- credentials ---------------------------------------------------------------------------------


def _token(admin: TestClient, name: str = "prometheus-dc1") -> dict[str, Any]:
    r = admin.post("/api/metrics/scrape-tokens", json={"name": name})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_scrape_needs_credentials(admin: TestClient, tmp_path: Path) -> None:
    _nowhere(admin, tmp_path)
    scrape = _token(admin)["token"]
    session = admin.post(
        "/api/auth/token", json={"username": "admin", "password": "correct horse battery staple"}
    )
    anon = client_for(make_settings(tmp_path / "other"))
    anon.app.state.storage_gateway = admin.app.state.storage_gateway  # type: ignore[attr-defined]
    refused = {
        "no credentials": {},
        "unknown scrape token": _bearer(scrape[:-4] + "AAAA"),
        "bare prefix": _bearer("arcvsa_scrape_"),
        "forged session token": _bearer("forged-" + session.json()["token"][7:]),
        "scrape token as basic auth": {"Authorization": f"Basic {scrape}"},
    }
    for name, headers in refused.items():
        r = anon.get(URL, headers=headers)
        assert r.status_code == 401, name
        assert r.json()["code"] == "not_authenticated" and r.headers["www-authenticate"] == "Bearer", name
    assert anon.get(URL, params={"token": scrape}).status_code == 401  # never from the query string
    # a scrape token of another appliance (another database) is unknown here
    assert anon.get(URL, headers=_bearer(scrape)).status_code == 401


def test_a_scrape_token_or_a_session_reads_the_metrics(admin: TestClient, tmp_path: Path) -> None:
    _nowhere(admin, tmp_path)
    created = _token(admin)
    assert created["token"].startswith("arcvsa_scrape_") and len(created["token"]) > 50
    assert created["created_by"] == "admin" and created["last_used_at"] is None
    cookies = dict(admin.cookies)
    admin.cookies.clear()
    assert admin.get(URL, headers=_bearer(created["token"])).status_code == 200
    session = admin.post(
        "/api/auth/token", json={"username": "admin", "password": "correct horse battery staple"}
    )
    assert admin.get(URL, headers=_bearer(session.json()["token"])).status_code == 200
    admin.cookies.update(cookies)
    assert admin.get(URL).status_code == 200  # the web's cookie session
    (listed,) = admin.get("/api/metrics/scrape-tokens").json()
    assert listed["last_used_at"] is not None and "token" not in listed


def test_a_scrape_token_opens_nothing_else(admin: TestClient, tmp_path: Path) -> None:
    runner = _nowhere(admin, tmp_path)
    token = _token(admin)["token"]
    admin.cookies.clear()
    routes = [r for r in guarded_routes(admin.app) if r != ("GET", URL)]  # type: ignore[arg-type]
    assert ("POST", "/api/metrics/scrape-tokens") in routes and len(routes) >= 40
    let_in = []
    for method, path in routes:
        before = len(runner.calls)
        r = admin.request(method, sample_url(path), json={}, headers=_bearer(token))
        if r.status_code != 401 or r.json().get("code") != "not_authenticated" or len(runner.calls) > before:
            let_in.append(f"{method} {path} → {r.status_code}")
    assert let_in == []


def test_a_revoked_token_is_refused_from_the_next_scrape(admin: TestClient, tmp_path: Path) -> None:
    _nowhere(admin, tmp_path)
    first, second = _token(admin, "first"), _token(admin, "second")
    r = admin.delete(f"/api/metrics/scrape-tokens/{first['id']}")
    assert r.status_code == 204
    assert admin.get(URL, headers=_bearer(first["token"])).status_code == 401
    assert admin.get(URL, headers=_bearer(second["token"])).status_code == 200
    assert [t["name"] for t in admin.get("/api/metrics/scrape-tokens").json()] == ["second"]
    r = admin.delete(f"/api/metrics/scrape-tokens/{first['id']}")
    assert r.status_code == 404 and r.json()["code"] == "not_found"


def test_token_names_are_checked_and_unique(admin: TestClient) -> None:
    _token(admin, "prom.dc-1_a")
    r = admin.post("/api/metrics/scrape-tokens", json={"name": "prom.dc-1_a"})
    assert r.status_code == 409 and r.json()["code"] == "conflict" and r.json()["field"] == "name"
    for bad in ("", "-lead", "has space", "x" * 65, "new\nline"):
        r = admin.post("/api/metrics/scrape-tokens", json={"name": bad})
        assert r.status_code == 422 and r.json()["code"] == "invalid_input", bad
    r = admin.delete("/api/metrics/scrape-tokens/10696329387716812734464")
    assert r.status_code == 422 and r.json()["code"] == "invalid_input"


def test_the_token_is_kept_only_as_its_hash_and_never_logged(
    admin: TestClient, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _nowhere(admin, tmp_path)
    caplog.set_level(logging.DEBUG)
    token = _token(admin)["token"]
    assert admin.get(URL, headers=_bearer(token)).status_code == 200
    assert admin.get(URL, headers=_bearer(token + "x")).status_code == 401
    assert caplog.records and token not in caplog.text
    stored = b"".join(p.read_bytes() for p in sorted(tmp_path.glob("arcvsa.db*")))
    assert stored and token.encode() not in stored
    assert hashlib.sha256(token.encode()).hexdigest().encode() in stored
