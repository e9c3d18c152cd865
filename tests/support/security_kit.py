"""What the security suite shares: the api on the recorded appliance answers, and the figures it counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from api.app import create_app
from api.state import poll
from appliance.control.observed import EVERY_PART
from support.any_recording import AnyRecordingRunner, any_recording
from support.api import ADMIN, ADMIN_PASSWORD, make_settings


class Tally:
    """Figures per section, merged into one JSON file when the run ends."""

    def __init__(self) -> None:
        self.sections: dict[str, dict[str, Any]] = {}

    def add(self, section: str, **counts: int) -> None:
        """Add ``counts`` to the section's integer figures."""
        figures = self.sections.setdefault(section, {})
        for key, value in counts.items():
            figures[key] = int(figures.get(key, 0)) + value

    def note(self, section: str, key: str, item: str, keep: int = 20) -> None:
        """Keep an example (a failure's description) under the section, at most ``keep`` of them."""
        items: list[str] = self.sections.setdefault(section, {}).setdefault(key, [])
        if len(items) < keep and item not in items:
            items.append(item)


class Api:
    """The real app on a temporary data dir, its appliance layer on every recording, logged in by token."""

    def __init__(self, data: Path, root: Path, **settings: object) -> None:
        self.settings = make_settings(data, **settings)
        self.app = create_app(self.settings)
        gateway, files, self.runner = any_recording(root)
        self.app.state.storage_gateway = gateway
        self.app.state.storage_files = files
        poll.after_change(self.app.state, EVERY_PART)  # the state reads answer from, as at the api's start
        # https: the session cookies are Secure; 500s come back as answers so they can be counted.
        self.client = TestClient(self.app, base_url="https://testserver", raise_server_exceptions=False)
        r = self.client.post("/api/auth/token", json={"username": ADMIN, "password": ADMIN_PASSWORD})
        assert r.status_code == 200, r.text
        self.token = str(r.json()["token"])

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    @property
    def recorded(self) -> AnyRecordingRunner:
        return self.runner
