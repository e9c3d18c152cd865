"""Login, sessions, CSRF and throttling, on the real app with SQLite on disk."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from fastapi.testclient import TestClient
from support.api import ADMIN, ADMIN_PASSWORD, client_for, make_settings

from api.deps import CSRF_HEADER, SESSION_COOKIE


def test_health_needs_no_login(anon: TestClient) -> None:
    r = anon.get("/api/health")
    assert r.status_code == 200
    assert r.json()["status"] == "ok"


def test_wrong_password_is_401_on_the_password_field(anon: TestClient) -> None:
    r = anon.post("/api/auth/login", json={"username": ADMIN, "password": "nope"})
    assert r.status_code == 401
    assert r.json()["code"] == "invalid_credentials"
    assert r.json()["field"] == "password"
    assert SESSION_COOKIE not in r.cookies


def test_unknown_user_is_the_same_401(anon: TestClient) -> None:
    r = anon.post("/api/auth/login", json={"username": "mallory", "password": "x"})
    assert r.status_code == 401
    assert r.json()["code"] == "invalid_credentials"


def test_empty_form_is_422_naming_the_field(anon: TestClient) -> None:
    r = anon.post("/api/auth/login", json={"username": "", "password": ""})
    assert r.status_code == 422
    assert r.json()["code"] == "invalid_input"
    assert r.json()["field"] == "username"


def test_cookie_session_is_hardened(anon: TestClient) -> None:
    r = anon.post("/api/auth/login", json={"username": ADMIN, "password": ADMIN_PASSWORD})
    assert r.status_code == 200
    assert "token" not in r.json()  # page scripts cannot read the browser's credential
    session_cookie = next(h for h in r.headers.get_list("set-cookie") if h.startswith(SESSION_COOKIE))
    lowered = session_cookie.lower()
    assert "httponly" in lowered and "secure" in lowered and "samesite=strict" in lowered


def test_login_then_me_then_logout(admin: TestClient) -> None:
    assert admin.get("/api/auth/me").json() == {"username": ADMIN}
    assert admin.post("/api/auth/logout").status_code == 204
    assert admin.get("/api/auth/me").status_code == 401


def test_bearer_token_works_without_csrf(anon: TestClient) -> None:
    r = anon.post("/api/auth/token", json={"username": ADMIN, "password": ADMIN_PASSWORD})
    assert r.status_code == 200
    assert not r.cookies  # scripts get the token, browsers the cookie
    token = r.json()["token"]
    r = anon.post("/api/auth/logout", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 204
    assert anon.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401


def test_cookie_write_without_csrf_header_is_refused(admin: TestClient) -> None:
    del admin.headers[CSRF_HEADER]
    r = admin.post("/api/auth/logout")
    assert r.status_code == 403
    assert r.json()["code"] == "csrf_rejected"
    admin.headers[CSRF_HEADER] = "forged"
    assert admin.post("/api/auth/logout").status_code == 403
    assert admin.get("/api/auth/me").status_code == 200  # the session survived the forgeries


def test_token_route_is_throttled_with_login(tmp_path: Path) -> None:
    with client_for(make_settings(tmp_path, login_attempts=2)) as c:
        for _ in range(2):
            assert c.post("/api/auth/token", json={"username": ADMIN, "password": "bad"}).status_code == 401
        assert (
            c.post("/api/auth/login", json={"username": ADMIN, "password": ADMIN_PASSWORD}).status_code == 429
        )


def test_bad_token_is_401(anon: TestClient) -> None:
    r = anon.get("/api/auth/me", headers={"Authorization": "Bearer not-a-token"})
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == "Bearer"


def test_login_is_rate_limited(tmp_path: Path) -> None:
    with client_for(make_settings(tmp_path, login_attempts=3)) as c:
        for _ in range(3):
            assert c.post("/api/auth/login", json={"username": ADMIN, "password": "bad"}).status_code == 401
        r = c.post("/api/auth/login", json={"username": ADMIN, "password": ADMIN_PASSWORD})
        assert r.status_code == 429
        assert int(r.headers["retry-after"]) >= 1
        # Another user name from the same client is counted apart.
        assert c.post("/api/auth/login", json={"username": "other", "password": "x"}).status_code == 401


def test_database_holds_hashes_only(admin: TestClient, tmp_path: Path) -> None:
    token = admin.cookies[SESSION_COOKIE]
    con = sqlite3.connect(tmp_path / "arcvsa.db")
    try:
        (pw_hash,) = con.execute("select password_hash from users").fetchone()
        (token_hash,) = con.execute("select token_sha256 from login_sessions").fetchone()
    finally:
        con.close()
    assert pw_hash.startswith("$argon2id$")
    assert ADMIN_PASSWORD not in pw_hash
    assert token_hash != token and len(token_hash) == 64


def test_first_admin_is_created_once(tmp_path: Path) -> None:
    with client_for(make_settings(tmp_path)):
        pass
    # A later start with another bootstrap password does not replace the existing admin.
    from pydantic import SecretStr

    settings = make_settings(tmp_path).model_copy(update={"admin_password": SecretStr("something else")})
    with client_for(settings) as c:
        assert (
            c.post("/api/auth/login", json={"username": ADMIN, "password": "something else"}).status_code
            == 401
        )
        assert (
            c.post("/api/auth/login", json={"username": ADMIN, "password": ADMIN_PASSWORD}).status_code == 200
        )


def test_every_answer_carries_the_security_headers_and_api_answers_are_not_cached(anon: TestClient) -> None:
    for r in (anon.get("/api/health"), anon.get("/api/storage/pools")):  # a 200, and a refused 401
        assert r.headers["x-frame-options"] == "DENY" and r.headers["x-content-type-options"] == "nosniff"
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
        assert r.headers["strict-transport-security"].startswith("max-age=")
        assert r.headers["cache-control"] == "no-store"
        assert len(r.headers.get_list("x-frame-options")) == 1  # set once, never doubled
