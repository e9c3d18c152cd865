"""Alert mails over SMTP (smtplib), with STARTTLS or implicit TLS and an optional login."""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage

from api.notify.events import Event
from api.notify.schemas import SmtpSettings

TIMEOUT = 10.0  # a mail server that does not answer must not hold the checker for long


def message(config: SmtpSettings, host: str, events: list[Event]) -> EmailMessage:
    """One mail for a batch of events: the subject says the first (or how many), the body lists all."""
    mail = EmailMessage()
    first = events[0].line() if len(events) == 1 else f"{len(events)} alert changes"
    # Alert texts are ours (pool and device names cannot hold line breaks), but the subject is a header:
    # keep it one line whatever comes in, and short enough for a mail client's list.
    mail["Subject"] = " ".join(f"{config.subject_prefix} {host}: {first}".split())[:200]
    mail["From"] = config.sender
    mail["To"] = ", ".join(config.recipients)
    body = [
        f"{e.change.upper()} [{e.alert.severity}] {e.alert.subject}\n  {e.alert.message}\n  key: {e.alert.key}"
        for e in events
    ]
    mail.set_content("\n\n".join(body) + "\n")
    return mail


def _context(config: SmtpSettings) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if not config.verify_tls:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def send(config: SmtpSettings, password: str | None, host: str, events: list[Event]) -> None:
    """Deliver one mail to every recipient; raises OSError / smtplib.SMTPException on failure."""
    mail = message(config, host, events)
    client: smtplib.SMTP
    if config.security == "tls":
        client = smtplib.SMTP_SSL(config.host, config.port, timeout=TIMEOUT, context=_context(config))
    else:
        client = smtplib.SMTP(config.host, config.port, timeout=TIMEOUT)
    with client:
        if config.security == "starttls":
            client.starttls(context=_context(config))
        if config.username:
            client.login(config.username, password or "")
        client.send_message(mail)
