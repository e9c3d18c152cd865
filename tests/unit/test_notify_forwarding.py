"""Log forwarding in /api/settings/notifications: the settings' checks, the api_syslog flow replayed strictly
from the lab (rsyslogd -N1 and the restart of the appliance's rsyslog), and a restore that brings it back."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import api_flows
from fixtures.appliance.replay import ReplayRunner, load, replay

from api.notify.schemas import SyslogSettings
from appliance.control import rsyslog
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway

STEPS = api_flows.API_SYSLOG
CHECK = ["rsyslogd", "-N1", "-f", "/dev/stdin"]
RESTART = ["systemctl", "restart", rsyslog.UNIT]
PASSPHRASE = "a long and unguessable passphrase"


def _body(**syslog: Any) -> dict[str, Any]:
    return {"smtp": {}, "syslog": {"host": "192.0.2.20", "forward_logs": True, **syslog}}


def test_forwarding_is_off_by_default_from_info_on() -> None:
    syslog = SyslogSettings()
    assert syslog.forward_logs is False and syslog.forward_severity == "info"
    # settings stored before forwarding existed still load
    assert (
        SyslogSettings.model_validate_json('{"enabled": true, "host": "h", "port": 514}').forward_logs
        is False
    )


@pytest.mark.parametrize(
    ("syslog", "says"),
    [
        ({"host": "localhost"}, "itself"),
        ({"host": "127.0.0.1"}, "itself"),
        ({"host": "::1"}, "itself"),
        ({"host": "LOCALHOST."}, "itself"),
        ({"host": "syslog.example.com\n*.* /tmp/x"}, "host"),
        ({"host": 'h" protocol="udp'}, "host"),
        ({"forward_severity": "loud"}, "forward_severity"),
        ({"forward_severity": "info\n"}, "forward_severity"),
        ({"forward_logs": "maybe"}, "forward_logs"),
        ({"port": 0}, "port"),
    ],
)
def test_bad_forwarding_settings_are_refused_and_nothing_runs(
    admin: TestClient, syslog: dict[str, Any], says: str
) -> None:
    runner = ReplayRunner({"commands": []})
    admin.app.state.storage_gateway = Gateway(runner)  # type: ignore[attr-defined]
    r = admin.put("/api/settings/notifications", json=_body(**syslog))
    assert r.status_code == 422, r.text
    assert says in r.text and r.json()["code"] == "invalid_input"
    assert runner.calls == []
    assert admin.get("/api/settings/notifications").json()["syslog"]["forward_logs"] is False


def test_loopback_is_fine_for_alerts_alone(admin: TestClient) -> None:
    r = admin.put(
        "/api/settings/notifications", json=_body(host="localhost", forward_logs=False, enabled=True)
    )
    assert r.status_code == 200, r.text


class Flow:
    def __init__(self, tmp_path: Path) -> None:
        self.recording = load("api_syslog")
        # reads from the root, which the flow's writes change (as the VM's did); the order is checked below
        gateway, self.files, self.runner = replay("api_syslog", tmp_path / "root")
        self.client = api_flows.client(tmp_path / "data", gateway, self.files)


def test_the_recorded_flow_forwards_changes_refuses_and_stops(tmp_path: Path) -> None:
    flow = Flow(tmp_path)
    started = len(flow.runner.calls)
    answers = api_flows.run(flow.client, STEPS)
    assert answers == flow.recording["api"]
    assert flow.runner.pending == []  # every recorded command ran, in its place
    assert flow.runner.calls[started:] == [CHECK, RESTART, CHECK, RESTART, RESTART]
    assert [a["status"] for a in answers] == [200, 200, 200, 200, 422, 422, 200, 200, 200]
    assert answers[0]["body"]["syslog"]["forward_logs"] is False
    assert answers[3]["body"]["syslog"] == {
        "enabled": True,
        "host": api_flows.HOST,
        "port": api_flows.SYSLOG_PORT,
        "transport": "udp",
        "forward_logs": True,
        "forward_severity": "warning",
    }
    assert answers[6]["body"] == answers[3]["body"]  # the refusals changed nothing
    assert answers[8]["body"]["syslog"]["forward_logs"] is False
    assert not (tmp_path / "root" / rsyslog.DROP_IN.lstrip("/")).exists()  # off: removed


def test_what_rsyslog_was_given_is_the_rendered_drop_in(tmp_path: Path) -> None:
    """The recorded reads of the drop-in are what render() makes now: a change to it must be re-recorded."""
    texts = [e["text"] for e in load("api_syslog")["read_log"] if e["path"] == rsyslog.DROP_IN]
    tcp = rsyslog.Forward(host=api_flows.HOST, port=api_flows.SYSLOG_PORT, transport="tcp", severity="info")
    udp = tcp.model_copy(update={"transport": "udp", "severity": "warning"})
    assert rsyslog.render(tcp) in texts and rsyslog.render(udp) in texts


def test_a_restore_forwards_as_the_backup_says(tmp_path: Path) -> None:
    def appliance(name: str) -> tuple[TestClient, LocalFiles, ReplayRunner]:
        runner = ReplayRunner(load("api_syslog"))
        files = LocalFiles(tmp_path / name / "root")
        return api_flows.client(tmp_path / name / "data", Gateway(runner), files), files, runner

    source, source_files, _ = appliance("source")
    body = _body(host=api_flows.HOST, port=api_flows.SYSLOG_PORT, transport="tcp")
    assert source.put("/api/settings/notifications", json=body).status_code == 200
    backup = source.post("/api/backup", json={"passphrase": PASSPHRASE})
    assert backup.status_code == 200, backup.text

    fresh, fresh_files, runner = appliance("fresh")
    started = len(runner.calls)
    restore = {"file_base64": base64.b64encode(backup.content).decode(), "passphrase": PASSPHRASE}
    r = fresh.post("/api/backup/restore", json=restore)
    assert r.status_code == 200, r.text
    assert r.json()["not_restored"] == []
    converged = {c["section"]: c for c in r.json()["converged"]}
    assert converged["notify"] == {
        "section": "notify",
        "changes": ["log forwarding on: rsyslog restarted"],
        "failure": None,
    }
    assert runner.calls[started:] == [CHECK, RESTART]
    assert fresh_files.read(rsyslog.DROP_IN) == source_files.read(rsyslog.DROP_IN) is not None
