"""GET /api/jobs/{id}/stream: a job's progress as server-sent events, in order, resumable, ending with the job."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker

from api.auth.service import now
from api.deployments.table import Deployment
from api.jobs import service
from api.jobs.table import Job
from api.vcenters.table import VCenter

pytestmark = pytest.mark.timeout(60)  # a stream that never ends fails here


def _factory(client: TestClient) -> sessionmaker[Session]:
    factory: sessionmaker[Session] = client.app.state.sessionmaker  # type: ignore[attr-defined]
    return factory


def _job(client: TestClient) -> int:
    """A running apply job of a stored deployment, with three progress events."""
    with _factory(client)() as db:
        vc = VCenter(
            name="vc", host="vc.example", port=443, username="u", password_sealed=b"x", created_at=now()
        )
        db.add(vc)
        db.flush()
        dep = Deployment(name="dep", vcenter_id=vc.id, plan_json="{}", created_at=now(), updated_at=now())
        db.add(dep)
        db.commit()
        job = service.create(db, dep.id, "apply")
        service.start(db, job.id)
        for i, name in enumerate(["vdi-001", "vdi-002", "vdi-003"], start=1):
            service.record(db, job.id, "done", name, f"made {name}", i, 3)
        return job.id


def _finish(client: TestClient, job_id: int, state: str = "succeeded") -> None:
    with _factory(client)() as db:
        service.finish(db, job_id, state, "3 done", {"vdi-003": "clone failed"} if state == "failed" else {})


def _messages(text: str) -> list[dict[str, Any]]:
    """The SSE messages of a finished stream: {'event', 'data', 'id'?}; comments and retry left out."""
    out = []
    for block in text.split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.splitlines():
            if line.startswith(":") or ":" not in line:
                continue
            key, _, value = line.partition(":")
            fields[key] = value.removeprefix(" ")
        if "event" in fields:
            fields["data"] = json.loads(fields["data"])
            out.append(fields)
    return out


def test_the_stream_needs_a_login(anon: TestClient) -> None:
    r = anon.get("/api/jobs/1/stream")
    assert r.status_code == 401
    assert r.json()["code"] == "not_authenticated"


def test_an_unknown_job_is_404_before_any_stream(admin: TestClient) -> None:
    r = admin.get("/api/jobs/999/stream")
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("application/json")


def test_events_in_order_then_the_end_of_a_finished_job(admin: TestClient) -> None:
    job_id = _job(admin)
    _finish(admin, job_id, "failed")
    r = admin.get(f"/api/jobs/{job_id}/stream")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    messages = _messages(r.text)
    kinds = [m["event"] for m in messages]
    assert kinds[0] == "job" and kinds[-1] == "end"
    progress = [m for m in messages if m["event"] == "progress"]
    assert [m["data"]["object"] for m in progress] == ["vdi-001", "vdi-002", "vdi-003", None]
    assert [int(m["id"]) for m in progress] == [m["data"]["id"] for m in progress]
    assert [m["data"]["id"] for m in progress] == sorted(m["data"]["id"] for m in progress)
    assert progress[-1]["data"]["kind"] == "state"
    end = messages[-1]["data"]
    assert end["state"] == "failed"
    assert end["failures"] == [{"object": "vdi-003", "reason": "clone failed"}]


def test_last_event_id_resumes_after_the_event_seen(admin: TestClient) -> None:
    job_id = _job(admin)
    _finish(admin, job_id)
    first = [m for m in _messages(admin.get(f"/api/jobs/{job_id}/stream").text) if m["event"] == "progress"]
    seen = first[1]["id"]
    again = admin.get(f"/api/jobs/{job_id}/stream", headers={"Last-Event-ID": seen})
    rest = [m for m in _messages(again.text) if m["event"] == "progress"]
    assert [m["id"] for m in rest] == [m["id"] for m in first[2:]]
    by_query = admin.get(f"/api/jobs/{job_id}/stream", params={"after": seen})
    assert [m["id"] for m in _messages(by_query.text) if m["event"] == "progress"] == [m["id"] for m in rest]


def test_a_running_job_streams_until_it_finishes(admin: TestClient) -> None:
    job_id = _job(admin)

    def later() -> None:
        time.sleep(0.8)
        with _factory(admin)() as db:
            service.record(db, job_id, "done", "vdi-004", "made vdi-004", 4, 4)
        time.sleep(0.6)
        _finish(admin, job_id)

    worker = threading.Thread(target=later)
    worker.start()
    started = time.monotonic()
    r = admin.get(f"/api/jobs/{job_id}/stream")
    worker.join()
    assert time.monotonic() - started >= 1.2, "the stream stayed open while the job ran"
    messages = _messages(r.text)
    objects = [m["data"]["object"] for m in messages if m["event"] == "progress"]
    assert objects == ["vdi-001", "vdi-002", "vdi-003", "vdi-004", None]
    states = [m["data"]["state"] for m in messages if m["event"] == "job"]
    assert states[0] == "running" and states[-1] == "succeeded"
    assert messages[-1]["event"] == "end"


def test_a_job_cancelled_before_it_ran_ends_at_once(admin: TestClient) -> None:
    """A cancelled job (before it ran) is finished: the stream says so at once."""
    job_id = _job(admin)
    with _factory(admin)() as db:
        job = db.get(Job, job_id)
        assert job is not None
        job.state = "queued"
        db.commit()
        service.request_cancel(db, job_id)
    messages = _messages(admin.get(f"/api/jobs/{job_id}/stream").text)
    assert messages[-1]["event"] == "end" and messages[-1]["data"]["state"] == "cancelled"
