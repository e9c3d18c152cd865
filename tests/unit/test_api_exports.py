"""/api/storage/nfs and /api/storage/exports on the api_exports recording (fixtures.appliance.api_flows):
the api answers what it answered live in the lab VM, drives both NFS backends, and refuses bad input or a
duplicate before any tool runs and without touching the database."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import api_flows
from fixtures.appliance.replay import load, replay
from sqlalchemy import select
from support.api import client_for, logged_in, make_settings

from api.exports import service
from api.exports.table import NfsExport, StorageSetting
from appliance.control.datasets import Dataset
from appliance.control.errors import ToolMissing
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway, Result
from appliance.control.nfs import ganesha, knfsd

HOST = api_flows.HOST
STEPS = api_flows.API_EXPORTS


class Flow:
    """A logged-in api on the recording, and the replay's files and runner."""

    def __init__(self, tmp_path: Path) -> None:
        self.recording = load("api_exports")
        gateway, self.files, self.runner = replay("api_exports", tmp_path / "root")
        self.client = api_flows.client(tmp_path / "data", gateway, self.files)

    def run(self, upto: int | None = None, check: Any = None) -> list[dict[str, Any]]:
        return api_flows.run(self.client, STEPS[:upto], check)

    def rows(self) -> list[tuple[int, str, str, list[str]]]:
        with self.client.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
            return [
                (r.export_id, r.dataset, r.protocol, json.loads(r.clients_json))
                for r in db.scalars(select(NfsExport).order_by(NfsExport.export_id))
            ]


@pytest.fixture
def flow(tmp_path: Path) -> Flow:
    return Flow(tmp_path)


def test_the_recorded_flow_answers_as_it_did_live(flow: Flow) -> None:
    seen: dict[int, list[str]] = {}

    def files_at(i: int, step: api_flows.Step, answer: Any) -> None:
        seen[i] = flow.files.listdir(ganesha.EXPORTS_DIR) + flow.files.listdir(knfsd.EXPORTS_DIR)

    answers = flow.run(check=files_at)
    assert answers == flow.recording["api"]
    assert flow.runner.pending == []  # every command the api ran live, it ran again, nothing more
    created, missing, second = answers[4], answers[5], answers[6]
    assert created["status"] == 201 and created["body"]["export_id"] == 101
    assert created["body"]["path"] == "/tank/ds1" and created["body"]["active"] is True
    assert missing["status"] == 404 and "tank/nosuch" in missing["body"]["detail"]
    assert second["body"]["export_id"] == 102 and second["body"]["protocol"] == "4.1"
    assert [e["active"] for e in answers[7]["body"]] == [True, True]
    assert answers[8]["body"]["clients"] == [HOST, "10.0.2.16"]
    assert answers[9]["body"]["counters_available"] is True
    # knfsd: ganesha emptied, the kernel server's files written; no per-export counters
    assert answers[10]["body"]["backend"] == "knfsd"
    assert seen[10] == ["arcvsa-101.exports", "arcvsa-102.exports"]
    assert answers[11]["body"]["backend"] == "knfsd" and all(
        e["active"] for e in answers[11]["body"]["exports"]
    )
    assert answers[12]["body"]["counters_available"] is False and answers[12]["body"]["read_bytes"] == 0
    # back to ganesha with the one export left
    assert answers[14]["body"]["backend"] == "ganesha" and seen[14] == ["arcvsa-101.conf"]
    assert answers[15]["body"]["exports"][0]["active"] is True
    assert answers[16]["status"] == 204 and answers[17]["body"] == [] and seen[17] == []
    assert flow.rows() == []


def test_the_backend_switch_stops_the_other_server(flow: Flow) -> None:
    flow.run(upto=11)
    calls = [c for c in flow.runner.calls if c[0] == "systemctl"]
    assert ["systemctl", "disable", "--now", "nfs-ganesha"] in calls
    assert calls.index(["systemctl", "disable", "--now", "nfs-ganesha"]) < calls.index(
        ["systemctl", "enable", "--now", "nfs-server"]
    )
    conf = flow.files.read(knfsd.NFS_CONF) or ""
    assert "vers3=y" in conf and "vers4.1=y" in conf
    with flow.client.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        assert db.get(StorageSetting, service.BACKEND_KEY).value == "knfsd"  # type: ignore[union-attr]


