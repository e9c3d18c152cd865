"""Every appliance's alerts on the manager, each naming its appliance, for its alert list and notifications.

The manager has no storage of its own: what needs attention is on its appliances. Each is asked for its
alerts as the fleet dashboard asks (pinned certificate, its admin, TIMEOUT seconds each, all at once);
an appliance that cannot be read is an alert of its own, since its datastores may be down with it. One
reading is kept for MAX_AGE seconds and shared by every page's alert banner and the notification
checker, so ten open tabs cost the appliances one read each per interval.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from api.alerts.schemas import Alert
from api.alerts.service import merged
from api.fleet.dashboard import Fleet, read_fleets, stored
from api.fleet.sessions import ApplianceSessions
from api.secretbox import SecretBox

#: seconds a reading of the fleet's alerts is served before the fleet is read again
MAX_AGE = 20.0
#: an appliance the manager cannot reach, or that is not the one pinned: I/O there may have stopped
CRITICAL_STATES = frozenset({"unreachable", "certificate"})


def _alerts_only(read: Any) -> dict[str, Any]:
    return {"alerts": list(read("/api/alerts") or [])}


def named(deployment: str, raw: dict[str, Any]) -> list[Alert]:
    """One appliance's reading as the manager's alerts: its own, each naming it, or why it was not read."""
    name = raw["spec"].name
    prefix = f"fleet/{deployment}/{name}"
    if raw["state"] == "ok":
        return [
            Alert(
                key=f"{prefix}/{a['key']}",
                severity=a["severity"],
                subject=f"{name}: {a['subject']}",
                message=a["message"],
            )
            for a in raw["alerts"]
        ]
    if raw["state"] == "unpinned":  # not deployed yet: nothing of it serves, nothing to miss
        return []
    reason = str(raw["reason"]).removeprefix(f"{name}: ")  # the fault's words name it already
    return [
        Alert(
            key=f"{prefix}/unread",
            severity="critical" if raw["state"] in CRITICAL_STATES else "warning",
            subject=name,
            message=f"the manager cannot read this appliance of deployment {deployment}: {reason}",
        )
    ]


def gather(fleets: list[Fleet], sessions: ApplianceSessions) -> list[Alert]:
    """Every appliance's alerts now, critical first, in the deployments' and appliances' order."""
    return merged(
        [
            alert
            for fleet, readings in zip(fleets, read_fleets(fleets, sessions, _alerts_only), strict=True)
            for raw in readings
            for alert in named(fleet.row.name, raw)
        ]
    )


class FleetAlerts:
    """The fleet's alerts as last read, read again once older than ``max_age``; callers that come while
    a read is under way wait for it rather than start their own."""

    def __init__(
        self,
        factory: sessionmaker[Session],
        box: SecretBox,
        sessions: ApplianceSessions,
        max_age: float = MAX_AGE,
    ) -> None:
        self.factory, self.box, self.sessions, self.max_age = factory, box, sessions, max_age
        self._lock = threading.Lock()
        self._read_at: float | None = None
        self._alerts: list[Alert] = []

    def current(self) -> list[Alert]:
        with self._lock:
            if self._read_at is None or time.monotonic() - self._read_at > self.max_age:
                with self.factory() as db:
                    fleets = stored(db, self.box)
                self._alerts = gather(fleets, self.sessions)
                self._read_at = time.monotonic()
            return list(self._alerts)
