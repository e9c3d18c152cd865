"""/api/users on the real app: login required, input checked, never yourself, never the last admin,
passwords neither returned nor logged."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from support.api import ADMIN, ADMIN_PASSWORD, client_for, make_settings

from api.deps import CSRF_COOKIE, CSRF_HEADER

NEW_PASSWORD = "a brand new passphrase"


def _add(admin: TestClient, username: str = "operator", password: str = NEW_PASSWORD) -> dict[str, object]:
    r = admin.post("/api/users", json={"username": username, "password": password})
    assert r.status_code == 201, r.text
    body: dict[str, object] = r.json()
    return body


def _me_id(admin: TestClient) -> int:
    return next(int(u["id"]) for u in admin.get("/api/users").json() if u["you"])


def _login(client: TestClient, username: str, password: str) -> int:
    return client.post("/api/auth/login", json={"username": username, "password": password}).status_code


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/users"),
        ("POST", "/api/users"),
        ("PUT", "/api/users/1/password"),
        ("DELETE", "/api/users/1"),
    ],
)
def test_every_route_needs_a_login(anon: TestClient, method: str, path: str) -> None:
    r = anon.request(method, path, json={"username": "x", "password": "y" * 10, "new_password": "z" * 10})
    assert r.status_code == 401
    assert r.json()["code"] == "not_authenticated"


def test_cookie_writes_need_the_csrf_header(admin: TestClient) -> None:
    del admin.headers[CSRF_HEADER]
    r = admin.post("/api/users", json={"username": "operator", "password": NEW_PASSWORD})
    assert r.status_code == 403
    assert len(admin.get("/api/users").json()) == 1


def test_list_shows_who_you_are_and_no_password(admin: TestClient) -> None:
    users = admin.get("/api/users").json()
    assert [(u["username"], u["you"]) for u in users] == [(ADMIN, True)]
    assert set(users[0]) == {"id", "username", "created_at", "you"}


def test_add_a_user_who_can_then_log_in(admin: TestClient, anon_second: TestClient) -> None:
    created = _add(admin)
    assert created["username"] == "operator" and created["you"] is False
    assert "password" not in str(created) and NEW_PASSWORD not in str(created)
    assert [u["username"] for u in admin.get("/api/users").json()] == [ADMIN, "operator"]
    assert _login(anon_second, "operator", NEW_PASSWORD) == 200


def test_a_taken_name_is_409_on_the_username_field(admin: TestClient) -> None:
    _add(admin)
    r = admin.post("/api/users", json={"username": "operator", "password": NEW_PASSWORD})
    assert r.status_code == 409
    assert r.json()["field"] == "username"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"username": "", "password": NEW_PASSWORD}, "username"),
        ({"username": "has space", "password": NEW_PASSWORD}, "username"),
        ({"username": "-dash-first", "password": NEW_PASSWORD}, "username"),
        ({"username": "x" * 65, "password": NEW_PASSWORD}, "username"),
        ({"username": "operator", "password": "pw-1234"}, "password"),
        ({"username": "operator", "password": "x" * 129}, "password"),
    ],
)
def test_bad_input_is_422_naming_the_field(admin: TestClient, body: dict[str, str], field: str) -> None:
    r = admin.post("/api/users", json=body)
    assert r.status_code == 422
    assert r.json()["code"] == "invalid_input"
    assert r.json()["field"] == field
    assert body["password"] not in r.text  # the refused password is not echoed back
    assert len(admin.get("/api/users").json()) == 1


def test_own_password_needs_the_current_one(admin: TestClient, anon_second: TestClient) -> None:
    me = _me_id(admin)
    missing = admin.put(f"/api/users/{me}/password", json={"new_password": NEW_PASSWORD})
    assert missing.status_code == 422 and missing.json()["field"] == "current_password"
    wrong = admin.put(
        f"/api/users/{me}/password", json={"current_password": "not it at all", "new_password": NEW_PASSWORD}
    )
    assert wrong.status_code == 422
    assert wrong.json() == {
        "detail": "The current password is wrong",
        "code": "invalid_input",
        "field": "current_password",
    }
    assert _login(anon_second, ADMIN, ADMIN_PASSWORD) == 200  # unchanged
    ok = admin.put(
        f"/api/users/{me}/password", json={"current_password": ADMIN_PASSWORD, "new_password": NEW_PASSWORD}
    )
    assert ok.status_code == 200, ok.text
    assert admin.get("/api/auth/me").status_code == 200  # this session goes on
    assert anon_second.get("/api/auth/me").status_code == 401  # the other one ended
    assert _login(anon_second, ADMIN, ADMIN_PASSWORD) == 401
    assert _login(anon_second, ADMIN, NEW_PASSWORD) == 200


def test_wrong_current_passwords_are_throttled(admin: TestClient) -> None:
    me = _me_id(admin)
    body = {"current_password": "guess", "new_password": NEW_PASSWORD}
    codes = [admin.put(f"/api/users/{me}/password", json=body).status_code for _ in range(6)]
    assert codes == [422] * 5 + [429]


def test_another_users_password_needs_no_current_one(admin: TestClient, anon_second: TestClient) -> None:
    other = int(str(_add(admin)["id"]))
    assert _login(anon_second, "operator", NEW_PASSWORD) == 200
    r = admin.put(f"/api/users/{other}/password", json={"new_password": "yet another passphrase"})
    assert r.status_code == 200
    assert anon_second.get("/api/auth/me").status_code == 401  # their session ended
    assert _login(anon_second, "operator", "yet another passphrase") == 200


def test_new_password_is_checked(admin: TestClient) -> None:
    r = admin.put(
        f"/api/users/{_me_id(admin)}/password",
        json={"current_password": ADMIN_PASSWORD, "new_password": "1234567"},
    )
    assert r.status_code == 422 and r.json()["field"] == "new_password"


def test_unknown_user_is_404(admin: TestClient) -> None:
    assert admin.put("/api/users/999/password", json={"new_password": NEW_PASSWORD}).status_code == 404
    assert admin.delete("/api/users/999").status_code == 404


def test_you_cannot_delete_yourself(admin: TestClient) -> None:
    _add(admin)
    r = admin.delete(f"/api/users/{_me_id(admin)}")
    assert r.status_code == 409
    assert "logged in as" in r.json()["detail"]
    assert len(admin.get("/api/users").json()) == 2


def test_delete_another_user_ends_their_sessions(admin: TestClient, anon_second: TestClient) -> None:
    other = int(str(_add(admin)["id"]))
    assert _login(anon_second, "operator", NEW_PASSWORD) == 200
    assert admin.delete(f"/api/users/{other}").status_code == 204
    assert anon_second.get("/api/auth/me").status_code == 401
    assert [u["username"] for u in admin.get("/api/users").json()] == [ADMIN]


def test_the_last_admin_cannot_be_deleted(admin: TestClient, anon_second: TestClient) -> None:
    """The operator deletes the admin, then nobody can delete the operator: there is always one left."""
    other = int(str(_add(admin)["id"]))
    operator = anon_second
    assert _login(operator, "operator", NEW_PASSWORD) == 200
    operator.headers[CSRF_HEADER] = operator.cookies[CSRF_COOKIE]
    assert operator.delete(f"/api/users/{_me_id(admin)}").status_code == 204
    r = operator.delete(f"/api/users/{other}")
    assert r.status_code == 409  # refused as yourself, and as the last one
    assert [u["username"] for u in operator.get("/api/users").json()] == ["operator"]


def test_last_admin_rule_holds_for_the_service_too(tmp_path: Path) -> None:
    """Without the 'yourself' rule in front, the count rule alone refuses (a bearer whose user is gone)."""
    from api.auth.service import Principal
    from api.errors import Conflict
    from api.users import service

    with client_for(make_settings(tmp_path)) as c, c.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        only = service.list_all(db)[0]
        ghost = Principal(user_id=999, username="ghost", session_id=0, csrf_token="", by_cookie=False)
        with pytest.raises(Conflict, match="last administrator"):
            service.remove(db, ghost, only.id)


def test_passwords_are_never_logged(admin: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    other = int(str(_add(admin)["id"]))
    admin.put(f"/api/users/{other}/password", json={"new_password": "secret passphrase two"})
    admin.put(
        f"/api/users/{_me_id(admin)}/password",
        json={"current_password": "wrong one", "new_password": NEW_PASSWORD},
    )
    admin.post("/api/users", json={"username": "bad name", "password": "secret passphrase three"})
    text = caplog.text
    assert "user operator added by admin" in text and "password of operator changed by admin" in text
    for secret in (
        NEW_PASSWORD,
        "secret passphrase two",
        "wrong one",
        "secret passphrase three",
        ADMIN_PASSWORD,
    ):
        assert secret not in text


def test_stored_password_is_an_argon2_hash(admin: TestClient) -> None:
    from sqlalchemy import select

    from api.auth.tables import User

    _add(admin)
    with admin.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        stored = db.scalar(select(User.password_hash).where(User.username == "operator"))
    assert stored is not None and stored.startswith("$argon2id$") and NEW_PASSWORD not in stored


@pytest.fixture
def anon_second(admin: TestClient) -> TestClient:
    """A second, separate client on the same app (its own cookies): another browser."""
    second = TestClient(admin.app, base_url="https://testserver")
    return second
