"""Calibrations in the database and their runs on a background thread.

One at a time: two loads on the same SAN would spoil both figures, so a second request waits its turn
with a 409. The target is checked in the request (422/404/409 before anything is stored or run); the
thread only runs fio. The threads are the control service's (api.calibration.changes; the api's own
where there is none). A run that process left behind when it stopped is marked interrupted at its next
start, never run again on its own: its load was cut mid-step and a LUN ramp writes to the device.
"""

from __future__ import annotations

import json
import logging
import threading

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from api.auth.service import now
from api.calibration.schemas import CalibrationCreate, CalibrationOut
from api.calibration.table import Calibration
from api.errors import Conflict, NotFound
from appliance.control import calibration as cal
from appliance.control.errors import InvalidRequest
from appliance.control.gateway import Gateway

log = logging.getLogger(__name__)
ACTIVE = ("queued", "running")


def out(row: Calibration) -> CalibrationOut:
    """The answer for one row."""
    request = CalibrationCreate.model_validate_json(row.request_json)
    extra = json.loads(row.request_json).get("properties", {})
    result = json.loads(row.result_json) if row.result_json else {}
    ramp = row.kind == "ramp"
    return CalibrationOut(
        id=row.id,
        kind=request.kind,
        target=request.target,
        state=row.state,
        done=row.done,
        total=row.total,
        message=row.message,
        profile=request.profile if ramp else None,
        ramp=request.ramp if ramp else None,
        san_seconds=None if ramp else request.san_seconds,
        steps=[cal.CalibrationStep.model_validate(s) for s in json.loads(row.steps_json)],
        desktops_supported=result.get("desktops_supported"),
        stop_reason=result.get("stop_reason"),
        san=cal.SanCheck.model_validate(result) if result and not ramp else None,
        properties=extra,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
    )


def get(db: Session, calibration_id: int) -> Calibration:
    row = db.get(Calibration, calibration_id)
    if row is None:
        raise NotFound(f"No calibration {calibration_id}")
    return row


def list_all(db: Session) -> list[Calibration]:
    return list(db.scalars(select(Calibration).order_by(Calibration.id.desc())))


def check(gw: Gateway, body: CalibrationCreate) -> cal.Prepared:
    """Refuse a bad request before anything runs: the confirm flag, then the target itself."""
    if body.kind == "san_check" and body.target.kind != "lun":
        raise InvalidRequest("the SAN check runs on a free LUN, not on a dataset")
    if body.target.kind == "lun" and not body.confirm_overwrite:
        raise InvalidRequest(
            f"fio writes to {body.target.name} and its contents are lost: set confirm_overwrite to go on"
        )
    need = cal.ramp_bytes(body.profile, body.ramp) if body.kind == "ramp" else 64 << 20
    return cal.prepare(gw, body.target, need_bytes=need)


def refuse_if_busy(db: Session) -> None:
    """409 while another calibration is queued or running: two loads on one SAN spoil both figures."""
    busy = db.scalar(select(Calibration).where(Calibration.state.in_(ACTIVE)))
    if busy is not None:
        raise Conflict(f"calibration {busy.id} is {busy.state}: one at a time", calibration_id=busy.id)


def create(db: Session, body: CalibrationCreate, prepared: cal.Prepared) -> Calibration:
    """Store a queued calibration; 409 while another one is queued or running."""
    refuse_if_busy(db)
    request = {
        **body.model_dump(mode="json", exclude={"confirm_overwrite"}),
        "properties": prepared.properties,
    }
    row = Calibration(
        kind=body.kind,
        target_kind=body.target.kind,
        target=body.target.name,
        request_json=json.dumps(request),
        state="queued",
        total=len(body.ramp.counts()) if body.kind == "ramp" else 1,
        created_at=now(),
    )
    db.add(row)
    db.commit()
    return row


def delete(db: Session, calibration_id: int) -> None:
    row = get(db, calibration_id)
    if row.state in ACTIVE:
        raise Conflict(f"calibration {calibration_id} is {row.state}: cancel it first")
    db.delete(row)
    db.commit()


def mark_interrupted(factory: sessionmaker[Session]) -> list[int]:
    """Runs a stopped process left queued or running: interrupted, kept with the steps they finished."""
    with factory() as db:
        rows = list(db.scalars(select(Calibration).where(Calibration.state.in_(ACTIVE))))
        for row in rows:
            row.state, row.finished_at = "interrupted", now()
            row.message = "interrupted: the api stopped mid-run"
        db.commit()
        return [r.id for r in rows]


class Runner:
    """Runs calibrations on daemon threads and writes their progress to the database."""

    def __init__(self, factory: sessionmaker[Session]) -> None:
        self.factory = factory
        self._cancel: set[int] = set()
        self._threads: dict[int, threading.Thread] = {}

    def submit(
        self, calibration_id: int, gw: Gateway, body: CalibrationCreate, prepared: cal.Prepared
    ) -> None:
        thread = threading.Thread(
            target=self._run, args=(calibration_id, gw, body, prepared), name=f"calibration-{calibration_id}",
            daemon=True,
        )  # fmt: skip
        self._threads[calibration_id] = thread
        thread.start()

    def cancel(self, calibration_id: int) -> None:
        self._cancel.add(calibration_id)

    def wait(self, calibration_id: int, timeout: float) -> bool:
        """Whether the run's thread ended within ``timeout`` (tests)."""
        thread = self._threads.get(calibration_id)
        if thread is not None:
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    def _update(self, calibration_id: int, **values: object) -> None:
        with self.factory() as db:
            row = get(db, calibration_id)
            for key, value in values.items():
                setattr(row, key, value)
            db.commit()

    def _run(self, calibration_id: int, gw: Gateway, body: CalibrationCreate, prepared: cal.Prepared) -> None:
        self._update(calibration_id, state="running", started_at=now(), message="starting")
        steps: list[cal.CalibrationStep] = []

        def progress(done: int, total: int, message: str, step: cal.CalibrationStep | None) -> None:
            if step is not None:
                steps.append(step)
            values: dict[str, object] = {"done": done, "total": total, "message": message}
            values["steps_json"] = json.dumps([s.model_dump(mode="json") for s in steps])
            self._update(calibration_id, **values)

        try:
            if body.kind == "ramp":
                result: cal.RampResult | cal.SanCheck = cal.ramp(
                    gw, prepared, body.profile, body.ramp, progress, lambda: calibration_id in self._cancel
                )
                assert isinstance(result, cal.RampResult)
                state = "cancelled" if result.stop_reason == "cancelled" else "succeeded"
                message = f"{result.desktops_supported} desktops supported: {result.stop_reason}"
                done = len(result.steps)
            else:
                progress(0, 1, f"SAN check of {body.target.name}: 4 tests of {body.san_seconds} s", None)
                result = cal.san_check(gw, prepared, body.san_seconds)
                state, message, done = "succeeded", "SAN check done", 1
            self._update(
                calibration_id,
                state=state,
                message=message,
                done=done,
                result_json=result.model_dump_json(exclude={"steps"}),
                finished_at=now(),
            )
        except Exception as exc:  # the row records every failure; the thread must not die silently
            log.exception("calibration %d failed", calibration_id)
            self._update(
                calibration_id, state="failed", message=f"{type(exc).__name__}: {exc}", finished_at=now()
            )
        finally:
            self._cancel.discard(calibration_id)
