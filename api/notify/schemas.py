"""Notification settings as the api takes and shows them, and what a test send answers.

Every text that ends up in a mail header or a syslog line is checked here: no CR/LF or other control
characters (header injection), hosts are names or addresses only, ports in range.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, SecretStr, model_validator

from appliance.control import names
from appliance.control.errors import InvalidName
from appliance.control.rsyslog import Severity

# Deliberately narrow: what mail servers accept in practice, and nothing that can break a header.
_ADDRESS = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@" + rf"{names.LABEL}(?:\.{names.LABEL})+$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _host(value: str) -> str:
    try:
        return names.host(value)
    except InvalidName:
        raise ValueError("not a host name or IP address") from None


def _address(value: str) -> str:
    if len(value) > 254 or not _ADDRESS.match(value):
        raise ValueError("not a plain e-mail address (name@domain, no display name)")
    return value


def _plain(value: str) -> str:
    if _CONTROL.search(value):
        raise ValueError("control characters (line breaks) are not allowed")
    return value


def _loopback(host: str) -> bool:
    if host.rstrip(".").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


Host = Annotated[str, AfterValidator(_host)]
Address = Annotated[str, AfterValidator(_address)]
PlainText = Annotated[str, AfterValidator(_plain)]
Port = Annotated[int, Field(ge=1, le=65535)]
Channel = Literal["smtp", "syslog"]


class SmtpSettings(BaseModel):
    """Where alert mails go and how the api logs in to the mail server."""

    model_config = ConfigDict(validate_default=True)  # defaults pass the checks stored values must pass

    enabled: bool = Field(False, description="send alerts by e-mail")
    host: Host = Field("localhost", description="mail server (name or IP address)")
    port: Port = Field(587, description="mail server port: 587 with starttls, 465 with tls")
    security: Literal["starttls", "tls", "none"] = Field(
        "starttls", description="starttls: upgrade on 587; tls: TLS from the start (465); none: local relay"
    )
    verify_tls: bool = Field(True, description="check the server's certificate against the system CAs")
    username: Annotated[PlainText, Field(max_length=128)] = Field("", description="login; empty: none")
    sender: Address = Field("arcvsa@localhost.localdomain", description="From address")
    recipients: list[Address] = Field(default_factory=list, max_length=20, description="To addresses")
    subject_prefix: Annotated[PlainText, Field(max_length=64)] = Field(
        "[arcvsa]", description="put before every subject"
    )

    @model_validator(mode="after")
    def _safe(self) -> SmtpSettings:
        if self.enabled and not self.recipients:
            raise ValueError("recipients: at least one address is needed to send")
        if self.username and self.security == "none":
            raise ValueError("security: a login needs starttls or tls (the password would go in clear)")
        return self


class SyslogSettings(BaseModel):
    """The remote syslog server (RFC 5424) alerts go to, and the appliance's own logs when asked.

    One server for both: alerts are sent by the api itself, the logs by the appliance's rsyslog.
    """

    model_config = ConfigDict(validate_default=True)  # defaults pass the checks stored values must pass

    enabled: bool = Field(False, description="send alerts to the syslog server")
    host: Host = Field("localhost", description="syslog server (name or IP address)")
    port: Port = Field(514, description="syslog server port")
    transport: Literal["udp", "tcp"] = Field("udp", description="udp (one datagram a message) or tcp")
    forward_logs: bool = Field(
        False,
        description="forward the appliance's own logs (its journal: api, NFS server, ZFS, iSCSI, kernel) "
        "to the syslog server",
    )
    forward_severity: Severity = Field(
        "info", description="forward log messages of this severity and every more severe one"
    )

    @model_validator(mode="after")
    def _not_to_itself(self) -> SyslogSettings:
        if self.forward_logs and _loopback(self.host):
            raise ValueError("host: the appliance's logs cannot be forwarded to the appliance itself")
        return self


class NotifySettingsIn(BaseModel):
    """New notification settings; the SMTP password is kept when not given."""

    smtp: SmtpSettings = Field(description="e-mail")
    syslog: SyslogSettings = Field(description="remote syslog")
    smtp_password: SecretStr | None = Field(
        None, max_length=256, description="SMTP password: absent keeps the stored one, empty removes it"
    )


class NotifySettings(BaseModel):
    """Notification settings as stored; the SMTP password is never shown."""

    smtp: SmtpSettings = Field(default_factory=SmtpSettings, description="e-mail")
    syslog: SyslogSettings = Field(default_factory=SyslogSettings, description="remote syslog")
    smtp_password_set: bool = Field(False, description="whether an SMTP password is stored")


class SendResult(BaseModel):
    """How one channel's test send went."""

    channel: Channel = Field(description="the channel tried")
    ok: bool = Field(description="the server took the message")
    error: str | None = Field(None, description="what went wrong (no secret in it)")
