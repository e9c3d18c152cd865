"""The vCenter connections resource against a real vcsim, through the real app and SQLite on disk."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.api import client_for, logged_in, make_settings

from lab.daemon import free_port

pytestmark = pytest.mark.integration


@pytest.fixture
def admin(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(make_settings(tmp_path)) as c:
        yield logged_in(c)


def _form(vcsim: Any, **overrides: Any) -> dict[str, Any]:
    body = {
        "name": "lab-vc",
        "host": vcsim.host,
        "port": vcsim.port,
        "username": vcsim.username,
        "password": vcsim.password,
        "thumbprint_sha256": vcsim.thumbprint_sha256,
    }
    body.update(overrides)
    return body


def test_certificate_shows_the_thumbprint_to_accept(admin: TestClient, vcsim: Any) -> None:
    r = admin.post("/api/vcenters/certificate", json={"host": vcsim.host, "port": vcsim.port})
    assert r.status_code == 200, r.text
    cert = r.json()
    assert cert["thumbprint_sha256"] == vcsim.thumbprint_sha256
    assert cert["trusted"] is False  # vcsim's certificate is self-signed


def test_untrusted_certificate_is_refused_with_its_thumbprint(admin: TestClient, vcsim: Any) -> None:
    r = admin.post("/api/vcenters", json=_form(vcsim, thumbprint_sha256=None))
    assert r.status_code == 422
    assert r.json()["code"] == "certificate_untrusted"
    assert r.json()["field"] == "thumbprint"
    assert r.json()["thumbprint"] == vcsim.thumbprint_sha256
    assert admin.get("/api/vcenters").json() == []


def test_wrong_thumbprint_is_refused(admin: TestClient, vcsim: Any) -> None:
    r = admin.post("/api/vcenters", json=_form(vcsim, thumbprint_sha256="AB:" * 31 + "AB"))
    assert r.status_code == 422
    assert r.json()["code"] == "thumbprint_mismatch"
    assert admin.get("/api/vcenters").json() == []


def test_wrong_password_is_refused_on_the_password_field(admin: TestClient, vcsim: Any) -> None:
    r = admin.post("/api/vcenters", json=_form(vcsim, password="wrong"))
    assert r.status_code == 422
    assert r.json()["code"] == "vcenter_auth_failed"
    assert r.json()["detail"]
    assert r.json()["field"] == "password"
    assert admin.get("/api/vcenters").json() == []


def test_unreachable_address_is_a_clear_4xx_quickly(admin: TestClient, vcsim: Any) -> None:
    started = time.monotonic()
    r = admin.post("/api/vcenters", json=_form(vcsim, port=free_port()))
    assert time.monotonic() - started < 15
    assert r.status_code == 422
    assert r.json()["code"] == "vcenter_unreachable"
    assert r.json()["field"] == "host"


def test_silent_server_times_out_within_15_seconds(tmp_path: Path, vcsim: Any) -> None:
    # A short limit, so that a loaded runner's scheduling (seconds, with argon2 logins beside) cannot
    # carry a correct give-up past 15 s; without the limit the call would wait for ever.
    limit = 5.0
    with (
        client_for(make_settings(tmp_path, vcenter_timeout=limit)) as c,
        socket.socket() as listener,
    ):
        admin = logged_in(c)
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)  # accepts TCP, never answers TLS
        port = listener.getsockname()[1]
        started = time.monotonic()
        r = admin.post("/api/vcenters", json=_form(vcsim, port=port))
        elapsed = time.monotonic() - started
    assert limit * 0.9 <= elapsed < 15  # given up on at its limit: not at once, not for ever
    assert r.status_code == 422
    assert r.json()["code"] == "vcenter_timeout"


def test_empty_form_names_the_first_bad_field(admin: TestClient, vcsim: Any) -> None:
    r = admin.post("/api/vcenters", json=_form(vcsim, host=""))
    assert r.status_code == 422
    assert r.json()["code"] == "invalid_input"
    assert r.json()["field"] == "host"
    r = admin.post("/api/vcenters", json=_form(vcsim, host="bad host;rm -rf"))
    assert r.json()["field"] == "host"


def test_add_list_inventory_test_delete(admin: TestClient, vcsim: Any, tmp_path: Path) -> None:
    # Any spelling of the thumbprint is accepted and stored canonically.
    r = admin.post(
        "/api/vcenters", json=_form(vcsim, thumbprint_sha256=vcsim.thumbprint_sha256.replace(":", "").lower())
    )
    assert r.status_code == 201, r.text
    vc = r.json()
    assert vc["thumbprint_sha256"] == vcsim.thumbprint_sha256
    assert "password" not in vc

    assert [v["name"] for v in admin.get("/api/vcenters").json()] == ["lab-vc"]
    assert admin.post("/api/vcenters", json=_form(vcsim)).status_code == 409

    inv = admin.get(f"/api/vcenters/{vc['id']}/inventory").json()
    [cluster] = inv["clusters"]
    hosts = [h for h in inv["hosts"] if h["cluster"] == cluster["moid"]]
    assert len(hosts) == 4
    assert len(inv["datastores"]) >= 2

    assert admin.post(f"/api/vcenters/{vc['id']}/test").json()["ok"] is True

    # The vCenter password is nowhere in clear in the database files (WAL included).
    secret = vcsim.password.encode()
    for f in tmp_path.glob("arcvsa.db*"):
        assert secret not in f.read_bytes(), f.name

    assert admin.delete(f"/api/vcenters/{vc['id']}").status_code == 204
    assert admin.get(f"/api/vcenters/{vc['id']}/inventory").status_code == 404
    assert admin.get("/api/vcenters").json() == []
