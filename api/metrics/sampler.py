"""The state poller and sampler: every interval, observe the appliance once, publish its state, and
store its cumulative counters as one row; at the first pass and every RECONCILE_EVERY after, first bring
the appliance back to its desired state (api.state.reconcile). A ZFS event (appliance.control.zed) wakes
it between passes to publish the pools at once.

One pass observes the pools (``zpool list``, each pool's ``zpool status -j``: which vdevs are data, log
or cache), their datasets (``zfs get -r``: space and compression), what ganesha serves with its
per-export counters (DBus), the NFS services and the clock, and publishes that state with its alerts
(api.state): every read of the api answers from it. The sample adds arcstats and /proc/diskstats
(files), ``realpath`` (by-id links to kernel names) and, under knfsd, /proc/net/rpc/nfsd. A failing
pass is logged and skipped, never ends the polling.

It runs as a service of its own, ``python -m api.metrics.sampler`` (arcvsa-metrics.service), only on an
appliance (arcstats present). Not in the api's process: a pass runs a dozen tools, and taken from the
api's CPU that would stall every request in flight for as long as the pass.
"""

from __future__ import annotations

import logging
import os
import pwd
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from api import db
from api.calibration import service as calibration
from api.exports import service as exports
from api.metrics import store
from api.metrics.schemas import ClientCounters, DatasetSpace, ExportCounters, LunCounters, Sample
from api.privileged.host import Host
from api.privileged.service import Server
from api.secretbox import SecretBox
from api.sections import BACKUP_SECTIONS
from api.settings import Settings
from api.state import poll, reconcile
from api.state.deps import POOL_PARTS
from api.state.snapshot import Published, Store
from api.tuning import service as tuning
from appliance.control import datasets, metrics, zed
from appliance.control.errors import ControlError
from appliance.control.files import Files, LocalFiles
from appliance.control.gateway import Gateway
from appliance.control.nfs import knfsd
from appliance.control.observed import EVERY_PART, Observed, Part, observe
from appliance.control.reconciled import Reconciled
from appliance.upgrade import release

log = logging.getLogger("api.metrics.sampler")  # the same name when run as the service's __main__


def _sum(*parts: ClientCounters) -> ClientCounters:
    return ClientCounters(
        read_ops=sum(p.read_ops for p in parts),
        read_bytes=sum(p.read_bytes for p in parts),
        write_ops=sum(p.write_ops for p in parts),
        write_bytes=sum(p.write_bytes for p in parts),
        latency_ns=sum(p.latency_ns for p in parts),
    )


def _nfs(observed: Observed, files: Files, sample: Sample) -> None:
    """The NFS server's counters into ``sample``: ganesha's when it answered on DBus, else knfsd's."""
    nfs = observed.nfs
    if nfs is None or nfs.ganesha_exports is None:  # ganesha not running
        server = knfsd.server_io(files)
        if server is None:
            return
        sample.backend = "knfsd"
        sample.clients["server"] = ClientCounters.model_validate(server.model_dump())
        sample.exports = [
            ExportCounters(export_id=i, path=p) for i, p in sorted(knfsd.exported_paths(files).items())
        ]
        return
    sample.backend = "ganesha"
    for export_id, path in nfs.ganesha_exports.items():
        counted = nfs.io.get(export_id)
        if counted is None:  # removed between ShowExports and its counters
            continue
        # an export answers only for the protocol it serves: the sum is that protocol's
        io = _sum(*(ClientCounters.model_validate(c.model_dump()) for c in counted.values()))
        sample.clients[f"export:{export_id}"] = io
        sample.exports.append(ExportCounters(export_id=export_id, path=path, **io.model_dump()))


# What a sample is made of, besides files: the pools, their datasets and what ganesha serves.
SAMPLED = (Part.pools, Part.datasets, Part.nfs)
# How often the poller looks for a ZFS event between its passes, and the least time between two passes
# events start. An event's pass reads what a pool change can alter (POOL_PARTS); importable pools stay the
# timer's (zpool import reads every disk's labels).
EVENT_LOOK = 1.0
EVENT_GAP = 2.0


def _named(events: list[str]) -> str:
    """ "ZFS event 8 statechange", or "ZFS events 59 scrub_start, 60 scrub_finish"."""
    return f"ZFS event{'s' if len(events) > 1 else ''} {', '.join(events)}"


