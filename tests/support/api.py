"""An api app on a temporary data dir, and a logged-in client for it."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from pydantic import SecretStr

from api.app import create_app
from api.deps import CSRF_COOKIE, CSRF_HEADER
from api.settings import Settings

ADMIN = "admin"
ADMIN_PASSWORD = "correct horse battery staple"


def make_settings(data_dir: Path, **overrides: object) -> Settings:
    # Never the machine's /etc/arcvsa: a test sees only the appliance files it wrote itself.
    overrides.setdefault("etc_dir", data_dir / "etc")
    values: dict[str, object] = {"admin_user": ADMIN, "admin_password": SecretStr(ADMIN_PASSWORD)}
    values.update(overrides)
    return Settings(data_dir=data_dir, **values)


def client_for(settings: Settings) -> TestClient:
    # https: the session cookies are Secure and would not be sent over plain http.
    return TestClient(create_app(settings), base_url="https://testserver")


def logged_in(client: TestClient) -> TestClient:
    r = client.post("/api/auth/login", json={"username": ADMIN, "password": ADMIN_PASSWORD})
    assert r.status_code == 200, r.text
    client.headers[CSRF_HEADER] = client.cookies[CSRF_COOKIE]
    return client
