"""Runs jobs on background threads and records their progress in the database.

Threads are daemons on purpose: an api that stops leaves its running jobs 'running' in the database, and
the next start marks them interrupted and runs them again; apply and destroy are idempotent, so the rerun
only does what is left.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Request
from sqlalchemy.orm import Session, sessionmaker

from api.jobs import service

log = logging.getLogger(__name__)


@dataclass
class Outcome:
    state: str  # succeeded | failed | cancelled
    message: str
    failures: dict[str, str]


#: (job kind, deployment id, record(kind, object, message, done, total), cancelled()) → Outcome
Execute = Callable[[str, int, Callable[[str, str | None, str, int, int], None], Callable[[], bool]], Outcome]


def runner_of(request: Request) -> JobRunner:
    """The app's job runner (create_app puts it on app.state)."""
    runner: JobRunner = request.app.state.jobs
    return runner


class JobRunner:
    def __init__(self, factory: sessionmaker[Session], execute: Execute) -> None:
        self.factory = factory
        self.execute = execute
        #: one switch per run: a step of a cancelled run that is still winding down keeps seeing it on,
        #: even once the job has ended or was resumed as a new run
        self._cancel: dict[int, threading.Event] = {}
        self._threads: dict[int, threading.Thread] = {}
        self._lock = threading.Lock()

    def submit(self, job_id: int) -> None:
        switch = threading.Event()
        with self._lock:
            self._cancel[job_id] = switch
            thread = threading.Thread(
                target=self._run, args=(job_id, switch), name=f"job-{job_id}", daemon=True
            )
            self._threads[job_id] = thread
        thread.start()

    def cancel(self, job_id: int) -> None:
        """Turn the running job's switch on: its waits notice within a second (provisioning.cancel)."""
        with self._lock:
            switch = self._cancel.get(job_id)
        if switch is not None:
            switch.set()

    def resume_interrupted(self) -> list[int]:
        """Start again every job a previous api process left queued or running."""
        with self.factory() as db:
            ids = [job.id for job in service.resumable(db)]
        for job_id in ids:
            self.submit(job_id)
        return ids

    def wait(self, job_id: int, timeout: float) -> bool:
        """Whether the job's thread ended within `timeout` (tests, shutdown)."""
        thread = self._threads.get(job_id)
        if thread is not None:
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    def _run(self, job_id: int, switch: threading.Event) -> None:
        with self.factory() as db:
            job = service.start(db, job_id)
            kind, deployment_id = job.kind, job.deployment_id

        def record(k: str, obj: str | None, message: str, done: int, total: int) -> None:
            with self.factory() as db:
                service.record(db, job_id, k, obj, message, done, total)

        def cancelled() -> bool:
            return switch.is_set()

        try:
            result = self.execute(kind, deployment_id, record, cancelled)
        except Exception as exc:  # the job records every failure; the thread must not die silently
            log.exception("job %d failed", job_id)
            result = Outcome("failed", f"{type(exc).__name__}: {exc}", {})
        with self.factory() as db:
            service.finish(db, job_id, result.state, result.message, result.failures)
        with self._lock:
            if self._cancel.get(job_id) is switch:
                del self._cancel[job_id]
