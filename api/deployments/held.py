"""The secrets of the jobs about to run, in memory only: given with the request, taken when the job starts.

Nothing here is ever written down, so a job never runs on a password the user did not give for it; an api
that restarts mid-run has none, and the job asks for them again (it fails, and its resume asks).
"""

from __future__ import annotations

import threading

from fastapi import Request


class HeldSecrets:
    def __init__(self) -> None:
        self._held: dict[int, dict[str, str]] = {}
        self._lock = threading.Lock()

    def put(self, deployment_id: int, secrets: dict[str, str]) -> None:
        """Hold `secrets` for the next job of the deployment (it has one active job at most)."""
        with self._lock:
            self._held[deployment_id] = dict(secrets)

    def take(self, deployment_id: int) -> dict[str, str]:
        """The secrets given for the deployment's job, forgotten here as they are handed over."""
        with self._lock:
            return self._held.pop(deployment_id, {})


def held_of(request: Request) -> HeldSecrets:
    """The app's held secrets (api.deployments.service.job_runner puts them on app.state)."""
    held: HeldSecrets = request.app.state.held_secrets
    return held
