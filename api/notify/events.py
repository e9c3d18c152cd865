"""What a channel is told: an alert raised (or changed severity), cleared, or a test."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from api.alerts.schemas import Alert

Change = Literal["raised", "cleared", "test"]


@dataclass(frozen=True)
class Event:
    change: Change
    alert: Alert

    def line(self) -> str:
        """One line for a subject or a syslog message."""
        state = self.alert.severity if self.change == "raised" else self.change
        return f"{state}: {self.alert.subject}: {self.alert.message}"


def diff(sent: dict[str, Alert], now: list[Alert]) -> list[Event]:
    """The events that take a channel from what it was sent to the alerts now (raised first)."""
    current = {a.key: a for a in now}
    raised = [
        Event("raised", a) for a in now if (old := sent.get(a.key)) is None or old.severity != a.severity
    ]
    cleared = [Event("cleared", a) for key, a in sorted(sent.items()) if key not in current]
    return raised + cleared


def test_event(host: str) -> Event:
    """The message a "send test" sends."""
    return Event(
        "test",
        Alert(
            key="notify/test",
            severity="warning",
            subject=f"arcvsa {host}",
            message="a test notification from the appliance's settings: alerts will arrive like this",
        ),
    )
