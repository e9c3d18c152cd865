"""An appliance api's /api/health stand-in (vcsim runs no guests), on lab.json_https."""

from __future__ import annotations

from email.message import Message
from pathlib import Path
from typing import Any

from lab.json_https import JsonHttpsServer


class HealthServer(JsonHttpsServer):
    """`status` is what /api/health reports with `http_status`; `hits` counts the probes."""

    def __init__(self, folder: Path, status: str = "ok", http_status: int = 200) -> None:
        self.status, self.http_status, self.hits = status, http_status, 0
        super().__init__(folder, self._route)

    def _route(self, method: str, path: str, headers: Message, body: bytes) -> tuple[int, Any]:
        self.hits += 1
        if (method, path) != ("GET", "/api/health"):
            return 404, {"detail": "not found"}
        return self.http_status, {"status": self.status}
