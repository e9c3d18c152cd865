"""Real servers for the notification tests: aiosmtpd (SMTP with STARTTLS and login) and Debian's rsyslogd
listening on free local ports and writing what it receives to a file."""

from __future__ import annotations

import datetime as dt
import ipaddress
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from appliance.firstboot.tls import self_signed

USER, PASSWORD = "alerts", "mail-secret-7f3a"


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Inbox:
    """What the SMTP server accepted: one (envelope recipients, parsed message) per mail."""

    mails: list[tuple[list[str], Message]] = field(default_factory=list)
    logins: list[str] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.mails.append((list(envelope.rcpt_tos), message_from_bytes(envelope.content)))
        return "250 OK"

    def authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and (data.login, data.password) == (
            USER.encode(),
            PASSWORD.encode(),
        )
        if ok:
            self.logins.append(USER)
        return AuthResult(success=ok, handled=False)  # not handled: aiosmtpd answers 535 itself


class MailServer:
    """aiosmtpd on 127.0.0.1 that requires STARTTLS (a self-signed certificate) and a login."""

    def __init__(self, directory: Path) -> None:
        cert, key = self_signed("localhost", ipaddress.IPv4Address("127.0.0.1"), dt.datetime.now(dt.UTC))
        (directory / "smtp.crt").write_bytes(cert)
        (directory / "smtp.key").write_bytes(key)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(directory / "smtp.crt", directory / "smtp.key")
        self.inbox = Inbox()
        self.port = free_port()
        self.controller = Controller(
            self.inbox,
            hostname="127.0.0.1",
            port=self.port,
            tls_context=context,
            require_starttls=True,
            auth_required=True,
            auth_require_tls=True,
            authenticator=self.inbox.authenticate,
        )

    def start(self) -> None:
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()


class Rsyslog:
    """rsyslogd in the foreground with a temporary config: UDP and TCP inputs, every message to a file."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.udp_port, self.tcp_port = free_port(socket.SOCK_DGRAM), free_port()
        self.out = directory / "received.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("rsyslogd") or "/usr/sbin/rsyslogd"
        conf = self.dir / "rsyslog.conf"
        # One field per RFC 5424 header part the sender sets, so a test reads back what was parsed.
        conf.write_text(
            f'global(workDirectory="{self.dir}")\n'
            'module(load="imudp")\nmodule(load="imtcp")\n'
            f'input(type="imudp" address="127.0.0.1" port="{self.udp_port}")\n'
            f'input(type="imtcp" address="127.0.0.1" port="{self.tcp_port}")\n'
            'template(name="fields" type="string" '
            'string="%syslogfacility-text%|%syslogseverity-text%|%hostname%|%app-name%|%msgid%|%msg%\\n")\n'
            f'*.* action(type="omfile" file="{self.out}" template="fields")\n',
            encoding="utf-8",
        )
        argv = [binary, "-n", "-f", str(conf), "-i", str(self.dir / "rsyslogd.pid")]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # both inputs start together: TCP answering means UDP is up
            try:
                socket.create_connection(("127.0.0.1", self.tcp_port), timeout=0.5).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(
                        f"rsyslogd exited: {self.proc.stderr.read() if self.proc.stderr else ''!r}"
                    ) from None
                time.sleep(0.1)
        raise RuntimeError("rsyslogd did not listen within 10 s")

    def lines(self, count: int, timeout: float = 10.0) -> list[list[str]]:
        """The first ``count`` received messages, split into their fields (waits for them)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.out.read_text(encoding="utf-8") if self.out.exists() else ""
            lines = [line.split("|", 5) for line in text.splitlines()]
            if len(lines) >= count:
                return lines
            time.sleep(0.1)
        raise AssertionError(f"rsyslogd received {self.out.read_text() if self.out.exists() else 'nothing'}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        if self.proc is not None and self.proc.stderr is not None:
            self.proc.stderr.close()


@pytest.fixture
def rsyslog(tmp_path: Path) -> Iterator[Rsyslog]:
    """A real rsyslogd for the test, stopped afterwards (test_notify*, imported as a fixture)."""
    server = Rsyslog(tmp_path)
    server.start()
    yield server
    server.stop()
