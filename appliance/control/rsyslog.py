"""The appliance's own logs forwarded to a remote syslog server: one rsyslog drop-in, rsyslog restarted.

journald hands rsyslog every line it gets (the api, ganesha, zed, LIO's targetcli, the kernel); the
drop-in adds one ``omfwd`` action in front of Debian's local files, RFC 5424 (``SyslogProtocol23``) with
octet-counted framing on TCP, the way the api sends its alerts. Its queue is in memory and spills to
rsyslog's work directory (disk-assisted) when full or at shutdown, and the action retries for ever: a
server outage delays the logs, it loses none while the queue holds (``QUEUE_MESSAGES``, ``QUEUE_DISK``).
Over UDP an outage is not seen at all; what was sent meanwhile is lost, as UDP syslog always is.

The drop-in is checked alone by ``rsyslogd -N1`` before it replaces the one in use, and put back when the
restart fails. rsyslog has no reload that rereads its config: a change restarts it (its queue is saved
and read back across the restart).
"""

from __future__ import annotations

import contextlib
from typing import Literal, get_args

from pydantic import BaseModel, Field

from appliance.control import names
from appliance.control.errors import ControlError
from appliance.control.files import Files
from appliance.control.gateway import Gateway

DROP_IN = "/etc/rsyslog.d/60-arcvsa-forward.conf"
SPOOL = "/var/spool/rsyslog"  # Debian's rsyslog.conf sets it as the work directory
QUEUE = "arcvsa-forward"  # the queue's file names in SPOOL start with it
UNIT = "rsyslog.service"
QUEUE_MESSAGES = 100_000  # a few hours of an idle appliance's journal, minutes of a busy one's
QUEUE_DISK = "256m"
RETRY_SECONDS = 10
CHECK_TIMEOUT = 30.0
RESTART_TIMEOUT = 90.0
HEADER = (
    "# Written by arcvsa (appliance.control.rsyslog) from the api's syslog settings: the appliance's logs\n"
    "# forwarded to the remote syslog server. Changed or removed when those settings are saved.\n"
)

Severity = Literal["emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"]
SEVERITIES: tuple[Severity, ...] = get_args(Severity)  # most severe first: the index is syslog's level


class Forward(BaseModel):
    """Where the logs go and from which severity on."""

    host: str = Field(description="syslog server (name or IP address)")
    port: int = Field(ge=1, le=65535, description="syslog server port")
    transport: Literal["udp", "tcp"] = Field(description="udp or tcp (octet-counted framing)")
    severity: Severity = Field(description="forward messages of this severity and every more severe one")


def render(forward: Forward) -> str:
    """The drop-in: the severity filter around one omfwd action with its own retrying queue."""
    names.host(forward.host)  # nothing that could end the quoted value in the config
    level = SEVERITIES.index(forward.severity)
    framing = ' TCP_Framing="octet-counted"' if forward.transport == "tcp" else ""
    return (
        f"{HEADER}"
        f"if $syslogseverity <= {level} then {{  # {forward.severity} and more severe\n"
        f'  action(type="omfwd" name="{QUEUE}" target="{forward.host}" port="{forward.port}"\n'
        f'         protocol="{forward.transport}"{framing} template="RSYSLOG_SyslogProtocol23Format"\n'
        f'         queue.type="LinkedList" queue.filename="{QUEUE}" queue.size="{QUEUE_MESSAGES}"\n'
        f'         queue.maxDiskSpace="{QUEUE_DISK}" queue.saveOnShutdown="on"\n'
        f'         action.resumeRetryCount="-1" action.resumeInterval="{RETRY_SECONDS}")\n'
        "}\n"
    )


def check(gw: Gateway, text: str) -> None:
    """``rsyslogd -N1`` on the drop-in alone (read from stdin): CommandFailed with rsyslog's words."""
    gw.run(["rsyslogd", "-N1", "-f", "/dev/stdin"], input_text=text, timeout=CHECK_TIMEOUT)


def restart(gw: Gateway) -> None:
    """Restart rsyslog so it reads its config again."""
    gw.run(["systemctl", "restart", UNIT], timeout=RESTART_TIMEOUT)


def apply(gw: Gateway, files: Files, forward: Forward | None) -> bool:
    """Forward as ``forward`` says, or not at all (None); True when rsyslog was restarted.

    Idempotent: an unchanged drop-in restarts nothing. A failed restart puts the previous drop-in back
    (and restarts once more, best effort) before raising, so the logs go where they went before.
    """
    before = files.read(DROP_IN)
    if forward is None:
        if before is None:
            return False
        files.remove(DROP_IN)
    else:
        text = render(forward)
        if before == text:
            return False
        check(gw, text)
        files.write(DROP_IN, text)
    try:
        restart(gw)
    except ControlError:
        _put_back(gw, files, before)
        raise
    if forward is None:  # a queue saved at the restart would be sent to a later server: drop it
        for name in files.listdir(SPOOL):
            if name.startswith(f"{QUEUE}."):
                files.remove(f"{SPOOL}/{name}")
    return True


def _put_back(gw: Gateway, files: Files, before: str | None) -> None:
    if before is None:
        files.remove(DROP_IN)
    else:
        files.write(DROP_IN, before)
    with contextlib.suppress(ControlError):  # the first failure is the one to report
        restart(gw)
