"""/api/storage/metrics on a real SQLite database seeded by the store; the sampler (a service of its own,
not the api) on the replay of what it read in the lab VM."""

from __future__ import annotations

import logging
import os
import shutil
import socket
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance.replay import load, replay_log
from sqlalchemy import func, select
from support.any_recording import AnyRecordingRunner, every_recording
from support.api import client_for, logged_in, make_settings

from api.calibration.table import Calibration
from api.metrics import sampler, store
from api.metrics.schemas import ClientCounters, DatasetSpace, ExportCounters, LunCounters, Sample
from api.privileged.client import OverSocket
from api.state.snapshot import Store
from api.storage import changes
from appliance.control import errors as ctl
from appliance.control import zed
from appliance.control.files import Files, LocalFiles
from appliance.control.gateway import Gateway

MIB = 1 << 20


def _sample(t: datetime, n: int) -> Sample:
    """The n-th sample of a steady load: 4 MiB/s client reads, 1 MiB/s of them from the LUN."""
    return Sample(
        t=t,
        arc_hits=900 * n,
        arc_misses=100 * n,
        l2_hits=0,
        l2_misses=0,
        arc_size=2 << 30,
        arc_max=3 << 30,
        l2_size=0,
        luns={"tank/vdb1": LunCounters(read_ops=10 * n, read_bytes=10 * MIB * n, read_ms=20 * n)},
        backend="ganesha",
        clients={"export:101": ClientCounters(read_ops=100 * n, read_bytes=40 * MIB * n)},
        exports=[
            ExportCounters(export_id=101, path="/tank/ds1", dataset="tank/ds1", read_bytes=40 * MIB * n)
        ],
        datasets=[
            DatasetSpace(name="tank", mountpoint="/tank", used=100, logical_used=180, compressratio=1.8),
            DatasetSpace(
                name="tank/ds1", mountpoint="/tank/ds1", used=90, logical_used=171, compressratio=1.9
            ),
        ],
        pool_roots=["tank"],
    )


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return logged_in(client_for(make_settings(tmp_path / "data")))


def _seed(client: TestClient, samples: list[Sample]) -> None:
    with client.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        for s in samples:
            store.add(db, s)
        db.commit()


def test_series_over_the_asked_minutes(client: TestClient) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    # one sample every 10 s for the last 30 min, and an old one long before
    _seed(client, [_sample(now - timedelta(days=2), 0)])
    _seed(client, [_sample(now - timedelta(seconds=10 * (180 - n)), n) for n in range(1, 181)])
    r = client.get("/api/storage/metrics", params={"minutes": 5})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["interval_seconds"] == 10
    points = body["points"]
    assert len(points) == 30  # 5 min of 10 s samples (the one before the span starts the first interval)
    last = points[-1]
    assert last["client_read_bytes"] == pytest.approx(4 * MIB)
    assert last["lun_read_bytes"] == pytest.approx(MIB)
    assert last["read_offload"] == pytest.approx(4.0) and last["write_offload"] is None
    assert last["arc_hit_ratio"] == pytest.approx(0.9) and last["lun_read_latency_ms"] == pytest.approx(2.0)
    assert last["compressratio"] == pytest.approx(1.8)
    assert datetime.fromisoformat(last["t"]) == now
    # the default is 60 min: every sample but the old one (whose gap of 2 days is one long interval)
    assert len(client.get("/api/storage/metrics").json()["points"]) == 180


def test_summary_cards_and_arc(client: TestClient) -> None:
    assert client.get("/api/storage/metrics/summary").json()["t"] is None
    now = datetime.now(UTC)
    _seed(client, [_sample(now - timedelta(seconds=10), 1), _sample(now, 2)])
    body = client.get("/api/storage/metrics/summary").json()
    assert body["backend"] == "ganesha" and body["arc_size"] == 2 << 30 and body["arc_max"] == 3 << 30
    assert body["arc_hit_ratio"] == pytest.approx(0.9)
    assert body["exports"] == [
        {
            "export_id": 101,
            "dataset": "tank/ds1",
            "path": "/tank/ds1",
            "compressratio": 1.9,
            "used": 90,
            "logical_used": 171,
            "client_read_bytes": pytest.approx(4 * MIB),
            "client_write_bytes": 0.0,
        }
    ]


