"""/api/jobs: progress, events, cancel and resume of apply/destroy jobs."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query, Request, status
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from api.deployments import service as deployments
from api.deployments.held import held_of
from api.deployments.schemas import JobSecrets
from api.deps import Box, Db
from api.errors import ErrorBody
from api.jobs import service, stream
from api.jobs.runner import runner_of
from api.jobs.schemas import JobEventOut, JobOut

router = APIRouter(prefix="/api/jobs", tags=["jobs"])
NOT_FOUND: dict[int | str, dict[str, object]] = {404: {"model": ErrorBody}}
CONFLICT: dict[int | str, dict[str, object]] = {409: {"model": ErrorBody}}
SECRET_MISSING: dict[int | str, dict[str, object]] = {
    422: {"model": ErrorBody, "description": "secret_required: the job needs the secret `field` names"}
}


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
    """Stop the job within seconds, whatever it waits for; vCenter finishes the tasks it has in flight.
    What was made stays owned by the deployment: resume goes on from there."""
    job = service.request_cancel(db, job_id)
    runner_of(request).cancel(job_id)
    return service.out(job)


@router.post(
    "/{job_id}/resume",
    status_code=status.HTTP_202_ACCEPTED,
    responses={**NOT_FOUND, **CONFLICT, **SECRET_MISSING},
)
def resume_job(job_id: int, request: Request, box: Box, db: Db, body: JobSecrets | None = None) -> JobOut:
    """Run a failed or cancelled job again: it does only what is still missing. The secrets it needs come
    with this request, never from its earlier run (422 secret_required names the one missing)."""
    job = deployments.resume_job(db, box, held_of(request), runner_of(request), job_id, body)
    return service.out(job)
