"""/api/tuning: profiles and the calculator as the library has them; module parameters on the api_tuning
recording (sysfs values read in the lab VM), changed live and persisted, bad names refused unwritten."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import api_flows
from fixtures.appliance.replay import load, replay
from zfs_tuning import calculator

from appliance.control import modparams

STEPS = api_flows.API_TUNING


def test_profiles_each_with_its_reasons(admin: TestClient) -> None:
    r = admin.get("/api/tuning/profiles")
    assert r.status_code == 200
    kinds = {p["name"]: p for p in r.json()}
    assert set(kinds) == {
        "stateless-linked",
        "persistent-linked",
        "persistent-full",
        "stateless-full",
        "generic",
    }
    for profile in kinds.values():
        assert profile["dataset"]["sync"] != "disabled" and profile["why"]


def test_recommendation_is_the_calculators_plan(admin: TestClient) -> None:
    inputs = {
        "pool_type": "stateless-linked",
        "desktops": 200,
        "desktop_gib": 4,
        "golden_gib": 40,
        "ram_gib": 32,
    }
    r = admin.post("/api/tuning/recommendation", json={**inputs, "l2arc_ssd_gib": 200})
    assert r.status_code == 200, r.text
    plan = r.json()
    assert plan == calculator.plan(calculator.SizingInput(**inputs, l2arc_ssd_gib=200)).model_dump(
        mode="json"
    )
    assert all(rec["why"] for rec in plan["recommendations"])
    bad = admin.post("/api/tuning/recommendation", json={**inputs, "desktops": 0})
    assert bad.status_code == 422 and bad.json()["field"] == "desktops"


class Flow:
    def __init__(self, tmp_path: Path) -> None:
        self.recording = load("api_tuning")
        gateway, self.files, self.runner = replay("api_tuning", tmp_path / "root")
        api_flows.held_at_start(self.files)
        self.client = api_flows.client(tmp_path / "data", gateway, self.files)


@pytest.fixture
def flow(tmp_path: Path) -> Flow:
    return Flow(tmp_path)


def test_parameters_are_applied_live_and_persisted(flow: Flow) -> None:
    started = len(flow.runner.calls)
    answers = api_flows.run(flow.client, STEPS)
    assert answers == flow.recording["api"]
    assert flow.runner.calls[started:] == []  # sysfs and modprobe.d only: no tool runs
    before = {p["name"]: p for p in answers[0]["body"]}
    assert {"zfs_arc_max", "zfs_txg_timeout", "l2arc_noprefetch"} <= set(before)
    assert answers[1]["body"]["changed_live"]["zfs_txg_timeout"] == 10
    after = {p["name"]: p for p in answers[2]["body"]}
    assert after["zfs_txg_timeout"] == {"name": "zfs_txg_timeout", "value": 10, "persisted": 10}
    assert answers[3]["body"]["changed_live"] == {"zfs_txg_timeout": 5}
    assert answers[4]["body"] == {"changed_live": {}, "persisted": False}  # idempotent
    assert flow.files.read(modparams.MODPROBE) == modparams.render(api_flows.TUNED)
    assert flow.files.read(f"{modparams.SYSFS}/zfs_txg_timeout") == "5\n"


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"zfs_txg_timeout": 10, "zfs_no_such_knob": 1}, 404),
        ({"zfs_txg_timeout": 10, "../../../etc/passwd": 1}, 422),
        ({"zfs_txg_timeout": 10, "zfs_arc_max;reboot": 1}, 422),
        ({"zfs_txg_timeout": -1}, 422),
        ({"zfs_txg_timeout": "ten"}, 422),
        ({}, 422),
        ({"zfs_txg_timeout": 10, "zil_replay_disable": 1}, 422),  # each loses acknowledged writes
        ({"zfs_txg_timeout": 10, "zfs_nocacheflush": 1}, 422),
        ({"zfs_txg_timeout": 10, "zil_nocacheflush": 1}, 422),
    ],
)
def test_bad_parameters_write_nothing(flow: Flow, params: dict[str, Any], status: int) -> None:
    api_flows.run(flow.client, STEPS[:1])
    snapshot = {
        name: flow.files.read(f"{modparams.SYSFS}/{name}") for name in ("zfs_txg_timeout", "zfs_arc_max")
    }
    persisted = flow.files.read(modparams.MODPROBE)
    r = flow.client.put("/api/tuning/parameters", json={"params": params})
    assert r.status_code == status, r.text
    assert {n: flow.files.read(f"{modparams.SYSFS}/{n}") for n in snapshot} == snapshot
    assert flow.files.read(modparams.MODPROBE) == persisted