def test_metrics_need_login_and_a_sane_span(tmp_path: Path, client: TestClient) -> None:
    anon = client_for(make_settings(tmp_path / "other"))
    assert anon.get("/api/storage/metrics").status_code == 401
    assert anon.get("/api/storage/metrics/summary").status_code == 401
    r = client.get("/api/storage/metrics", params={"minutes": 0})
    assert r.status_code == 422 and r.json()["code"] == "invalid_input"


def test_store_keeps_the_newest_rows(client: TestClient) -> None:
    now = datetime.now(UTC)
    _seed(client, [_sample(now + timedelta(seconds=n), n) for n in range(10)])
    with client.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        assert store.prune(db, 4) == 6
        db.commit()
        assert db.scalar(select(func.count()).select_from(store.MetricSample)) == 4
        assert [s.arc_hits for s in store.latest(db, 10)] == [5400, 6300, 7200, 8100]
        assert store.prune(db, 4) == 0


def test_a_stored_sample_is_parsed_once_and_each_database_reads_its_own(tmp_path: Path) -> None:
    """The alerts read half an hour of samples every few seconds: each row is parsed once (its text is
    the key, so two databases with the same row ids never see each other's samples)."""
    now = datetime.now(UTC)
    first, second = (logged_in(client_for(make_settings(tmp_path / d))) for d in ("a", "b"))
    _seed(first, [_sample(now + timedelta(seconds=n), n) for n in range(3)])
    _seed(second, [_sample(now + timedelta(seconds=n), n + 7) for n in range(3)])
    for client, hits in ((first, [0, 900, 1800]), (second, [6300, 7200, 8100])):
        with client.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
            again = store.since(db, now - timedelta(minutes=1))
            assert [s.arc_hits for s in again] == hits
            assert all(
                a is b for a, b in zip(again, store.since(db, now - timedelta(minutes=1)), strict=True)
            )
            assert store.latest(db, 1)[0] is again[-1]


def _rows(client: TestClient) -> int:
    with client.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        return int(db.scalar(select(func.count()).select_from(store.MetricSample)) or 0)


def test_the_api_itself_samples_nothing_on_an_appliance(tmp_path: Path) -> None:
    c = client_for(make_settings(tmp_path / "data", metrics_interval_seconds=1))
    gw, files, runner = replay_log("metrics_series", tmp_path / "root")  # arcstats present
    c.app.state.storage_gateway, c.app.state.storage_files = gw, files
    with c:
        time.sleep(1.5)
    assert _rows(c) == 0 and not runner.calls  # the sampler is a service of its own


def _service_tools(root: Path) -> tuple[Gateway, Files, AnyRecordingRunner]:
    """The service's tools: a pass observes more than the sampler's recording holds (disks, imports, the
    NFS services), so the other recordings fill those in; what the sampler's recording holds answers from
    it alone (its pools, then their disks' by-id paths), and the files are its own, pass by pass."""
    _, files, _ = replay_log("metrics_series", root)
    files.write(zed.ZEDLET, zed.ZEDLET_TEXT, mode=0o755)  # as the poller's first start left it
    runner = AnyRecordingRunner(every_recording(), first=load("metrics_series"))
    return Gateway(runner), files, runner


def test_the_service_samples_on_an_appliance_until_stopped(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "data", metrics_interval_seconds=1)
    c = client_for(settings)  # the api made and migrated the database
    gw, files, runner = _service_tools(tmp_path / "root")
    stop = threading.Event()
    codes: list[int] = []
    service = threading.Thread(target=lambda: codes.append(sampler.serve(settings, gw, files, stop)))
    service.start()
    deadline = time.monotonic() + 10
    while _rows(c) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    service.join(10)
    assert not service.is_alive() and codes == [0]
    assert _rows(c) >= 2  # passes of the recording, one per second, in the api's database
    # the first pass reconciles (what ganesha serves, against no stored export; the firewall, adopted
    # with SSH as found and its rule set loaded), then observes
    assert runner.calls[0][-2:] == ["org.ganesha.nfsd.exportmgr", "ShowExports"]
    assert runner.calls[1:3] == [["nft", "-c", "-f", "/dev/stdin"], ["nft", "-f", "/dev/stdin"]]
    assert runner.calls[3] == ["zpool", "list", "-j", "--json-int"]
    published = Store(settings.state_file).read()  # and the state each pass observed, for the api's reads
    assert published is not None and published.observed.pools is not None and published.observed.disks


