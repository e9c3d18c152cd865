"""/api/storage/iscsi/targets, volumes, snapshots and clones on the api_iscsi recording: the api answers as
it did live, refuses bad names before any tool runs, and never echoes or logs a CHAP secret."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance import api_flows
from fixtures.appliance.replay import load, replay_log

from api.iscsi.service import backstore
from appliance.control.errors import InvalidName

STEPS = api_flows.API_ISCSI
IQN, ESXI, SECRET = api_flows.IQN, api_flows.ESXI, api_flows.CHAP["secret"]


class Flow:
    def __init__(self, tmp_path: Path) -> None:
        self.recording = load("api_iscsi")
        # targetcli rewrites saveconfig.json itself: each read gets the answer recorded at that point
        gateway, self.files, self.runner = replay_log("api_iscsi", tmp_path / "root")
        self.client = api_flows.client(tmp_path / "data", gateway, self.files)


@pytest.fixture
def flow(tmp_path: Path) -> Flow:
    return Flow(tmp_path)


def test_the_recorded_flow_answers_as_it_did_live(flow: Flow, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        answers = api_flows.run(flow.client, STEPS)
    assert answers == flow.recording["api"]
    assert flow.runner.pending == []
    assert answers[1]["status"] == 201 and answers[1]["body"]["type"] == "VOLUME"
    assert answers[3]["body"] == []
    made = answers[4]
    assert made["status"] == 201, made
    assert made["body"] == {
        "iqn": IQN,
        "luns": ["/dev/zvol/tank/lun0"],
        "initiators": [ESXI],
        "chap": True,
        "vaai": {"emulate_3pc": 1, "emulate_caw": 1, "emulate_tpu": 1},
    }
    assert answers[5]["status"] == 409 and answers[5]["body"]["code"] == "already_exists"
    assert answers[6]["status"] == 422 and "not a zvol" in answers[6]["body"]["detail"]
    assert answers[7]["status"] == 404
    assert [t["iqn"] for t in answers[8]["body"]] == [IQN]
    assert answers[9]["status"] == 204 and answers[10]["status"] == 404 and answers[11]["body"] == []
    assert answers[12]["body"]["name"] == "tank/fs@golden"
    assert answers[13]["body"]["origin"] == "tank/fs@golden"
    # the secret reached targetcli (masked on failure by the gateway), never an answer or a log line
    assert any(f"password={SECRET}" in argv for argv in flow.runner.calls)
    assert SECRET not in str(answers) and SECRET not in caplog.text


def test_the_duplicate_is_refused_before_any_tool_runs(flow: Flow) -> None:
    api_flows.run(flow.client, STEPS[:5])
    before = len(flow.runner.calls)
    r = flow.client.post("/api/storage/iscsi/targets", json=STEPS[5][2])
    assert r.status_code == 409 and flow.runner.calls[before:] == []


@pytest.mark.parametrize(
    "body",
    [
        {"iqn": "iqn.2026-01.org.arcvsa:BAD CASE", "zvol": "tank/lun0", "initiators": [ESXI]},
        {"iqn": "iqn.2026-01.org.arcvsa:x;reboot", "zvol": "tank/lun0", "initiators": [ESXI]},
        {"iqn": IQN, "zvol": "tank/lun0$(id)", "initiators": [ESXI]},
        {"iqn": IQN, "zvol": "tank", "initiators": [ESXI]},
        {"iqn": IQN, "zvol": "tank/lun0", "initiators": ["esxi-01"]},
        {"iqn": IQN, "zvol": "tank/lun0", "initiators": []},
        {"iqn": IQN, "zvol": "tank/lun0", "initiators": [ESXI], "chap": {"user": "esxi", "secret": "short"}},
        {"iqn": IQN, "zvol": "tank/lun0", "initiators": [ESXI], "chap": {"user": "esxi", "secret": "x" * 12 + " y"}},
        {"iqn": IQN, "zvol": "tank/lun0", "initiators": [ESXI], "chap": {"user": "-o", "secret": "x" * 16}},
    ],
)  # fmt: skip
def test_bad_targets_are_refused_before_any_tool_runs(flow: Flow, body: dict[str, Any]) -> None:
    r = flow.client.post("/api/storage/iscsi/targets", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["code"] in ("invalid_name", "invalid_input")
    assert flow.runner.calls == []
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
def test_bad_volumes_snapshots_and_clones_are_refused(flow: Flow, path: str, body: dict[str, Any]) -> None:
    r = flow.client.post(path, json=body)
    assert r.status_code == 422, r.text
    assert flow.runner.calls == []


def test_delete_of_an_unknown_or_malformed_target(flow: Flow) -> None:
    api_flows.run(flow.client, STEPS[:4])
    before = len(flow.runner.calls)
    assert flow.client.delete("/api/storage/iscsi/targets/iqn.bad;x").status_code == 422
    assert flow.runner.calls[before:] == []


def test_backstore_names() -> None:
    assert backstore("tank/lun0") == "tank_lun0"
    assert backstore("tank/vdi.lun:1") == "tank_vdi_lun_1"
    long = backstore("tank/" + "a" * 60)
    assert len(long) == 48 and long != backstore("tank/" + "a" * 61)
    with pytest.raises(InvalidName):
        backstore("tank")
