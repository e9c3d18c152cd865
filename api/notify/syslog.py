"""Alerts as RFC 5424 syslog messages to a remote server over UDP or TCP (RFC 6587 octet counting)."""

from __future__ import annotations

import datetime as dt
import os
import socket

from api.notify.events import Event
from api.notify.schemas import SyslogSettings

TIMEOUT = 5.0
FACILITY = 16  # local0: the facility appliances conventionally log to, easy to route on the server
SEVERITY = {"critical": 2, "warning": 4}  # crit, warning; cleared is notice (5), a test info (6)
APP_NAME = "arcvsa"
UDP_MAX = 2048  # RFC 5424 receivers must take 480 bytes and should take 2048


def _header_field(value: str, limit: int) -> str:
    """A HOSTNAME/APP-NAME field: printable ASCII without spaces, or the nil value."""
    clean = "".join(c for c in value if 33 <= ord(c) <= 126)[:limit]
    return clean or "-"


def format_message(event: Event, host: str, now: dt.datetime) -> bytes:
    """``<PRI>1 TIMESTAMP HOST arcvsa PID MSGID - MSG``; MSGID is raised, cleared or test."""
    severity = (
        SEVERITY[event.alert.severity] if event.change == "raised" else 5 if event.change == "cleared" else 6
    )
    timestamp = now.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    text = " ".join(f"[{event.alert.key}] {event.line()}".split())  # one line, whatever the alert says
    header = f"<{FACILITY * 8 + severity}>1 {timestamp} {_header_field(host, 255)} {APP_NAME} {os.getpid()} {event.change} -"
    return f"{header} {text}".encode()


def send(config: SyslogSettings, host: str, events: list[Event], now: dt.datetime | None = None) -> None:
    """Send every event; raises OSError when the server cannot be reached (TCP) or the send fails."""
    now = now or dt.datetime.now(dt.UTC)
    messages = [format_message(e, host, now) for e in events]
    if config.transport == "udp":
        family, kind, proto, _, address = socket.getaddrinfo(
            config.host, config.port, type=socket.SOCK_DGRAM
        )[0]
        with socket.socket(family, kind, proto) as sock:
            sock.settimeout(TIMEOUT)
            for m in messages:
                sock.sendto(m[:UDP_MAX], address)
        return
    with socket.create_connection((config.host, config.port), timeout=TIMEOUT) as sock:
        sock.sendall(b"".join(str(len(m)).encode() + b" " + m for m in messages))