def test_an_unknown_dataset_runs_only_the_lookup(flow: Flow) -> None:
    flow.run(upto=5)
    before, rows = len(flow.runner.calls), flow.rows()
    r = flow.client.post("/api/storage/exports", json=STEPS[5][2])
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    assert [c[:2] for c in flow.runner.calls[before:]] == [["zfs", "get"]]
    assert flow.rows() == rows


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"dataset": "tank/ds1", "protocol": "4.1", "clients": [HOST]}, 409, "already_exists"),
        ({"dataset": "tank/ds1", "protocol": "3", "clients": ["10.0.2.99", HOST]}, 409, "already_exists"),
        ({"dataset": "tank/ds2", "protocol": "3", "clients": [HOST], "export_id": 101}, 409, "already_exists"),
        ({"dataset": "tank/ds2;reboot", "protocol": "3", "clients": [HOST]}, 422, "invalid_name"),
        ({"dataset": "tank/$(id)", "protocol": "3", "clients": [HOST]}, 422, "invalid_name"),
        ({"dataset": "tank", "protocol": "3", "clients": [HOST]}, 422, "invalid_name"),
        ({"dataset": "-o/x", "protocol": "3", "clients": [HOST]}, 422, "invalid_name"),
        ({"dataset": "tank/ds2", "protocol": "3", "clients": ["esxi-01.example"]}, 422, "invalid_name"),
        ({"dataset": "tank/ds2", "protocol": "3", "clients": ["10.0.2.0/24"]}, 422, "invalid_name"),
        ({"dataset": "tank/ds2", "protocol": "3", "clients": ["*"]}, 422, "invalid_name"),
        ({"dataset": "tank/ds2", "protocol": "3", "clients": [HOST, HOST]}, 422, "invalid_name"),
        ({"dataset": "tank/ds2", "protocol": "3", "clients": []}, 422, "invalid_input"),
        ({"dataset": "tank/ds2", "protocol": "4.0", "clients": [HOST]}, 422, "invalid_input"),
        ({"dataset": "tank/ds2", "protocol": "3", "clients": [HOST], "export_id": 1}, 422, "invalid_input"),
    ],
)  # fmt: skip
def test_bad_input_and_duplicates_are_refused_before_any_tool_runs(
    flow: Flow, body: dict[str, object], status: int, code: str
) -> None:
    flow.run(upto=5)  # tank/ds1 exported to HOST over NFS 3 as export 101
    before, rows = len(flow.runner.calls), flow.rows()
    r = flow.client.post("/api/storage/exports", json=body)
    assert r.status_code == status, r.text
    assert r.json()["code"] == code and r.json()["detail"]
    assert flow.runner.calls[before:] == []
    assert flow.rows() == rows


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("PUT", "/api/storage/exports/999", {"clients": [HOST]}, 404),
        ("DELETE", "/api/storage/exports/999", None, 404),
        ("GET", "/api/storage/exports/999/io", None, 404),
        ("PUT", "/api/storage/exports/101", {"clients": ["10.0.2.2; rm -rf /"]}, 422),
        ("PUT", "/api/storage/nfs/backend", {"backend": "nfsd"}, 422),
    ],
)
def test_unknown_exports_and_bad_updates_change_nothing(
    flow: Flow, method: str, path: str, body: dict[str, object] | None, status: int
) -> None:
    flow.run(upto=5)
    before, rows = len(flow.runner.calls), flow.rows()
    r = flow.client.request(method, path, json=body)
    assert r.status_code == status, r.text
    assert flow.runner.calls[before:] == [] and flow.rows() == rows


def test_first_boot_choice_until_changed(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "data")
    settings.etc_dir.mkdir(parents=True)
    settings.appliance_config.write_text(json.dumps({"role": "manager", "nfs_backend": "knfsd"}))
    client = logged_in(client_for(settings))
    r = client.get("/api/storage/nfs")
    assert r.json() == {"backend": "knfsd", "exports": []}


