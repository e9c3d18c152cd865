"""/api/alerts for a full pool, a collapsed ARC hit ratio, a slow LUN and a certificate near expiry.

Each test goes through the real app: the pool is the lab's recorded ``zpool list``/``zpool status``
(pool recording), replayed strictly, with the allocation changed as ``zpool list`` reports a fuller
pool; the metric samples are rows in the app's own database (what the sampler stores), and the
certificate is one first boot's own code makes, dated so that it nears its end. The pool's and the
samples' alerts are derived when the appliance's state is published (a poller's pass: ``_pass``), so
each test stores its samples, publishes, then reads; the certificate's is read as /api/alerts is asked.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from fixtures.appliance import api_flows
from fixtures.appliance.replay import ReplayRunner, load

from api.certificate.service import paths
from api.metrics import store
from api.metrics.schemas import LunCounters, Sample
from api.state import poll
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway
from appliance.control.observed import Part
from appliance.firstboot.tls import VALID_DAYS, self_signed

LUN = "tank/sdb"


def _recorded(argv_head: list[str]) -> dict[str, Any]:
    commands: list[dict[str, Any]] = load("pool")["commands"]
    return next(c for c in commands if c["argv"][: len(argv_head)] == argv_head and c["exit_code"] == 0)


def _listed(percent: float | None = None) -> dict[str, Any]:
    """The recorded ``zpool list``, with ``percent`` of the pool allocated when given."""
    entry = dict(_recorded(["zpool", "list", "-j", "--json-int"]))
    if percent is not None:
        data = json.loads(entry["stdout"])
        props = data["pools"]["tank"]["properties"]
        props["allocated"]["value"] = int(props["size"]["value"] * percent / 100)
        props["free"]["value"] = props["size"]["value"] - props["allocated"]["value"]
        props["capacity"]["value"] = int(percent)
        entry["stdout"] = json.dumps(data)
    return entry


def _app(tmp_path: Path, runner: ReplayRunner) -> TestClient:
    """A logged-in api whose tools answer from ``runner``, no state published yet (what publishes it, and
    when, is each test's)."""
    return api_flows.client(tmp_path / "data", Gateway(runner), LocalFiles(tmp_path / "root"), publish=False)


def _client(tmp_path: Path, passes: int = 1, percent: float | None = None) -> tuple[TestClient, ReplayRunner]:
    """An app whose poller will make ``passes`` passes over the recorded (healthy) pool."""
    status = _recorded(["zpool", "status", "-j", "--json-int", "tank"])
    runner = ReplayRunner({"commands": [_listed(percent), status] * passes})
    c = _app(tmp_path, runner)
    return c, runner


def _pass(c: TestClient) -> None:
    """One pass of the state poller over the pools: observe, derive the alerts (with the stored samples),
    publish."""
    poll.after_change(c.app.state, {Part.pools})  # type: ignore[attr-defined]


def _alerts(c: TestClient) -> dict[str, dict[str, Any]]:
    r = c.get("/api/alerts")
    assert r.status_code == 200, r.text
    return {a["key"]: a for a in r.json()}


def test_a_pool_over_80_percent_warns_and_over_90_is_critical(tmp_path: Path) -> None:
    for percent, severity in ((79.0, None), (85.0, "warning"), (95.0, "critical")):
        c, runner = _client(tmp_path / str(percent), percent=percent)
        _pass(c)
        alert = _alerts(c).get("pool/tank/capacity")
        assert (alert and alert["severity"]) == severity, percent
        assert runner.pending == []
        if alert:
            assert f"{percent:.0f} % full" in alert["message"] and "add a LUN" in alert["message"]


def test_alerts_answer_from_the_published_state_until_a_change_republishes_it(tmp_path: Path) -> None:
    """Reads run no tool, however many; a change through the api publishes the parts it touched before it
    answers, so the next read shows the change's effect without waiting for the poller."""
    commands: list[dict[str, Any]] = load("pool")["commands"]
    destroyed = next(c for c in commands if c["argv"] == ["zfs", "destroy", "tank/desktop1"])
    listed = next(
        c for c in commands if c["argv"][:5] == ["zfs", "get", "-j", "--json-int", "-p"] and "-r" in c["argv"]
    )
    status = _recorded(["zpool", "status", "-j", "--json-int", "tank"])
    runner = ReplayRunner({"commands": [_listed(95.0), status, destroyed, _listed(40.0), status, listed]})
    c = _app(tmp_path, runner)
    _pass(c)
    polled = len(runner.calls)
    assert [_alerts(c)["pool/tank/capacity"]["severity"] for _ in range(3)] == ["critical"] * 3
    assert len(runner.calls) == polled  # three reads, no tool
    assert c.delete("/api/storage/datasets/tank/desktop1").status_code == 204
    assert "pool/tank/capacity" not in _alerts(c)  # published by the change, before it answered
    assert runner.pending == []


def _store(c: TestClient, samples: list[Sample]) -> None:
    with c.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        for s in samples:
            store.add(db, s)
        db.commit()


def _sample(t: dt.datetime, hits: int, misses: int, lun: LunCounters | None = None) -> Sample:
    return Sample(
        t=t, arc_hits=hits, arc_misses=misses, l2_hits=0, l2_misses=0, arc_size=1 << 30, l2_size=0,
        luns={LUN: lun or LunCounters()},
    )  # fmt: skip


def _arc_run(start: dt.datetime, ratios: list[float], lookups_per_s: int) -> list[Sample]:
    """Samples 10 s apart whose intervals have the given hit ratios."""
    hits = misses = 0
    out = [_sample(start, 0, 0)]
    for i, ratio in enumerate(ratios, 1):
        n = lookups_per_s * 10
        hits += int(n * ratio)
        misses += n - int(n * ratio)
        out.append(_sample(start + dt.timedelta(seconds=10 * i), hits, misses))
    return out


def test_arc_hit_ratio_collapse_fires_after_a_healthy_spell_and_clears(tmp_path: Path) -> None:
    c, runner = _client(tmp_path, passes=2)
    start = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=3)
    healthy, collapsed = [0.95] * 8, [0.2] * 6
    _store(c, _arc_run(start, healthy + collapsed, lookups_per_s=2000))
    _pass(c)
    alert = _alerts(c)["arc/hit-ratio"]
    assert alert["severity"] == "warning" and "20%" in alert["message"]
    # Recovered: six good intervals again, and the alert is gone.
    recovered = _arc_run(start, healthy + collapsed + [0.95] * 6, lookups_per_s=2000)
    _store(c, recovered[len(healthy) + len(collapsed) + 1 :])
    _pass(c)
    assert "arc/hit-ratio" not in _alerts(c)
    assert runner.pending == []