def collect(gw: Gateway, files: Files, observed: Observed, now: datetime | None = None) -> Sample:
    """One sample of every counter, from ``observed`` (its SAMPLED parts) and the files
    (see the module docstring)."""
    arc = metrics.arc(files)
    sample = Sample(
        t=now or datetime.now(UTC),
        arc_hits=arc.hits,
        arc_misses=arc.misses,
        l2_hits=arc.l2_hits,
        l2_misses=arc.l2_misses,
        arc_size=arc.size,
        arc_max=arc.max,
        l2_size=arc.l2_size,
    )
    healths = observed.part(Part.pools, observed.pools)
    names = [h.name for h in healths]
    blocks = metrics.block_io(files) if names else {}
    space: list[datasets.Dataset] = []
    found = observed.datasets or {}
    for health in healths:
        pool = health.name
        # LUN traffic is the data vdevs' alone: SLOG writes and L2ARC reads never reach the SAN.
        leaves = [v.path for v in health.vdevs if v.role == "data" and v.path]
        for kernel in metrics.kernel_names(gw, leaves).values():
            if kernel in blocks:
                sample.luns[f"{pool}/{kernel}"] = LunCounters.model_validate(blocks[kernel].model_dump())
        space += found.get(pool, [])
    _nfs(observed, files, sample)
    by_mount = {d.mountpoint: d.name for d in space if d.mountpoint and d.type == "FILESYSTEM"}
    for export in sample.exports:
        export.dataset = by_mount.get(export.path)
    kept = set(names) | {e.dataset for e in sample.exports if e.dataset}
    sample.pool_roots = names
    sample.datasets = [
        DatasetSpace(
            name=d.name,
            mountpoint=d.mountpoint,
            used=d.used,
            logical_used=d.logicalused,
            compressratio=d.compressratio,
        )
        for d in space
        if d.name in kept
    ]
    return sample


def take(gw: Gateway, files: Files, now: datetime | None = None) -> Sample:
    """One sample on its own, its parts observed for it (the service samples what it publishes)."""
    return collect(gw, files, observe(gw, files, SAMPLED), now)


