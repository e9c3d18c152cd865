"""/api/storage/iscsi/targets and its neighbours (volumes, snapshots, clones): bad requests are refused
with a typed 422 naming the field before any tool runs or LIO is read, and never echo a CHAP secret.

The api's tools here are a gateway with no recordings at all (any command fails the test) on a machine
without LIO. Creating, reading and deleting targets on the real LIO is tests/lab/storage/test_lio.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import api_flows
from fixtures.appliance.replay import ReplayRunner

from api.iscsi.service import backstore
from appliance.control import lio
from appliance.control.errors import InvalidName
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway

IQN, ESXI = api_flows.IQN, api_flows.ESXI
GOOD = {"iqn": IQN, "zvol": "tank/lun0", "initiators": [ESXI]}


class Api:
    def __init__(self, tmp_path: Path) -> None:
        self.runner = ReplayRunner({"commands": []})
        self.client: TestClient = api_flows.client(
            tmp_path / "data", Gateway(self.runner), LocalFiles(tmp_path), publish=False
        )


@pytest.fixture
def api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Api:
    def untouched(*_: object) -> None:
        raise AssertionError("LIO was touched")

    # LIO is never reached by a refused request: its entry points fail the test if it is.
    for name in ("reconcile", "remove", "target"):
        monkeypatch.setattr(lio, name, untouched)
    return Api(tmp_path)


def test_a_chap_secret_too_short_is_a_422_naming_the_field(api: Api) -> None:
    r = api.client.post(
        "/api/storage/iscsi/targets", json={**GOOD, "chap": {"user": "esxi", "secret": "x" * 11}}
    )
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == "invalid_input" and body["field"] == "chap"
    assert body["errors"][0]["loc"] == ["body", "chap", "secret"] and "12-64" in body["detail"]
    assert "x" * 11 not in r.text
    assert api.runner.calls == []


@pytest.mark.parametrize(
    "body",
    [
        {**GOOD, "iqn": "iqn.2026-01.org.arcvsa:BAD CASE"},
        {**GOOD, "iqn": "iqn.2026-01.org.arcvsa:x;reboot"},
        {**GOOD, "zvol": "tank/lun0$(id)"},
        {**GOOD, "zvol": "tank"},
        {**GOOD, "initiators": ["esxi-01"]},
        {**GOOD, "initiators": []},
        {**GOOD, "chap": {"user": "esxi", "secret": "short"}},
        {**GOOD, "chap": {"user": "esxi", "secret": "x" * 65}},
        {**GOOD, "chap": {"user": "esxi", "secret": "x" * 12 + " y"}},
        {**GOOD, "chap": {"user": "-o", "secret": "x" * 16}},
    ],
)
def test_bad_targets_are_refused_before_any_tool_runs(api: Api, body: dict[str, Any]) -> None:
    r = api.client.post("/api/storage/iscsi/targets", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["code"] in ("invalid_name", "invalid_input")
    assert api.runner.calls == []
    secret = (body.get("chap") or {}).get("secret")
    if secret:
        assert secret not in r.text


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/storage/volumes", {"name": "tank/v;x", "size_bytes": 1 << 20}),
        ("/api/storage/volumes", {"name": "tank/v", "size_bytes": 0}),
        ("/api/storage/volumes", {"name": "tank/v", "size_bytes": 1 << 20, "volblocksize": "3K"}),
        ("/api/storage/volumes", {"name": "tank/v", "size_bytes": 1000}),
        ("/api/storage/snapshots", {"name": "tank/fs"}),
        ("/api/storage/snapshots", {"name": "tank/fs@a b"}),
        ("/api/storage/clones", {"snapshot": "tank/fs@golden", "target": "tank"}),
        ("/api/storage/clones", {"snapshot": "tank/fs@golden", "target": "tank/c", "properties": {"sync": "disabled"}}),
    ],
)  # fmt: skip
def test_bad_volumes_snapshots_and_clones_are_refused(api: Api, path: str, body: dict[str, Any]) -> None:
    r = api.client.post(path, json=body)
    assert r.status_code == 422, r.text
    assert api.runner.calls == []


def test_delete_of_a_malformed_target_is_refused_before_lio(api: Api) -> None:
    r = api.client.delete("/api/storage/iscsi/targets/iqn.bad;x")
    assert r.status_code == 422 and r.json()["code"] == "invalid_name", r.text
    assert api.runner.calls == []


def test_targets_of_a_machine_without_lio_run_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lio, "CONFIGFS", tmp_path / "no-configfs")
    runner = ReplayRunner({"commands": []})
    client = api_flows.client(tmp_path / "data", Gateway(runner), LocalFiles(tmp_path), publish=False)
    r = client.get("/api/storage/iscsi/targets")
    assert r.status_code == 200 and r.json() == []
    assert runner.calls == []


def test_backstore_names() -> None:
    assert backstore("tank/lun0") == "tank_lun0"
    assert backstore("tank/vdi.lun:1") == "tank_vdi_lun_1"
    long = backstore("tank/" + "a" * 60)
    assert len(long) == 48 and long != backstore("tank/" + "a" * 61)
    with pytest.raises(InvalidName):
        backstore("tank")
