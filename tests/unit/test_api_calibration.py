"""/api/calibrations on the calibration recording (recordings/calibration.json): the same runs as the lab
recording, in its order, through the api and its background runner; bad input refused before any tool
runs; one calibration at a time; results kept; a run cut by an api stop is marked interrupted."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import api_flows
from fixtures.appliance import calibration_flows as flows
from fixtures.appliance.replay import ReplayRunner, load, replay
from support.api import client_for, logged_in, make_settings

from api.auth.service import now
from api.calibration.table import Calibration
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway, Result


def _client(tmp_path: Path, gateway: Gateway) -> TestClient:
    return api_flows.client(tmp_path / "data", gateway, LocalFiles(tmp_path / "root"), publish=False)


def _finish(c: TestClient, answer: dict[str, Any]) -> dict[str, Any]:
    runner = c.app.state.calibrations  # type: ignore[attr-defined]
    assert runner.wait(answer["id"], 30), "the calibration did not end"
    r = c.get(f"/api/calibrations/{answer['id']}")
    assert r.status_code == 200
    body: dict[str, Any] = r.json()
    return body


def test_the_recorded_runs_through_the_api(tmp_path: Path) -> None:
    figures = load("calibration")["figures"]
    gateway, _, runner = replay("calibration", tmp_path / "root")
    c = _client(tmp_path, gateway)
    r = c.post("/api/calibrations", json=flows.body("san_check", flows.SAN_LUN))
    assert r.status_code == 202, r.text
    assert r.json()["state"] in ("queued", "running") and r.json()["total"] == 1
    san = _finish(c, r.json())
    assert san["state"] == "succeeded" and san["san"] == figures["san"] and san["steps"] == []
    for name, target in (("lun", flows.RAMP_LUN), ("dataset", flows.RAMP_DATASET)):
        r = c.post("/api/calibrations", json=flows.body("ramp", target))
        assert r.status_code == 202, r.text
        done = _finish(c, r.json())
        assert done["state"] == "succeeded", done["message"]
        assert done["desktops_supported"] == figures[name]["desktops_supported"]
        assert done["stop_reason"] == figures[name]["stop_reason"]
        assert done["steps"] == figures[name]["steps"] and done["done"] == len(done["steps"])
        assert done["message"].startswith(f"{done['desktops_supported']} desktops supported")
    assert done["properties"]["sync"] == "standard"  # the dataset's own, recorded with the run
    busy = c.post("/api/calibrations", json=flows.body("ramp", flows.IN_USE))
    assert busy.status_code == 409 and busy.json()["code"] == "device_in_use"
    unknown = c.post("/api/calibrations", json=flows.body("ramp", flows.UNKNOWN))
    assert unknown.status_code == 404
    assert runner.pending == []  # the api ran exactly what the lab recording ran
    listed = c.get("/api/calibrations").json()
    assert [x["kind"] for x in listed] == ["ramp", "ramp", "san_check"]  # newest first; refusals not kept
    assert c.delete(f"/api/calibrations/{san['id']}").status_code == 204
    assert c.get(f"/api/calibrations/{san['id']}").status_code == 404
    assert c.delete(f"/api/calibrations/{san['id']}").status_code == 404


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({**flows.body("ramp", flows.RAMP_LUN), "confirm_overwrite": False}, 422, "invalid_request"),
        ({**flows.body("san_check", flows.SAN_LUN), "confirm_overwrite": False}, 422, "invalid_request"),
        (flows.body("san_check", flows.RAMP_DATASET), 422, "invalid_request"),
        ({**flows.body("ramp", flows.RAMP_DATASET), "ramp": {"threshold_ms": 0}}, 422, "invalid_input"),
        ({**flows.body("ramp", flows.RAMP_DATASET), "ramp": {"start": 50, "max": 10}}, 422, "invalid_request"),
        ({**flows.body("ramp", flows.RAMP_DATASET), "ramp": {"step_seconds": 100_000}}, 422, "invalid_input"),
        ({**flows.body("ramp", flows.RAMP_DATASET), "profile": {"read_percent": 101}}, 422, "invalid_input"),
        ({**flows.body("ramp", flows.RAMP_DATASET), "profile": {"read_bssplit": "32k;rm"}}, 422, "invalid_input"),
        ({**flows.body("san_check", flows.SAN_LUN), "san_seconds": 1}, 422, "invalid_input"),
        (flows.body("ramp", flows.SAN_LUN.model_copy(update={"name": "/dev/sdb;reboot"})), 422, "invalid_name"),
        (flows.body("ramp", flows.RAMP_DATASET.model_copy(update={"name": "tank/a b"})), 422, "invalid_name"),
        ({**flows.body("ramp", flows.RAMP_DATASET), "target": {"kind": "zvol", "name": "tank/v"}}, 422, "invalid_input"),
    ],
)  # fmt: skip
def test_bad_input_is_refused_before_any_tool_runs(
    tmp_path: Path, body: dict[str, Any], status: int, code: str
) -> None:
    runner = ReplayRunner({"commands": []})
    c = _client(tmp_path, Gateway(runner))
    r = c.post("/api/calibrations", json=body)
    assert (r.status_code, r.json()["code"]) == (status, code), r.text
    assert runner.calls == []
    assert c.get("/api/calibrations").json() == []


class _Held:
    """The recording's answers, with fio held until the test lets it go."""

    def __init__(self, inner: ReplayRunner) -> None:
        self.inner = inner
        self.go = threading.Event()
        self.held = threading.Event()  # set once fio is waiting, so a test acts mid-step

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        if argv[0] == "fio":
            self.held.set()
            assert self.go.wait(30)
        return self.inner.execute(argv, timeout=timeout, input_text=input_text)


