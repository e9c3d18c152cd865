"""The manager's sessions with its appliances: one bearer token per appliance, kept between reads.

A login costs the appliance a password hash (argon2) and a session row; a dashboard that polls a fleet
every few seconds must not pay that per read. A token is kept per appliance (its address and pinned
certificate: a redeployed appliance with a new certificate is a new one) and a read that meets 401 (the
appliance restarted, or its session ended) logs in once more and asks again.
"""

from __future__ import annotations

import threading
from typing import Any

from provisioning.appliance_api import ApplianceApi


class ApplianceSessions:
    """Bearer tokens by (endpoint, thumbprint), shared by the manager's request threads."""

    def __init__(self) -> None:
        self._tokens: dict[tuple[str, str], str] = {}
        self._lock = threading.Lock()

    def read(self, api: ApplianceApi, password: str, path: str) -> Any:
        """GET ``path`` as the appliance's admin; ApplianceRequestRefused when it refuses."""
        return api.answer("GET", path, *self.send(api, password, "GET", path))

    def send(
        self, api: ApplianceApi, password: str, method: str, path: str, body: Any = None
    ) -> tuple[int, Any]:
        """One request as the appliance's admin, its answer as given (status, JSON): a refusal is the
        caller's to show. Logs in when no token is kept, and once more when the kept one meets 401."""
        key = (api.endpoint, api.thumbprint)
        with self._lock:
            api.token = self._tokens.get(key)
        fresh = api.token is None
        if fresh:
            self._login(api, password, key)
        status, data = api.exchange_once(method, path, body)
        if status == 401 and not fresh:
            self._login(api, password, key)
            status, data = api.exchange_once(method, path, body)
        return status, data

    def _login(self, api: ApplianceApi, password: str, key: tuple[str, str]) -> None:
        with self._lock:
            self._tokens.pop(key, None)
        api.login(password)
        if api.token is not None:
            with self._lock:
                self._tokens[key] = api.token
