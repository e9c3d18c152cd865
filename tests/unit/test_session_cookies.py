"""Two arcvsa on one host (the demo's manager and its lab appliance, on other ports) each keep their
session: cookies ignore ports, so each instance names its cookies after the port it is reached on.

One cookie jar stands for the browser (http.cookiejar, like a browser, matches cookies by host, not port).
"""

from __future__ import annotations

from http.cookiejar import CookieJar
from pathlib import Path

from fastapi.testclient import TestClient
from support.api import ADMIN, ADMIN_PASSWORD, make_settings

from api.app import create_app
from api.deps import CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE


def _browser_tab(folder: Path, base_url: str, jar: CookieJar) -> TestClient:
    client = TestClient(create_app(make_settings(folder)), base_url=base_url)
    client.cookies.jar = jar  # one browser: both instances' cookies in one jar
    return client


def _log_in(client: TestClient) -> None:
    r = client.post("/api/auth/login", json={"username": ADMIN, "password": ADMIN_PASSWORD})
    assert r.status_code == 200, r.text


def _csrf(jar: CookieJar, name: str) -> str:
    return next(c.value for c in jar if c.name == name and c.value is not None)


def test_two_instances_on_two_ports_each_keep_their_session(tmp_path: Path) -> None:
    jar = CookieJar()
    manager = _browser_tab(tmp_path / "manager", "https://127.0.0.1:8443", jar)
    appliance = _browser_tab(tmp_path / "appliance", "https://127.0.0.1:8444", jar)
    _log_in(manager)
    _log_in(appliance)  # before the fix: this replaced the manager's arcvsa_session
    names = sorted(c.name for c in jar)
    assert names == sorted(f"{n}_{p}" for n in (SESSION_COOKIE, CSRF_COOKIE) for p in (8443, 8444)), names
    for client, port in ((manager, 8443), (appliance, 8444)):
        assert client.get("/api/auth/me").status_code == 200
        # a change needs that instance's own CSRF cookie echoed; the other's is refused
        other = 8444 if port == 8443 else 8443
        bad = client.post("/api/auth/logout", headers={CSRF_HEADER: _csrf(jar, f"{CSRF_COOKIE}_{other}")})
        assert bad.status_code == 403 and bad.json()["code"] == "csrf_rejected"
    r = manager.post("/api/auth/logout", headers={CSRF_HEADER: _csrf(jar, f"{CSRF_COOKIE}_8443")})
    assert r.status_code == 204
    assert manager.get("/api/auth/me").status_code == 401
    assert appliance.get("/api/auth/me").status_code == 200, "logging out of one logs out of the other"


def test_on_the_default_port_the_names_stay_plain(tmp_path: Path) -> None:
    """https on 443 (an appliance as shipped): the browser names no port, nor do the cookies."""
    jar = CookieJar()
    client = _browser_tab(tmp_path / "one", "https://appliance.example", jar)
    _log_in(client)
    assert sorted(c.name for c in jar) == sorted([SESSION_COOKIE, CSRF_COOKIE])
    assert client.get("/api/auth/me").status_code == 200


def test_the_cookie_of_another_port_does_not_open_a_session(tmp_path: Path) -> None:
    """The name is the boundary: a valid session token under another port's name is not this instance's."""
    jar = CookieJar()
    client = _browser_tab(tmp_path / "one", "https://127.0.0.1:8443", jar)
    _log_in(client)
    token = next(c.value for c in jar if c.name == f"{SESSION_COOKIE}_8443")
    fresh = TestClient(client.app, base_url="https://127.0.0.1:8443")
    fresh.cookies.set(f"{SESSION_COOKIE}_8444", token or "")
    assert fresh.get("/api/auth/me").status_code == 401
    fresh.cookies.set(f"{SESSION_COOKIE}_8443", token or "")
    assert fresh.get("/api/auth/me").status_code == 200


def test_a_hostile_host_header_never_breaks_a_login(tmp_path: Path) -> None:
    """The cookie's name comes from the Host header: one that names no valid port gives the plain names."""
    client = TestClient(create_app(make_settings(tmp_path / "one")), base_url="https://testserver")
    for host, suffix in (("x:abc", ""), ("x:99999", ""), ("x:", ""), ("[::1]:8443", "_8443"), ("x:0", "")):
        r = client.post(
            "/api/auth/login", json={"username": ADMIN, "password": ADMIN_PASSWORD}, headers={"Host": host}
        )
        assert r.status_code == 200, (host, r.text)
        names = {h.split("=", 1)[0] for h in r.headers.get_list("set-cookie")}
        assert names == {SESSION_COOKIE + suffix, CSRF_COOKIE + suffix}, host