def test_one_calibration_at_a_time_and_a_running_one_is_not_deleted(tmp_path: Path) -> None:
    _, _, inner = replay("calibration", tmp_path / "root")
    held = _Held(inner)
    c = _client(tmp_path, Gateway(held))
    first = c.post("/api/calibrations", json=flows.body("san_check", flows.SAN_LUN)).json()
    calls = len(inner.calls)
    second = c.post("/api/calibrations", json=flows.body("ramp", flows.RAMP_LUN))
    assert second.status_code == 409 and second.json()["calibration_id"] == first["id"]
    assert len(inner.calls) == calls  # refused before any tool ran
    assert c.delete(f"/api/calibrations/{first['id']}").status_code == 409
    held.go.set()
    assert _finish(c, first)["state"] == "succeeded"
    assert c.post(f"/api/calibrations/{first['id']}/cancel").status_code == 409  # finished already


def test_a_cancelled_ramp_stops_after_its_step_and_keeps_it(tmp_path: Path) -> None:
    _, _, inner = replay("calibration", tmp_path / "root")
    held = _Held(inner)
    c = _client(tmp_path, Gateway(held))
    ramp = c.post("/api/calibrations", json=flows.body("ramp", flows.RAMP_LUN)).json()
    assert held.held.wait(30), "the first step's fio never ran"  # cancel mid-step, not before it
    assert c.post(f"/api/calibrations/{ramp['id']}/cancel").status_code == 202
    held.go.set()
    done = _finish(c, ramp)
    assert (done["state"], done["stop_reason"], len(done["steps"])) == ("cancelled", "cancelled", 1)
    assert [a[0] for a in inner.calls] == ["lsblk", "fio"]  # no step after the cancel


def test_a_run_cut_by_an_api_stop_is_marked_interrupted(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "data")
    with client_for(settings) as c, c.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        request = json.dumps(flows.body("ramp", flows.RAMP_DATASET))
        db.add(
            Calibration(
                kind="ramp", target_kind="dataset", target=flows.DATASET, request_json=request, state="running",
                total=6, created_at=now(),
            )
        )  # fmt: skip
        db.commit()
    with client_for(settings) as again:  # the api starts again
        body = logged_in(again).get("/api/calibrations").json()
    assert [(x["state"], x["message"]) for x in body] == [
        ("interrupted", "interrupted: the api stopped mid-run")
    ]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/calibrations"),
        ("POST", "/api/calibrations"),
        ("GET", "/api/calibrations/1"),
        ("POST", "/api/calibrations/1/cancel"),
        ("DELETE", "/api/calibrations/1"),
    ],
)
def test_every_route_needs_a_login(anon: TestClient, method: str, path: str) -> None:
    r = anon.request(method, path, json=flows.body("ramp", flows.RAMP_DATASET))
    assert r.status_code == 401
