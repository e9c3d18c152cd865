"""RFC 5424 alert messages to a real rsyslogd over UDP and TCP (octet-counted framing)."""

from __future__ import annotations

import datetime as dt

import pytest
from support.notify_servers import Rsyslog, free_port

from api.alerts.schemas import Alert
from api.notify import syslog
from api.notify.events import Event, diff
from api.notify.schemas import SyslogSettings

FULL = Alert(
    key="pool/tank/capacity", severity="critical", subject="pool tank", message="the pool is 95 % full"
)
SLOW = Alert(
    key="pool/tank/device/sdb/latency", severity="warning", subject="pool tank: LUN sdb", message="slow"
)


def test_the_header_follows_rfc5424() -> None:
    at = dt.datetime(2026, 11, 22, 23, 5, 1, 250000, tzinfo=dt.UTC)
    line = syslog.format_message(Event("raised", FULL), "vsa 01\n", at).decode()
    header, _, text = line.partition(" - ")
    pri_version, timestamp, host, app, pid, msgid = header.split(" ")
    assert (pri_version, timestamp, host, app, msgid) == (
        "<130>1", "2026-11-22T23:05:01.250Z", "vsa01", "arcvsa", "raised",
    )  # fmt: skip
    assert pid.isdigit()  # local0 (16) * 8 + crit (2) = 130; the host name cleaned of space and newline
    assert text == "[pool/tank/capacity] critical: pool tank: the pool is 95 % full"
    assert syslog.format_message(Event("cleared", FULL), "vsa", at).startswith(b"<133>1 ")  # local0.notice


@pytest.mark.parametrize("transport", ["udp", "tcp"])
def test_rsyslog_receives_raised_and_cleared(rsyslog: Rsyslog, transport: str) -> None:
    port = rsyslog.udp_port if transport == "udp" else rsyslog.tcp_port
    config = SyslogSettings.model_validate(
        {"enabled": True, "host": "127.0.0.1", "port": port, "transport": transport}
    )
    events = diff({"pool/tank/capacity": FULL}, [SLOW])  # SLOW raised, FULL cleared
    syslog.send(config, "vsa01", events)
    got = rsyslog.lines(2)
    assert [g[:5] for g in got] == [
        ["local0", "warning", "vsa01", "arcvsa", "raised"],
        ["local0", "notice", "vsa01", "arcvsa", "cleared"],
    ]
    assert got[0][5].strip() == "[pool/tank/device/sdb/latency] warning: pool tank: LUN sdb: slow"


def test_a_syslog_server_that_is_down_raises_oserror() -> None:
    config = SyslogSettings(enabled=True, host="127.0.0.1", port=free_port(), transport="tcp")
    with pytest.raises(OSError):
        syslog.send(config, "vsa01", [Event("raised", FULL)])


def test_diff_sends_a_severity_change_as_raised() -> None:
    worse = FULL.model_copy(update={"severity": "critical"})
    before = {FULL.key: FULL.model_copy(update={"severity": "warning"})}
    assert diff(before, [worse]) == [Event("raised", worse)]
    assert diff({FULL.key: FULL}, [FULL]) == []
