"""Notification settings in the database, and delivery of events to the enabled channels.

The SMTP password is sealed with the api's SecretBox (as vCenter passwords are) and opened only to log
in; it is never returned, never logged, and error texts come from the servers, not from it.
"""

from __future__ import annotations

import logging
import smtplib
import socket
import threading
from collections.abc import Callable

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from api.alerts.schemas import Alert
from api.notify import smtp, syslog
from api.notify.events import Event, test_event
from api.notify.schemas import Channel, NotifySettings, NotifySettingsIn, SendResult, SyslogSettings
from api.notify.table import NotifyConfig, SentAlert
from api.secretbox import SecretBox
from appliance.control import rsyslog
from appliance.control.files import Files
from appliance.control.gateway import Gateway

log = logging.getLogger(__name__)
# One settings change at a time: rsyslog's drop-in and the stored settings must not cross.
CHANGES = threading.Lock()

CHANNELS: tuple[Channel, ...] = ("smtp", "syslog")


class PasswordLost(Exception):
    """The sealed SMTP password no longer opens (the key file was replaced): it must be entered again."""


SendError = (OSError, smtplib.SMTPException, PasswordLost)


def load(db: Session) -> tuple[NotifySettings, bytes | None]:
    """The stored settings (defaults: both channels off) and the sealed SMTP password."""
    row = db.get(NotifyConfig, 1)
    if row is None:
        return NotifySettings(), None
    stored = NotifySettings.model_validate_json(row.settings_json)
    return stored.model_copy(update={"smtp_password_set": row.smtp_password is not None}), row.smtp_password


def forwarding(config: SyslogSettings) -> rsyslog.Forward | None:
    """What the appliance's rsyslog forwards under ``config``: None when log forwarding is off."""
    if not config.forward_logs:
        return None
    return rsyslog.Forward(
        host=config.host, port=config.port, transport=config.transport, severity=config.forward_severity
    )


def apply_forwarding(gw: Gateway, files: Files, config: SyslogSettings) -> bool:
    """Make rsyslog forward the appliance's logs as ``config`` says; True when it was restarted.

    Raises the control package's typed errors (rsyslogd refused the drop-in, the restart failed).
    """
    changed = rsyslog.apply(gw, files, forwarding(config))
    if changed:
        # logged after the restart: the first line the server gets from the api when forwarding is on
        state = "on" if config.forward_logs else "off"
        log.info(
            "log forwarding %s: %s:%d over %s, %s and more severe",
            state,
            config.host,
            config.port,
            config.transport,
            config.forward_severity,
        )
    return changed


def save(db: Session, box: SecretBox, new: NotifySettingsIn, gw: Gateway, files: Files) -> NotifySettings:
    """Store new settings; the password is sealed, kept when not given and removed when empty.

    Log forwarding is applied first: when rsyslog refuses it, nothing is stored (as an export change).
    """
    with CHANGES:
        apply_forwarding(gw, files, new.syslog)
        row = db.get(NotifyConfig, 1)
        if row is None:
            row = NotifyConfig(id=1, settings_json="{}", smtp_password=None)
            db.add(row)
        if new.smtp_password is not None:
            plain = new.smtp_password.get_secret_value()
            row.smtp_password = box.seal(plain) if plain else None
        row.settings_json = NotifySettings(smtp=new.smtp, syslog=new.syslog).model_dump_json()
        db.commit()
    return load(db)[0]


def host_name() -> str:
    return socket.gethostname()


def sender(
    channel: Channel, config: NotifySettings, sealed: bytes | None, box: SecretBox
) -> Callable[[list[Event]], None] | None:
    """A function that sends events to ``channel``; None when the channel is off."""
    host = host_name()
    if channel == "smtp" and config.smtp.enabled:
        return lambda events: smtp.send(config.smtp, _password(box, sealed), host, events)
    if channel == "syslog" and config.syslog.enabled:
        return lambda events: syslog.send(config.syslog, host, events)
    return None


def _password(box: SecretBox, sealed: bytes | None) -> str | None:
    """Opened only for the login, so a lost key fails this channel's send, not the whole pass."""
    if sealed is None:
        return None
    try:
        return box.open(sealed)
    except RuntimeError:
        raise PasswordLost("the stored SMTP password cannot be decrypted: enter it again") from None


def send_test(db: Session, box: SecretBox) -> list[SendResult]:
    """A test message on every enabled channel; each channel's outcome (a failure is an answer, not 5xx)."""
    config, sealed = load(db)
    results = []
    for channel in CHANNELS:
        send = sender(channel, config, sealed, box)
        if send is None:
            continue
        try:
            send([test_event(host_name())])
        except SendError as exc:
            results.append(SendResult(channel=channel, ok=False, error=describe(exc)))
        else:
            results.append(SendResult(channel=channel, ok=True))
    return results


def describe(exc: BaseException) -> str:
    """What went wrong, from the server's or the system's answer (never from our credentials)."""
    if isinstance(exc, smtplib.SMTPResponseException):
        detail = (
            exc.smtp_error.decode(errors="replace")
            if isinstance(exc.smtp_error, bytes)
            else str(exc.smtp_error)
        )
        return f"the mail server answered {exc.smtp_code}: {detail}"
    if isinstance(exc, PasswordLost):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def sent(db: Session, channel: str) -> dict[str, Alert]:
    """The alerts ``channel`` was last told of, by key."""
    rows = db.scalars(select(SentAlert).where(SentAlert.channel == channel))
    return {r.key: Alert.model_validate_json(r.alert_json) for r in rows}


def remember(db: Session, channel: str, alerts: list[Alert]) -> None:
    """Record that ``channel`` now knows exactly ``alerts`` (the caller commits)."""
    db.execute(delete(SentAlert).where(SentAlert.channel == channel))
    db.add_all(
        SentAlert(channel=channel, key=a.key, severity=a.severity, alert_json=a.model_dump_json())
        for a in alerts
    )