def test_the_service_waits_for_the_api_to_migrate_the_database(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "data", metrics_interval_seconds=1)
    settings.data_dir.mkdir(parents=True)
    gw, files, runner = _service_tools(tmp_path / "root")
    stop = threading.Event()
    service = threading.Thread(target=sampler.serve, args=(settings, gw, files, stop))
    service.start()  # first boot: no database yet
    time.sleep(1.5)
    assert service.is_alive() and not runner.calls  # waiting, not failing passes
    c = client_for(settings)  # the api starts and migrates
    deadline = time.monotonic() + 10
    while _rows(c) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    service.join(10)
    assert _rows(c) >= 1 and not service.is_alive()


def test_the_service_ends_at_once_off_an_appliance(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings = make_settings(tmp_path / "data")
    c = client_for(settings)
    gw, _, runner = replay_log("metrics_series", tmp_path / "root")
    with caplog.at_level(logging.WARNING, logger="api.metrics.sampler"):
        assert sampler.serve(settings, gw, LocalFiles(tmp_path / "empty"), threading.Event()) == 0
    assert "not an appliance" in caplog.text and _rows(c) == 0 and not runner.calls


def test_a_failing_pass_is_logged_and_sampling_goes_on(
    tmp_path: Path, client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    gw, files, _ = _service_tools(tmp_path / "root")
    broken = LocalFiles(tmp_path / "empty")  # no arcstats: every pass fails
    state = client.app.state  # type: ignore[attr-defined]
    s = sampler.Sampler(gw, broken, state.sessionmaker, state.settings, interval=0.01, keep=10)
    with caplog.at_level(logging.ERROR, logger="api.metrics.sampler"):
        assert s.run_once() is None
        s.start()
        time.sleep(0.2)
        assert s.running
        s.files = files  # the next pass works again
        deadline = time.monotonic() + 10
        while _rows(client) == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        s.stop()
    assert not s.running and _rows(client) >= 1
    assert sum("metrics sample failed" in r.message for r in caplog.records) >= 2


def test_a_zfs_event_publishes_the_pools_between_passes(
    tmp_path: Path, client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    gw, files, runner = _service_tools(tmp_path / "root")
    state = client.app.state  # type: ignore[attr-defined]
    s = sampler.Sampler(gw, files, state.sessionmaker, state.settings, interval=60.0, keep=10)
    snapshot = Store(state.settings.state_file)
    with caplog.at_level(logging.INFO, logger="api.metrics.sampler"):
        s.start()
        deadline = time.monotonic() + 10
        while _rows(client) == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        first = snapshot.read()
        assert first is not None and _rows(client) == 1 and s.passes == 1
        ran = len(runner.calls)
        files.write(
            "/run/arcvsa-zfs-events/8", "statechange\n"
        )  # what the zedlet leaves for a vdev's new state
        deadline = time.monotonic() + 10
        while (now := snapshot.read()) is None or now.taken_at == first.taken_at:
            assert time.monotonic() < deadline, "no pass after the event"
            time.sleep(0.05)
        stopped = time.monotonic()
        s.stop()
    assert time.monotonic() - stopped < 5  # a stop ends the wait at once, not at the next pass
    assert "ZFS event 8 statechange: publishing the pools" in caplog.text
    assert s.passes == 1 and _rows(client) == 1  # the event's pass is not a sample, nor counted
    evented = runner.calls[ran:]
    assert ["zpool", "list", "-j", "--json-int"] in evented
    assert not [c for c in evented if c[-1].endswith("ShowExports")]  # pools, datasets, disks only
    assert now.polled_at == first.polled_at  # not a full pass: the stale alert still counts from it


def test_events_close_together_are_one_pass_and_those_left_as_a_pass_falls_due_are_its(
    tmp_path: Path, client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    """Events left before a full pass are that pass's (it reads after them); events the poller finds at
    one look are one pass that names them all, oldest first, whatever order their zedlets finished in."""
    root = tmp_path / "root"
    gw, files, _ = _service_tools(root)
    files.write("/run/arcvsa-zfs-events/7", "pool_import\n")  # before the poller started
    state = client.app.state  # type: ignore[attr-defined]
    s = sampler.Sampler(gw, files, state.sessionmaker, state.settings, interval=60.0, keep=10)
    snapshot = Store(state.settings.state_file)
    events = root / "run/arcvsa-zfs-events"
    with caplog.at_level(logging.INFO, logger="api.metrics.sampler"):
        s.start()
        deadline = time.monotonic() + 10
        while _rows(client) == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        first = snapshot.read()
        assert first is not None and s.passes == 1 and not list(events.iterdir())  # taken by the pass
        events.rmdir()
        ready = tmp_path / "ready"  # both at once, as two zedlets can finish between two looks
        ready.mkdir()
        (ready / "60").write_text("scrub_finish\n", encoding="utf-8")
        (ready / "59").write_text("scrub_start\n", encoding="utf-8")
        ready.rename(events)
        deadline = time.monotonic() + 10
        while (now := snapshot.read()) is None or now.taken_at == first.taken_at:
            assert time.monotonic() < deadline, "no pass after the events"
            time.sleep(0.05)
        time.sleep(sampler.EVENT_GAP + 2 * sampler.EVENT_LOOK)  # no second pass for the same events
        s.stop()
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("ZFS event")]
    assert said == [
        "ZFS event 7 pool_import: the pass now due publishes the pools",
        "ZFS events 59 scrub_start, 60 scrub_finish: publishing the pools",
    ]


def test_the_service_answers_the_api_on_its_socket_and_owns_the_calibration_runs(tmp_path: Path) -> None:
    """Where the settings name a socket, the service answers the api's calls on it while it samples, and
    marks the calibrations it left running as interrupted; the api leaves both to it."""
    folder = Path(tempfile.mkdtemp(prefix="ctl", dir="/tmp"))  # a socket's path fits in 108 bytes
    sock = folder / "control.sock"
    settings = make_settings(tmp_path / "data", metrics_interval_seconds=1, control_socket=sock)
    c = client_for(settings)
    with c.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        now = datetime.now(UTC)
        db.add(Calibration(
            kind="ramp", target_kind="dataset", target="tank/cal", request_json="{}", state="running",
            created_at=now, started_at=now,
        ))  # fmt: skip
        db.commit()
    client_for(settings)  # an api starting again: the run is the service's, not for it to mark
    assert _states(c) == ["running"]
    gw, files, _ = _service_tools(tmp_path / "root")
    stop = threading.Event()
    service = threading.Thread(target=sampler.serve, args=(settings, gw, files, stop))
    service.start()
    try:
        with pytest.raises(ctl.InvalidName):  # the service's own check answered, over its socket
            OverSocket(sock, connect_within=10)(changes.destroy_snapshot, "tank/a b@x")
        assert _states(c) == ["interrupted"]
    finally:
        stop.set()
        service.join(10)
        shutil.rmtree(folder, ignore_errors=True)
    assert not service.is_alive() and not sock.exists()


def test_the_service_waits_for_the_api_to_make_the_database(tmp_path: Path) -> None:
    """The api (its own user) makes the database; one this service (root) made first would be root's."""
    folder = Path(tempfile.mkdtemp(prefix="ctl", dir="/tmp"))
    sock = folder / "control.sock"
    settings = make_settings(tmp_path / "data", metrics_interval_seconds=1, control_socket=sock)
    settings.data_dir.mkdir(parents=True)
    gw, files, _ = _service_tools(tmp_path / "root")
    stop = threading.Event()
    service = threading.Thread(target=sampler.serve, args=(settings, gw, files, stop))
    service.start()
    try:
        time.sleep(1.5)
        assert sorted(p.name for p in settings.data_dir.iterdir()) == [] and not sock.exists()
        client_for(settings)  # the api starts: the database, at the newest schema
        with pytest.raises(ctl.InvalidName):
            OverSocket(sock, connect_within=30)(changes.destroy_snapshot, "tank/a b@x")
    finally:
        stop.set()
        service.join(10)
        shutil.rmtree(folder, ignore_errors=True)
    assert not service.is_alive()


def _states(client: TestClient) -> list[str]:
    with client.app.state.sessionmaker() as db:
        return list(db.scalars(select(Calibration.state)))


@pytest.mark.parametrize("abstract", [False, True], ids=["path", "abstract"])
def test_the_service_tells_systemd_it_is_ready(monkeypatch: pytest.MonkeyPatch, abstract: bool) -> None:
    """Type=notify: READY=1 on the socket systemd names, a path or (leading "@") an abstract name."""
    folder = Path(tempfile.mkdtemp(prefix="ntf", dir="/tmp"))
    name = f"@arcvsa-test-{os.getpid()}" if abstract else str(folder / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as systemd:
        systemd.bind("\0" + name[1:] if abstract else name)
        systemd.settimeout(5)
        monkeypatch.setenv("NOTIFY_SOCKET", name)
        sampler._ready()
        assert systemd.recv(64) == b"READY=1"
    shutil.rmtree(folder, ignore_errors=True)
    monkeypatch.delenv("NOTIFY_SOCKET")
    sampler._ready()  # not under systemd: nothing to tell, no error
