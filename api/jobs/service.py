"""Jobs in the database: create, read, record progress, finish, cancel."""

from __future__ import annotations

import json

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from api.auth.service import now
from api.errors import Conflict, NotFound
from api.jobs.schemas import Failure, JobEventOut, JobOut
from api.jobs.table import Job, JobEvent

ACTIVE = ("queued", "running", "interrupted")
FINAL = ("succeeded", "failed", "cancelled")


def out(job: Job) -> JobOut:
    failures = [Failure(object=o, reason=r) for o, r in json.loads(job.failures_json or "[]")]
    return JobOut.model_validate(
        {**{c: getattr(job, c) for c in JobOut.model_fields if c != "failures"}, "failures": failures}
    )


def get(db: Session, job_id: int) -> Job:
    job = db.get(Job, job_id)
    if job is None:
        raise NotFound(f"No job {job_id}")
    return job


def list_all(db: Session, deployment_id: int | None = None) -> list[Job]:
    query = select(Job).order_by(Job.id.desc())
    if deployment_id is not None:
        query = query.where(Job.deployment_id == deployment_id)
    return list(db.scalars(query))


def active_of(db: Session, deployment_id: int) -> Job | None:
    return db.scalar(select(Job).where(Job.deployment_id == deployment_id, Job.state.in_(ACTIVE)))


def any_active(db: Session, kind: str) -> Job | None:
    """A job of ``kind`` of any deployment that is not over."""
    return db.scalar(select(Job).where(Job.kind == kind, Job.state.in_(ACTIVE)).limit(1))


def create(db: Session, deployment_id: int, kind: str) -> Job:
    if (busy := active_of(db, deployment_id)) is not None:
        raise Conflict(
            f"job {busy.id} ({busy.kind}) of this deployment is {busy.state}; wait or cancel it",
            job_id=busy.id,
        )
    job = Job(deployment_id=deployment_id, kind=kind, state="queued", created_at=now())
    db.add(job)
    db.commit()
    return job


def events(db: Session, job_id: int, after: int, limit: int) -> list[JobEventOut]:
    get(db, job_id)
    rows = db.scalars(
        select(JobEvent)
        .where(JobEvent.job_id == job_id, JobEvent.id > after)
        .order_by(JobEvent.id)
        .limit(limit)
    )
    return [JobEventOut.model_validate(r) for r in rows]


def clone_tasks(db: Session, deployment_id: int) -> dict[str, str]:
    """{desktop: clone task moid, or "" if asked for unanswered} from 'task' events, the latest per desktop."""
    rows = db.execute(
        select(JobEvent.object, JobEvent.message)
        .join(Job, Job.id == JobEvent.job_id)
        .where(Job.deployment_id == deployment_id, JobEvent.kind == "task")
        .order_by(JobEvent.id)
    )
    return {obj: moid for obj, moid in rows if obj}


def record(db: Session, job_id: int, kind: str, obj: str | None, message: str, done: int, total: int) -> None:
    db.add(JobEvent(job_id=job_id, at=now(), kind=kind, object=obj, message=message, done=done, total=total))
    db.execute(update(Job).where(Job.id == job_id).values(done=done, total=total))
    db.commit()


def start(db: Session, job_id: int) -> Job:
    job = get(db, job_id)
    job.state, job.started_at, job.runs, job.finished_at = "running", now(), job.runs + 1, None
    db.commit()
    return job


def finish(
    db: Session, job_id: int, state: str, message: str, failures: dict[str, str] | None = None
) -> None:
    job = get(db, job_id)
    job.state, job.message, job.finished_at = state, message, now()
    job.failures_json = json.dumps(sorted((failures or {}).items()))
    db.add(
        JobEvent(
            job_id=job_id,
            at=now(),
            kind="state",
            object=None,
            message=f"{state}: {message}",
            done=job.done,
            total=job.total,
        )
    )
    db.commit()


def request_cancel(db: Session, job_id: int) -> Job:
    job = get(db, job_id)
    if job.state in FINAL:
        raise Conflict(f"job {job_id} is {job.state} already")
    job.cancel_requested = True
    if job.state in ("queued", "interrupted"):
        job.state, job.finished_at, job.message = "cancelled", now(), "cancelled before it ran"
    db.commit()
    return job


def resumable(db: Session) -> list[Job]:
    """Jobs a stopped api left behind: mark them interrupted; the runner starts them again."""
    rows = list(db.scalars(select(Job).where(Job.state.in_(ACTIVE)).order_by(Job.id)))
    for job in [j for j in rows if j.cancel_requested]:  # cancelled, then the api stopped: keep it so
        job.state, job.finished_at, job.message = (
            "cancelled",
            now(),
            "cancelled; the api stopped before it ended",
        )
    rows = [j for j in rows if not j.cancel_requested]
    for job in rows:
        if job.state == "running":
            job.state = "interrupted"
            db.add(
                JobEvent(
                    job_id=job.id,
                    at=now(),
                    kind="state",
                    object=None,
                    message="interrupted: the api stopped mid-run; resuming",
                    done=job.done,
                    total=job.total,
                )
            )
    db.commit()
    return rows