class Sampler:
    """Samples every ``interval`` seconds on a daemon thread and keeps at most ``keep`` rows."""

    def __init__(
        self,
        gw: Gateway,
        files: Files,
        factory: sessionmaker[Session],
        settings: Settings,
        *,
        interval: float,
        keep: int,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.gw, self.files, self.factory, self.settings = gw, files, factory, settings
        self.interval, self.keep, self.clock = interval, keep, clock
        self.snapshot = Store(settings.state_file)
        self.passes = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def publish(self) -> Published | None:
        """Reconcile (the first pass, then every RECONCILE_EVERY), observe the appliance and publish its
        state (api.state); None (logged) when that failed."""
        parts = EVERY_PART if self.passes % poll.SLOW_EVERY == 0 else poll.EVERY_PASS
        due = self.passes % reconcile.RECONCILE_EVERY == 0
        self.passes += 1
        try:
            reconciled = self.reconcile() if due else None
            return poll.refresh(
                self.snapshot, self.gw, self.files, self.factory, self.settings, parts, reconciled
            )
        except Exception:  # one bad pass must not end the polling
            log.exception("state not published; next pass in %.0f s", self.interval)
            return None

    def reconcile(self) -> list[Reconciled]:
        """Every noun reconciled, what converged and what could not logged."""
        outcomes = reconcile.everything(self.gw, self.files, self.factory, self.settings)
        for outcome in outcomes:
            if outcome.changes:
                log.warning("%s drifted and converged: %s", outcome.noun.value, "; ".join(outcome.changes))
            if outcome.failure is not None:
                log.error("%s not converged: %s", outcome.noun.value, outcome.failure.message)
        return outcomes

    def run_once(self) -> Sample | None:
        """Publish the state, then take, store and prune one sample from it; None (logged) when the
        sample failed."""
        published = self.publish()
        if published is None:
            return None
        try:
            sample = collect(self.gw, self.files, published.observed, self.clock())
            with self.factory() as db:
                store.add(db, sample)
                store.prune(db, self.keep)
                db.commit()
        except Exception:  # one bad pass (a pool exported mid-sample, a busy disk) must not end sampling
            log.exception("metrics sample failed; next one in %.0f s", self.interval)
            return None
        return sample

    def on_events(self, events: list[str]) -> Published | None:
        """ZFS events' pass: the pools, their datasets and the disks published at once (neither sampled
        nor counted: the timer's passes keep their cadence); None (logged) when that failed."""
        log.info("%s: publishing the pools", _named(events))
        try:
            return poll.refresh(self.snapshot, self.gw, self.files, self.factory, self.settings, POOL_PARTS)
        except Exception:  # as a pass's
            log.exception("state not published after %s", _named(events))
            return None

    def _loop(self) -> None:
        while not self._stop.is_set():
            if events := zed.take_events(self.files):  # come as a pass is due: that pass reads after them
                log.info("%s: the pass now due publishes the pools", _named(events))
            self.run_once()
            due = time.monotonic() + self.interval  # after the pass: a slow one never runs back to back
            while events := self._wait(due):
                self.on_events(events)
                self._stop.wait(EVENT_GAP)  # a burst of events (a flapping disk): one pass per gap

    def _wait(self, due: float) -> list[str]:
        """The ZFS events that came before ``due`` (monotonic), taken at the first look that finds any;
        empty at ``due`` or a stop."""
        while (left := due - time.monotonic()) > 0:
            if self._stop.wait(min(left, EVENT_LOOK)):
                return []
            if events := zed.take_events(self.files):
                return events
        return []

    def start(self) -> None:
        """Start sampling (the first sample right away)."""
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="metrics-sampler", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop after the pass under way; wait at most ``timeout`` seconds for it."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        """Whether the thread is alive."""
        return self._thread is not None and self._thread.is_alive()


def serve(settings: Settings, gw: Gateway, files: Files, stop: threading.Event) -> int:
    """Sample into the api's database until ``stop`` is set; at once (nothing to sample) off an appliance.

    Started with the api, which migrates the database as it starts: the first pass waits for the schema
    this code knows (a first boot's empty database, an upgrade's new columns).
    """
    if files.read(metrics.ARCSTATS) is None:
        log.warning("no %s: not an appliance, nothing to sample", metrics.ARCSTATS)
        return 0
    # The api makes the database, as its own user: one this process (root) made first would be root's.
    if not settings.database_file.exists():
        log.info("waiting for the api to make the database")
        while not settings.database_file.exists():
            if stop.wait(1.0):
                return 0
    engine = db.make_engine(settings.database_url)
    sampler = Sampler(
        gw,
        files,
        db.session_factory(engine),
        settings,
        interval=settings.metrics_interval_seconds,
        keep=settings.metrics_keep,
    )
    if not db.at_head(engine):
        log.info("waiting for the api to bring the database to the newest schema")
        while not db.at_head(engine):
            if stop.wait(1.0):
                return 0
    server = _answer_the_api(settings, sampler)
    _ready()
    try:
        zed.hold_zedlet(gw, files)
    except ControlError as err:  # the timer's passes still publish every interval
        log.error("ZFS events will not wake the poller: %s", err)
    log.info("sampling every %.0f s, keeping %d samples", sampler.interval, sampler.keep)
    sampler.start()
    stop.wait()
    sampler.stop()
    if server is not None:
        server.close()
    return 0


def hold_tuning_plan(settings: Settings, factory: sessionmaker[Session], files: Files | None = None) -> None:
    """The stored tuning plan, and the device wait where it sets none, held on an appliance (a release
    installed) before the api's calls are answered, so before any pool can be made; on a dev host or in a
    test the machine's modprobe.d is left alone. Not fatal: the poller's reconcile tries again, and without
    the device wait a create that outlasts the module's default wait is still retried
    (appliance.control.pools)."""
    if release.current(settings.install_root) is None:
        return
    try:
        with tuning.changing(settings), factory() as session:
            changed = tuning.reconcile(files or LocalFiles("/"), session)
    except (ControlError, OSError) as err:
        log.warning("the tuning plan is not held: %s", err)
        return
    if changed:
        log.info("tuning plan held: %s", ", ".join(changed))


def _answer_the_api(settings: Settings, sampler: Sampler) -> Server | None:
    """The api's changes to the storage run here (api.privileged), beside the reconcilers and the poller
    that run the same tools: the api runs as a user of its own, without the privileges they need."""
    if settings.control_socket is None:
        return None
    allowed, group = _callers(settings)
    hold_tuning_plan(settings, sampler.factory, sampler.files)
    runs = calibration.Runner(sampler.factory)
    calibration.mark_interrupted(sampler.factory)  # the runs this service left, when it stopped
    box = SecretBox(settings.key_file)
    host = Host(
        settings, sampler.factory, sampler.gw, sampler.files, sampler.snapshot, BACKUP_SECTIONS, runs, box
    )
    server = Server(settings.control_socket, host, allowed, group=group).start()
    exports.start(host)  # the chosen NFS server serves the stored exports, as the api's start did
    return server


def _callers(settings: Settings) -> tuple[frozenset[int], int | None]:
    """The uids whose calls are answered (this service's own, and the caller the units name) and the
    group the socket is given (the caller's)."""
    own = os.geteuid()
    if settings.control_caller is None:
        return frozenset({own}), None
    try:
        caller = pwd.getpwnam(settings.control_caller)
    except KeyError:
        raise SystemExit(
            f"the api's user {settings.control_caller!r} does not exist: systemd-sysusers makes it from"
            " /etc/sysusers.d/arcvsa.conf"
        ) from None
    return frozenset({own, caller.pw_uid}), caller.pw_gid


def _ready() -> None:
    """Tell systemd the service is up (Type=notify): ``systemctl start`` and a restart with the api return
    once the api's calls are answered, not when Python has only begun to import."""
    where = os.environ.get("NOTIFY_SOCKET")
    if not where:
        return
    address = "\0" + where[1:] if where.startswith("@") else where  # "@": Linux's abstract namespace
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as out:
        out.connect(address)
        out.sendall(b"READY=1")


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)  # each schema check says which SQL dialect
    settings = Settings()
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    gw = Gateway()
    sys.exit(serve(settings, gw, LocalFiles(Path("/")), stop))


if __name__ == "__main__":
    main()
