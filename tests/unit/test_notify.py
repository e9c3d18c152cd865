"""/api/settings/notifications and the alert checker, against a real SMTP server (aiosmtpd with
STARTTLS and a login) and a real rsyslogd; the pool is the lab's recorded one, replayed strictly."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance.replay import ReplayRunner, load
from support.api import client_for, logged_in, make_settings
from support.notify_servers import PASSWORD, USER, MailServer, Rsyslog

from api.notify.checker import Checker, published_alerts
from api.notify.table import NotifyConfig
from api.secretbox import SecretBox
from api.state import poll
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway
from appliance.control.observed import Part


@pytest.fixture
def mail(tmp_path: Path) -> Iterator[MailServer]:
    server = MailServer(tmp_path)
    server.start()
    yield server
    server.stop()


def _settings(mail_port: int, **smtp: Any) -> dict[str, Any]:
    return {
        "smtp": {
            "enabled": True,
            "host": "127.0.0.1",
            "port": mail_port,
            "security": "starttls",
            "verify_tls": False,  # the test server's certificate is self-signed
            "username": USER,
            "sender": "vsa@example.com",
            "recipients": ["ops@example.com", "storage@example.com"],
            **smtp,
        },
        "syslog": {"enabled": False, "host": "127.0.0.1", "port": 514, "transport": "udp"},
        "smtp_password": PASSWORD,
    }


def test_settings_are_stored_with_the_password_sealed_and_never_shown(admin: TestClient) -> None:
    assert admin.get("/api/settings/notifications").json()["smtp"]["enabled"] is False
    r = admin.put("/api/settings/notifications", json=_settings(2525))
    assert r.status_code == 200, r.text
    assert r.json()["smtp_password_set"] is True and PASSWORD not in r.text
    assert PASSWORD not in admin.get("/api/settings/notifications").text
    with admin.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        row = db.get(NotifyConfig, 1)
        assert row is not None and row.smtp_password and PASSWORD.encode() not in row.smtp_password
        assert PASSWORD not in row.settings_json
    kept = {k: v for k, v in _settings(2525).items() if k != "smtp_password"}  # absent: kept
    assert admin.put("/api/settings/notifications", json=kept).json()["smtp_password_set"] is True
    removed = admin.put("/api/settings/notifications", json={**kept, "smtp_password": ""})
    assert removed.json()["smtp_password_set"] is False


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"host": "mail.example.com;reboot"}, "host"),
        ({"host": "-bad-.example"}, "host"),
        ({"port": 70000}, "port"),
        ({"port": 0}, "port"),
        ({"recipients": ["ops@example.com\r\nBcc: spy@example.org"]}, "recipients"),
        ({"recipients": ["Ops <ops@example.com>"]}, "recipients"),
        ({"sender": "vsa@example.com\nX-Injected: 1"}, "sender"),
        ({"subject_prefix": "[arcvsa]\r\nBcc: spy@example.org"}, "subject_prefix"),
        ({"recipients": []}, "recipients"),
        ({"security": "none"}, "security"),  # a login over a clear connection
    ],
)
def test_bad_settings_are_refused_with_422(admin: TestClient, change: dict[str, Any], field: str) -> None:
    body = _settings(2525, **change)
    r = admin.put("/api/settings/notifications", json=body)
    assert r.status_code == 422, r.text
    assert field in r.text
    assert admin.get("/api/settings/notifications").json()["smtp"]["enabled"] is False  # nothing stored


def test_all_defaults_are_valid_settings(admin: TestClient) -> None:
    r = admin.put("/api/settings/notifications", json={"smtp": {}, "syslog": {}})  # found by the fuzzer
    assert r.status_code == 200 and admin.get("/api/settings/notifications").json() == r.json()


def test_a_bad_syslog_port_or_host_is_refused(admin: TestClient) -> None:
    for syslog in ({"host": "a b", "port": 514}, {"host": "127.0.0.1", "port": 65536}):
        body = {**_settings(2525), "syslog": {"enabled": True, "transport": "tcp", **syslog}}
        assert admin.put("/api/settings/notifications", json=body).status_code == 422


def test_send_test_delivers_over_starttls_with_the_login(admin: TestClient, mail: MailServer) -> None:
    admin.put("/api/settings/notifications", json=_settings(mail.port))
    r = admin.post("/api/settings/notifications/test")
    assert r.status_code == 200 and r.json() == [{"channel": "smtp", "ok": True, "error": None}]
    assert mail.inbox.logins == [USER]
    (to, message) = mail.inbox.mails[0]
    assert to == ["ops@example.com", "storage@example.com"]
    assert message["Subject"].startswith("[arcvsa] ") and "test" in message["Subject"]
    assert message["From"] == "vsa@example.com"


def test_send_test_reports_a_refusal_without_the_password(
    admin: TestClient, mail: MailServer, caplog: pytest.LogCaptureFixture
) -> None:
    admin.put(
        "/api/settings/notifications", json={**_settings(mail.port), "smtp_password": "wrong-password-1"}
    )
    r = admin.post("/api/settings/notifications/test")
    assert r.status_code == 200 and r.json()[0]["ok"] is False and "535" in r.json()[0]["error"]
    assert "wrong-password-1" not in r.text and "wrong-password-1" not in caplog.text
    # The server's certificate is checked unless told otherwise: the self-signed one is refused.
    admin.put("/api/settings/notifications", json=_settings(mail.port, verify_tls=True))
    refused = admin.post("/api/settings/notifications/test").json()[0]
    assert refused["ok"] is False and "CERTIFICATE_VERIFY_FAILED" in refused["error"]
    assert mail.inbox.mails == []


def test_send_test_needs_a_login(anon: TestClient) -> None:
    assert anon.post("/api/settings/notifications/test").status_code in (401, 403)
    assert anon.get("/api/settings/notifications").status_code == 401


def _pool(percent: float) -> list[dict[str, Any]]:
    """The recorded ``zpool list`` and ``zpool status`` of the healthy pool, ``percent`` allocated."""
    commands: list[dict[str, Any]] = load("pool")["commands"]
    listed = dict(next(c for c in commands if c["argv"] == ["zpool", "list", "-j", "--json-int"]))
    data = json.loads(listed["stdout"])
    props = data["pools"]["tank"]["properties"]
    props["allocated"]["value"] = int(props["size"]["value"] * percent / 100)
    listed["stdout"] = json.dumps(data)
    status = next(c for c in commands if c["argv"] == ["zpool", "status", "-j", "--json-int", "tank"])
    return [listed, status]


def test_the_checker_sends_raised_and_cleared_once_and_survives_servers_down(
    tmp_path: Path, mail: MailServer, rsyslog: Rsyslog, caplog: pytest.LogCaptureFixture
) -> None:
    # The poller's passes: full, full (nothing new), full after a restart, full with syslog down (twice),
    # emptied, emptied again (syslog back).
    runner = ReplayRunner({"commands": _pool(95) * 5 + _pool(40) * 2})
    c = logged_in(client_for(make_settings(tmp_path / "data")))
    state = c.app.state  # type: ignore[attr-defined]
    state.storage_gateway, state.storage_files = Gateway(runner), LocalFiles(tmp_path / "root")
    body = _settings(mail.port)
    body["syslog"] = {"enabled": True, "host": "127.0.0.1", "port": rsyslog.tcp_port, "transport": "tcp"}
    assert c.put("/api/settings/notifications", json=body).status_code == 200
    caplog.set_level(logging.INFO, logger="api.notify.checker")

    def checker() -> Checker:
        source = published_alerts(state.snapshot, tmp_path / "data", poll_interval=10.0)
        return Checker(source, state.sessionmaker, state.secretbox, interval=60)

    def after_a_pass(check: Checker) -> dict[str, int]:
        """What the checker sends once the poller has published the pool's state again."""
        poll.after_change(state, {Part.pools})
        return check.run_once()

    first = checker()
    # nothing published yet: no alert set to compare, so nothing sent (never a false "all cleared")
    assert first.run_once() == {} and "state is not published yet" in caplog.text
    assert runner.calls == []  # the checker reads the published alerts, never a tool
    assert after_a_pass(first) == {"smtp": 1, "syslog": 1}
    assert "critical: pool tank: the pool is 95 % full" in mail.inbox.mails[0][1]["Subject"]
    assert rsyslog.lines(1)[0][4] == "raised" and "[pool/tank/capacity]" in rsyslog.lines(1)[0][5]
    assert after_a_pass(first) == {}  # the same alerts: nothing sent again
    state.snapshot.path.unlink()  # none of this boot (as after a restart): not taken for "all cleared"
    assert first.run_once() == {} and len(mail.inbox.mails) == 1
    assert after_a_pass(checker()) == {}  # nor after a restart (the sent set is in SQLite)

    rsyslog.stop()  # the syslog server goes away; mail still works
    later = checker()
    assert after_a_pass(later) == {} and after_a_pass(later) == {}  # nothing new to send yet
    assert after_a_pass(later) == {"smtp": 1}  # pool emptied: mail says cleared, syslog unreachable
    assert "cleared: pool tank" in mail.inbox.mails[1][1]["Subject"]
    assert len(mail.inbox.mails) == 2
    warnings = [r for r in caplog.records if "syslog not reached" in r.getMessage()]
    assert len(warnings) == 1 and PASSWORD not in caplog.text

    rsyslog.start()  # back: the cleared alert syslog missed is delivered on the next pass
    assert after_a_pass(later) == {"syslog": 1}
    assert [f[4] for f in rsyslog.lines(2)][-1] == "cleared"
    assert "syslog reached again" in caplog.text
    assert runner.pending == []


def test_a_password_sealed_under_a_lost_key_fails_the_send_not_the_api(
    admin: TestClient, mail: MailServer, tmp_path: Path
) -> None:
    admin.put("/api/settings/notifications", json=_settings(mail.port))
    admin.app.state.secretbox = SecretBox(tmp_path / "another.key")  # type: ignore[attr-defined]
    r = admin.post("/api/settings/notifications/test")
    assert r.status_code == 200 and r.json()[0]["ok"] is False and "enter it again" in r.json()[0]["error"]
    assert mail.inbox.mails == []
