"""The checker: a daemon thread that notices alerts appear and clear even when nobody reads /api/alerts.

Every interval it takes the alerts the appliance's state was last published with (as /api/alerts does),
diffs them per channel against the set that channel was last sent (SQLite), sends the difference and
stores the new set only once the server took it. A server that is down is logged once, retried each
interval, and never stops the thread or the api.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from sqlalchemy.orm import Session, sessionmaker

from api.alerts import service as alerts
from api.notify import service
from api.notify.events import diff
from api.secretbox import SecretBox
from api.state.snapshot import Store
from appliance.control import metrics

log = logging.getLogger(__name__)


class Checker:
    """Sends alert changes to the enabled channels (run_once), on a thread (start/stop)."""

    def __init__(
        self,
        snapshot: Store,
        factory: sessionmaker[Session],
        box: SecretBox,
        data_dir: Path,
        interval: float,
        poll_interval: float = 10.0,  # the state poller's: how old its state may get (alerts.served)
    ) -> None:
        self.snapshot, self.factory, self.box, self.data_dir = snapshot, factory, box, data_dir
        self.interval, self.poll_interval = interval, poll_interval
        self.failing: set[str] = set()  # channels whose last send failed: logged once, not every interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self) -> dict[str, int]:
        """One pass; how many events each channel took (channels that failed or had none left out)."""
        with self.factory() as db:
            config, sealed = service.load(db)
            senders = {c: s for c in service.CHANNELS if (s := service.sender(c, config, sealed, self.box))}
            if not senders:
                return {}  # nothing enabled: the published state is not even read
            published = self.snapshot.read()
            if published is None:  # no alert set now: better to send nothing than "all cleared"
                log.warning("alert check: the appliance's state is not published yet")
                return {}
            now = alerts.served(published, self.data_dir, self.poll_interval)
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
    """Checks while the api serves, on an appliance only (arcstats present, as the sampler decides)."""
    state = app.state
    checker = None
    if state.storage_files.read(metrics.ARCSTATS) is not None:
        checker = Checker(
            state.snapshot,
            state.sessionmaker,
            state.secretbox,
            state.settings.data_dir,
            state.settings.alerts_check_seconds,
            state.settings.metrics_interval_seconds,
        )
        checker.start()
    state.alert_checker = checker
    try:
        yield
    finally:
        if checker is not None:
            checker.stop()
