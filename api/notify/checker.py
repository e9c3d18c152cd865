"""The checker: a daemon thread that notices alerts appear and clear even when nobody reads /api/alerts.

Every interval it takes the alerts /api/alerts would answer (on an appliance, those its state was last
published with; on the fleet manager, its own and every appliance's, api.fleet.alerts), diffs them per
channel against the set that channel was last sent (SQLite), sends the difference and
stores the new set only once the server took it. A server that is down is logged once, retried each
interval, and never stops the thread or the api.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from sqlalchemy.orm import Session, sessionmaker

from api.alerts import service as alerts
from api.alerts.schemas import Alert
from api.fleet.alerts import FleetAlerts
from api.notify import service
from api.notify.events import diff
from api.secretbox import SecretBox
from api.state.snapshot import Store
from appliance.control import metrics

log = logging.getLogger(__name__)


#: the alerts now, or None when there is no set to judge by yet (better to send nothing than "all cleared")
Source = Callable[[], list[Alert] | None]


def published_alerts(snapshot: Store, data_dir: Path, poll_interval: float) -> Source:
    """An appliance's alerts, as /api/alerts answers them: from its published state.

    ``poll_interval``: the state poller's, how old its state may get (alerts.served)."""

    def source() -> list[Alert] | None:
        published = snapshot.read()
        if published is None:
            log.warning("alert check: the appliance's state is not published yet")
            return None
        return alerts.served(published, data_dir, poll_interval)

    return source


def fleet_alerts(fleet: FleetAlerts, data_dir: Path, poll_interval: float) -> Source:
    """The manager's alerts, as /api/alerts answers them: its own certificate's and every appliance's."""
    return lambda: alerts.merged(alerts.served(None, data_dir, poll_interval), fleet.current())


class Checker:
    """Sends alert changes to the enabled channels (run_once), on a thread (start/stop)."""

    def __init__(
        self, source: Source, factory: sessionmaker[Session], box: SecretBox, interval: float
    ) -> None:
        self.source, self.factory, self.box, self.interval = source, factory, box, interval
        self.failing: set[str] = set()  # channels whose last send failed: logged once, not every interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self) -> dict[str, int]:
        """One pass; how many events each channel took (channels that failed or had none left out)."""
        with self.factory() as db:
            config, sealed = service.load(db)
            senders = {c: s for c in service.CHANNELS if (s := service.sender(c, config, sealed, self.box))}
            if not senders:
                return {}  # nothing enabled: the alerts are not even read
            now = self.source()
            if now is None:
                return {}
            done: dict[str, int] = {}
            for channel, send in senders.items():
                events = diff(service.sent(db, channel), now)
                if not events:
                    continue
                try:
                    send(events)
                except service.SendError as exc:
                    if channel not in self.failing:
                        log.warning(
                            "alert check: %s not reached, retrying: %s", channel, service.describe(exc)
                        )
                        self.failing.add(channel)
                    continue
                if channel in self.failing:
                    log.info("alert check: %s reached again", channel)
                    self.failing.discard(channel)
                service.remember(db, channel, now)
                db.commit()
                done[channel] = len(events)
            return done

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.run_once()
            except Exception:  # a bug in one pass must not end notifications for good
                log.exception("alert check failed")

    def start(self) -> None:
        """Check every interval (the first after one interval: the api has just started)."""
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="alert-checker", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop after the pass under way."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Checks while the api serves: an appliance (arcstats present, as the sampler decides) its published
    alerts, the fleet manager its own and its appliances'."""
    state = app.state
    settings = state.settings
    poll = settings.metrics_interval_seconds
    if state.storage_files.read(metrics.ARCSTATS) is not None:
        source = published_alerts(state.snapshot, settings.data_dir, poll)
    else:
        source = fleet_alerts(state.fleet_alerts, settings.data_dir, poll)
    checker = Checker(source, state.sessionmaker, state.secretbox, settings.alerts_check_seconds)
    checker.start()
    state.alert_checker = checker
    try:
        yield
    finally:
        checker.stop()
