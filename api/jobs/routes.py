"""/api/jobs: progress, events, cancel and resume of apply/destroy jobs."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query, Request, status
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from api.deps import Db
from api.errors import Conflict, ErrorBody
from api.jobs import service, stream
from api.jobs.runner import runner_of
from api.jobs.schemas import JobEventOut, JobOut

router = APIRouter(prefix="/api/jobs", tags=["jobs"])
NOT_FOUND: dict[int | str, dict[str, object]] = {404: {"model": ErrorBody}}
CONFLICT: dict[int | str, dict[str, object]] = {409: {"model": ErrorBody}}


@router.get("")
def list_jobs(db: Db, deployment_id: int | None = None) -> list[JobOut]:
    """Jobs, newest first; optionally of one deployment."""
    return [service.out(j) for j in service.list_all(db, deployment_id)]


@router.get("/{job_id}", responses=NOT_FOUND)
def get_job(job_id: int, db: Db) -> JobOut:
    """One job's state and overall progress."""
    return service.out(service.get(db, job_id))


@router.get("/{job_id}/events", responses=NOT_FOUND)
def job_events(
    job_id: int,
    db: Db,
    after: Annotated[int, Query(ge=0, description="Only events with a larger id")] = 0,
    limit: Annotated[int, Query(ge=1, le=1000, description="At most this many")] = 200,
) -> list[JobEventOut]:
    """Progress events (per object), oldest first."""
    return service.events(db, job_id, after, limit)


@router.get(
    "/{job_id}/stream",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
            "description": "Server-sent events: `job` (JobOut) on every change, `progress` (JobEventOut, "
            "`id:` its event id) per event, `end` (JobOut) when the job has finished",
        },
        **NOT_FOUND,
    },
)
async def job_stream(
    job_id: int,
    request: Request,
    after: Annotated[int, Query(ge=0, description="Only events with a larger id")] = 0,
    last_event_id: Annotated[
        str | None, Header(description="Sent by a reconnecting browser: resume after this event")
    ] = None,
) -> StreamingResponse:
    """Follow a job live: its state and its progress events as they happen, until it finishes."""
    factory = request.app.state.sessionmaker
    start = stream.last_event_id(last_event_id, after)
    await run_in_threadpool(stream.read, factory, job_id, start)  # 404 before the stream starts
    return StreamingResponse(
        stream.events(factory, job_id, start),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@router.post("/{job_id}/cancel", status_code=status.HTTP_202_ACCEPTED, responses={**NOT_FOUND, **CONFLICT})
def cancel_job(job_id: int, request: Request, db: Db) -> JobOut:
    """Stop starting new tasks; those in flight finish. What was made stays owned by the deployment."""
    job = service.request_cancel(db, job_id)
    runner_of(request).cancel(job_id)
    return service.out(job)


@router.post("/{job_id}/resume", status_code=status.HTTP_202_ACCEPTED, responses={**NOT_FOUND, **CONFLICT})
def resume_job(job_id: int, request: Request, db: Db) -> JobOut:
    """Run a failed or cancelled job again: it does only what is still missing."""
    job = service.get(db, job_id)
    if job.state not in ("failed", "cancelled"):
        raise Conflict(f"job {job_id} is {job.state}; only failed or cancelled jobs resume")
    if (busy := service.active_of(db, job.deployment_id)) is not None:
        raise Conflict(f"job {busy.id} of this deployment is {busy.state}", job_id=busy.id)
    job.state, job.cancel_requested = "queued", False
    db.commit()
    runner_of(request).submit(job_id)
    return service.out(job)
