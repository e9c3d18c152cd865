"""A job's progress as server-sent events (text/event-stream).

Each JobEventOut goes out as `event: progress` with `id:` its event id, so a browser that reconnects sends
Last-Event-ID and gets only what it missed. `event: job` carries the job (JobOut) whenever its state or
counts change, and `event: end` closes the stream once the job is finished and every event was sent.
The database is read on a worker thread: the event loop never waits on it.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import anyio
from sqlalchemy.orm import Session, sessionmaker

from api.jobs import service
from api.jobs.schemas import JobEventOut, JobOut

#: events read per poll; a longer backlog drains over the next polls without waiting
BATCH = 500


@dataclass
class Poll:
    job: JobOut
    events: list[JobEventOut]
    #: the job was finished when read and every event up to then is in `events`
    last: bool


def read(factory: sessionmaker[Session], job_id: int, after: int) -> Poll:
    """The job, then its events after `after`: read in this order a final job's events are all there."""
    with factory() as db:
        job = service.out(service.get(db, job_id))
        events = service.events(db, job_id, after, BATCH)
    return Poll(job, events, job.state in service.FINAL and len(events) < BATCH)


def frame(event: str, data: str, event_id: int | None = None) -> str:
    """One SSE message; `data` is one line of JSON (no newlines to split)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {data}\n\n"


async def events(
    factory: sessionmaker[Session],
    job_id: int,
    after: int,
    *,
    interval: float = 0.5,
    keepalive: float = 15.0,
) -> AsyncIterator[str]:
    """The stream's text: the job, its events after `after`, then more as they come, until it finishes."""
    yield "retry: 2000\n\n"
    shown: str | None = None
    quiet_since = time.monotonic()
    while True:
        poll = await anyio.to_thread.run_sync(read, factory, job_id, after)
        state = poll.job.model_dump_json()
        if state != shown:
            shown = state
            yield frame("job", state)
            quiet_since = time.monotonic()
        for e in poll.events:
            yield frame("progress", e.model_dump_json(), e.id)
            after = e.id
            quiet_since = time.monotonic()
        if poll.last:
            yield frame("end", poll.job.model_dump_json())
            return
        if poll.events and len(poll.events) == BATCH:
            continue  # a backlog: read on at once
        if time.monotonic() - quiet_since >= keepalive:
            yield ": keep-alive\n\n"  # a comment: proxies and browsers keep the connection open
            quiet_since = time.monotonic()
        await anyio.sleep(interval)


def last_event_id(header: str | None, after: int) -> int:
    """Where to start: the browser's Last-Event-ID on a reconnect, else the `after` the caller gave."""
    if header is not None and header.strip().isdigit():
        return int(header.strip())
    return after