class MissingTools:
    """A runner on a host without the tools: every command fails as the subprocess runner says it."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def execute(self, argv: Any, *, timeout: float, input_text: str | None = None) -> Result:
        self.calls.append(list(argv))
        raise ToolMissing(f"{argv[0]} is not installed on this machine")


def test_api_start_off_the_appliance_reconciles_nothing(anon: TestClient) -> None:
    assert anon.app.state.nfs_start is None  # type: ignore[attr-defined]


def test_api_start_on_an_appliance_without_tools_logs_and_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    settings = make_settings(tmp_path / "data")
    settings.etc_dir.mkdir(parents=True)
    settings.build_manifest.write_text("{}")
    runner = MissingTools()
    monkeypatch.setattr("api.app.Gateway", lambda _subprocesses, **kw: Gateway(runner, **kw))
    monkeypatch.setattr("api.app.LocalFiles", lambda root: LocalFiles(tmp_path / "root"))
    with caplog.at_level(logging.INFO, logger="api.exports.service"):
        client = client_for(settings)
        client.app.state.nfs_start.join(10)  # type: ignore[attr-defined]
        client.app.state.state_start.join(10)  # type: ignore[attr-defined]
    assert ["systemctl", "disable", "--now", "nfs-server"] in runner.calls
    assert "could not be reconciled at start" in caplog.text
    assert client.get("/api/health").status_code == 200
    # the state observed at start holds the tools' own error, which the reads answer with
    r = logged_in(client).get("/api/storage/pools")
    assert (
        r.status_code == 502 and r.json()["code"] == "system_fault" and "not installed" in r.json()["detail"]
    )


def test_api_start_on_an_appliance_serves_the_chosen_backend(tmp_path: Path) -> None:
    # A fresh database: ganesha (no appliance.json), no exports: what PUT backend ganesha does.
    at_start, by_put = Flow(tmp_path / "start"), Flow(tmp_path / "put")
    settings = at_start.client.app.state.settings  # type: ignore[attr-defined]
    settings.etc_dir.mkdir(parents=True)
    settings.build_manifest.write_text("{}")
    thread = service.start(at_start.client.app.state)  # type: ignore[attr-defined]
    assert thread is not None
    thread.join(10)
    by_put.run(upto=1)
    # the same commands, and the PUT then refreshes what ganesha serves before it answers
    assert at_start.runner.calls and at_start.runner.calls == by_put.runner.calls[:-1]
    assert by_put.runner.calls[-1][-2:] == ["org.ganesha.nfsd.exportmgr", "ShowExports"]
    assert at_start.files.read(ganesha.MAIN_CONF) == ganesha.render_main()


def _dataset(kind: str, mountpoint: str | None) -> Dataset:
    return Dataset(name="tank/ds1", type=kind, used=0, available=0, referenced=0, logicalused=0,
                   compressratio=1.0, mountpoint=mountpoint, origin=None, properties={}, local=[])  # fmt: skip


def test_a_dataset_is_exported_only_at_its_own_mount_point() -> None:
    """The rule both a new export and a restored one obey, one wrong property at a time."""
    assert service.unexportable("tank/ds1", _dataset("FILESYSTEM", "/tank/ds1")) is None
    volume = service.unexportable("tank/ds1", _dataset("VOLUME", None))
    assert volume == "tank/ds1 is not a mounted file system (type VOLUME, mountpoint None)"
    for unmounted in ("legacy", "none", "-", None):
        reason = service.unexportable("tank/ds1", _dataset("FILESYSTEM", unmounted))
        assert reason is not None and "is not a mounted file system" in reason
    for elsewhere in ("/tank/ds1/", "/tank/ds", "/mnt/tank/ds1", "/tank"):
        reason = service.unexportable("tank/ds1", _dataset("FILESYSTEM", elsewhere))
        assert reason == (
            f"tank/ds1 is mounted at {elsewhere}: arcvsa exports a dataset at its own mount point,"
            " /tank/ds1 (zfs inherit mountpoint tank/ds1)"
        )