def test_a_low_hit_ratio_raises_nothing_when_idle_or_never_healthy(tmp_path: Path) -> None:
    idle, _ = _client(tmp_path / "idle")
    start = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=3)
    _store(idle, _arc_run(start, [0.95] * 8 + [0.1] * 6, lookups_per_s=20))  # a few lookups a second
    _pass(idle)
    assert "arc/hit-ratio" not in _alerts(idle)
    streaming, _ = _client(tmp_path / "streaming")
    _store(streaming, _arc_run(start, [0.3] * 14, lookups_per_s=2000))  # low from the start: its nature
    _pass(streaming)
    assert "arc/hit-ratio" not in _alerts(streaming)


def _lun_run(start: dt.datetime, per_interval: list[tuple[int, int]]) -> list[Sample]:
    """Samples 10 s apart; each interval does (ops, ms spent) of writes on the LUN."""
    ops = ms = 0
    out = [_sample(start, 0, 0)]
    for i, (n, spent) in enumerate(per_interval, 1):
        ops, ms = ops + n, ms + spent
        out.append(
            _sample(start + dt.timedelta(seconds=10 * i), 0, 0, LunCounters(write_ops=ops, write_ms=ms))
        )
    return out


def test_a_slow_lun_warns_is_critical_past_a_second_and_clears(tmp_path: Path) -> None:
    c, runner = _client(tmp_path, passes=3)
    start = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=3)
    slow = [(500, 500 * 150)] * 6  # 50 writes/s at 150 ms each
    samples = _lun_run(start, slow)
    _store(c, samples)
    _pass(c)
    alert = _alerts(c)["pool/tank/device/sdb/latency"]
    assert alert["severity"] == "warning" and "150 ms" in alert["message"] and "sdb" in alert["subject"]
    stalled = _lun_run(start, slow + [(100, 100 * 3000)] * 6)[len(slow) + 1 :]  # 10 writes/s at 3 s
    _store(c, stalled)
    _pass(c)
    assert _alerts(c)["pool/tank/device/sdb/latency"]["severity"] == "critical"
    fine = _lun_run(start, slow + [(100, 100 * 3000)] * 6 + [(500, 500 * 2)] * 6)[len(slow) + 7 :]
    _store(c, fine)
    _pass(c)
    assert "pool/tank/device/sdb/latency" not in _alerts(c)
    assert runner.pending == []


def test_one_slow_write_on_an_idle_lun_raises_nothing(tmp_path: Path) -> None:
    c, _ = _client(tmp_path)
    start = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    _store(c, _lun_run(start, [(0, 0)] * 5 + [(1, 900)]))
    _pass(c)
    assert not any(k.endswith("/latency") for k in _alerts(c))


def _certificate(data_dir: Path, days_left: float) -> None:
    issued = dt.datetime.now(dt.UTC) - dt.timedelta(days=VALID_DAYS - days_left)
    cert, key = self_signed("vsa.example", None, issued + dt.timedelta(minutes=5))
    cert_path, key_path = paths(data_dir)
    cert_path.write_bytes(cert)
    key_path.write_bytes(key)


def test_certificate_near_expiry_warns_then_is_critical_and_clears_when_renewed(tmp_path: Path) -> None:
    """The certificate is the api's own, read as /api/alerts is asked: one pass published the pool's state
    and each read shows the certificate of the moment, with no pass and no tool between."""
    c, runner = _client(tmp_path)
    _pass(c)
    polled = len(runner.calls)
    data_dir = tmp_path / "data"
    for days, severity in ((200, None), (20, "warning"), (3, "critical"), (-2, "critical")):
        _certificate(data_dir, days)
        alert = _alerts(c).get("certificate/expiry")
        assert (alert and alert["severity"]) == severity, days
        if days < 0:
            assert alert and "expired on" in alert["message"] and "refuse it now" in alert["message"]
        elif alert:
            assert f"({days - 1} days left)" in alert["message"] or f"({days} days left)" in alert["message"]
    assert len(runner.calls) == polled
