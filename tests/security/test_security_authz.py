"""Every route but health and login refuses callers that are not (or no longer) allowed in.

The routes come from the app itself (support.routes), so a new one is covered the day it is added. For
each route, each way of being wrongly authorised: no credentials, a forged token, a token in the query
string, an expired session, a logged-out session, the session of a deleted user (the api has one role,
administrator: there is no lower role to try), and for unsafe methods a session cookie without its CSRF
header, with a wrong one, or with another session's. Each must be 401 (403 for CSRF) and must run no
storage command; an answer that is neither is an unauthorised access. Also: login rate limiting and
argon2id hashes, counted for the report.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update
from support.api import ADMIN, ADMIN_PASSWORD
from support.routes import guarded_routes, sample_url
from support.security_kit import Api, Tally

from api.auth.tables import LoginSession, User
from api.deps import CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE

Credentials = tuple[dict[str, str], int, str]  # (headers, expected status, expected code)
PASSWORD = "another long enough passphrase"


class Sessions:
    """Users and sessions set up in one app, each in the state a scenario needs."""

    def __init__(self, api: Api) -> None:
        self.api = api
        for name in ("expired", "loggedout", "deleted", "cookie"):
            r = api.client.post("/api/users", json={"username": name, "password": PASSWORD}, headers=api.auth)
            assert r.status_code == 201, r.text
        self.expired = self._token("expired")
        with api.app.state.sessionmaker() as db:
            uid = db.scalar(select(User.id).where(User.username == "expired"))
            past = datetime.now(UTC) - timedelta(minutes=1)
            db.execute(update(LoginSession).where(LoginSession.user_id == uid).values(expires_at=past))
            db.commit()
        self.logged_out = self._token("loggedout")
        r = api.client.post("/api/auth/logout", headers={"Authorization": f"Bearer {self.logged_out}"})
        assert r.status_code == 204, r.text
        self.deleted = self._token("deleted")
        deleted_id = next(u["id"] for u in self._users() if u["username"] == "deleted")
        r = api.client.delete(f"/api/users/{deleted_id}", headers=api.auth)
        assert r.status_code == 204, r.text
        self.cookie, self.csrf = self._cookie_login("cookie")
        _, self.other_csrf = self._cookie_login(ADMIN, ADMIN_PASSWORD)

    def _users(self) -> list[dict[str, object]]:
        users: list[dict[str, object]] = self.api.client.get("/api/users", headers=self.api.auth).json()
        return users

    def _token(self, user: str, password: str = PASSWORD) -> str:
        r = self.api.client.post("/api/auth/token", json={"username": user, "password": password})
        assert r.status_code == 200, r.text
        return str(r.json()["token"])

    def _cookie_login(self, user: str, password: str = PASSWORD) -> tuple[str, str]:
        r = self.api.client.post("/api/auth/login", json={"username": user, "password": password})
        assert r.status_code == 200, r.text
        pair = r.cookies[SESSION_COOKIE], r.cookies[CSRF_COOKIE]
        self.api.client.cookies.clear()  # each request below carries exactly the credentials it names
        return pair

    def cookie_header(self, csrf: str | None) -> dict[str, str]:
        headers = {"Cookie": f"{SESSION_COOKIE}={self.cookie}; {CSRF_COOKIE}={self.csrf}"}
        if csrf is not None:
            headers[CSRF_HEADER] = csrf
        return headers


def scenarios(s: Sessions, method: str) -> dict[str, Credentials]:
    bearer: Callable[[str], dict[str, str]] = lambda token: {"Authorization": f"Bearer {token}"}  # noqa: E731
    out: dict[str, Credentials] = {
        "none": ({}, 401, "not_authenticated"),
        "forged_token": (bearer("forged-" + s.api.token[7:]), 401, "not_authenticated"),
        "expired_session": (bearer(s.expired), 401, "not_authenticated"),
        "logged_out_session": (bearer(s.logged_out), 401, "not_authenticated"),
        "deleted_user": (bearer(s.deleted), 401, "not_authenticated"),
        "token_as_basic_auth": ({"Authorization": f"Basic {s.api.token}"}, 401, "not_authenticated"),
    }
    if method not in ("GET", "HEAD", "OPTIONS"):
        out["cookie_without_csrf"] = (s.cookie_header(None), 403, "csrf_rejected")
        out["cookie_wrong_csrf"] = (s.cookie_header("0" * 43), 403, "csrf_rejected")
        out["cookie_other_sessions_csrf"] = (s.cookie_header(s.other_csrf), 403, "csrf_rejected")
    return out


def test_no_route_lets_a_wrongly_authorised_caller_in(api: Api, tally: Tally) -> None:
    sessions = Sessions(api)
    routes = guarded_routes(api.app)
    assert len(routes) >= 40, routes
    leaks: list[str] = []
    for method, path in routes:
        url = sample_url(path)
        for name, (headers, status, code) in scenarios(sessions, method).items():
            before = len(api.runner.calls)
            r = api.client.request(method, url, json={}, headers=headers, params={"token": api.token})
            ran = len(api.runner.calls) > before
            tally.add("authz", attempts=1)
            body = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
            if r.status_code == status and body.get("code") == code and not ran:
                tally.add("authz", refused=1)
            else:
                tally.add("authz", unauthorised_accesses=1)
                leak = f"{method} {path} [{name}] → {r.status_code} {body.get('code')}{' + a command ran' if ran else ''}"
                tally.note("authz", "leak_examples", leak)
                leaks.append(leak)
    tally.add("authz", routes=len(routes))
    assert not leaks, f"{len(leaks)} unauthorised accesses: {leaks[:10]}"


def test_the_right_session_still_gets_in(api: Api) -> None:
    """The refusals above are the credentials', not the requests': the same calls with good ones pass."""
    sessions = Sessions(api)
    assert api.client.get("/api/auth/me", headers=api.auth).status_code == 200
    r = api.client.post("/api/tuning/recommendation", json={}, headers=sessions.cookie_header(sessions.csrf))
    assert r.status_code == 422 and r.json()["code"] == "invalid_input", r.text  # past the guard


@pytest.mark.parametrize("endpoint", ["/api/auth/login", "/api/auth/token"])
def test_logins_are_rate_limited(api: Api, tally: Tally, endpoint: str) -> None:
    limit = api.settings.login_attempts
    statuses = [
        api.client.post(endpoint, json={"username": ADMIN, "password": f"wrong-{i}"}).status_code
        for i in range(limit + 2)
    ]
    right = api.client.post(endpoint, json={"username": ADMIN, "password": ADMIN_PASSWORD})
    assert statuses[:limit] == [401] * limit and statuses[limit:] == [429, 429], statuses
    assert right.status_code == 429 and int(right.headers["Retry-After"]) > 0, right.text
    tally.add("throttle", **{f"{endpoint.rsplit('/', 1)[1]}_429_after": statuses.index(429)})


def test_stored_passwords_are_argon2id(api: Api, tally: Tally) -> None:
    r = api.client.post("/api/users", json={"username": "hashed", "password": PASSWORD}, headers=api.auth)
    assert r.status_code == 201, r.text
    with api.app.state.sessionmaker() as db:
        hashes = list(db.scalars(select(User.password_hash)))
    assert len(hashes) == 2 and all(h.startswith("$argon2id$") for h in hashes), hashes
    tally.add("passwords", argon2id=sum(h.startswith("$argon2id$") for h in hashes), users=len(hashes))
