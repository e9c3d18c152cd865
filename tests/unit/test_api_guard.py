"""Every api route but health and login refuses a caller without credentials.

The route list comes from the app itself, so a route added later cannot be forgotten.
"""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from support.routes import OPEN, api_routes

from api.errors import ERROR_TABLE, StateNotPublished
from appliance.control.errors import SystemFault


def _api_routes(client: TestClient) -> list[tuple[str, str]]:
    return api_routes(client.app)  # type: ignore[arg-type]


def test_route_walk_sees_every_documented_operation(anon: TestClient) -> None:
    documented = {
        (m.upper(), path)
        for path, ops in anon.app.openapi()["paths"].items()  # type: ignore[attr-defined]
        for m in ops
    }
    assert documented <= set(_api_routes(anon))


def test_there_are_guarded_routes(anon: TestClient) -> None:
    routes = set(_api_routes(anon))
    assert routes >= OPEN
    assert len(routes - OPEN) >= 6


def test_every_other_route_is_401_without_credentials(anon: TestClient) -> None:
    for method, path in _api_routes(anon):
        if (method, path) in OPEN:
            continue
        url = re.sub(r"\{[^}]+\}", "1", path)
        r = anon.request(method, url, json={})
        assert r.status_code == 401, f"{method} {path} answered {r.status_code} without credentials"
        assert r.json()["code"] == "not_authenticated"


def test_a_wrong_token_is_401_everywhere(anon: TestClient) -> None:
    for method, path in _api_routes(anon):
        if (method, path) in OPEN:
            continue
        url = re.sub(r"\{[^}]+\}", "1", path)
        r = anon.request(method, url, json={}, headers={"Authorization": "Bearer forged"})
        assert r.status_code == 401, f"{method} {path} answered {r.status_code} to a forged token"


def test_error_table_maps_every_domain_error_to_a_4xx() -> None:
    for cls, (status, code) in ERROR_TABLE.items():
        # A storage tool's own fault is the appliance's, not the caller's: a gateway error, never a 500;
        # a read before the appliance's state was first published is "not yet", with nobody at fault.
        if issubclass(cls, SystemFault):
            allowed: range | tuple[int, ...] = (502, 503, 504)
        elif cls is StateNotPublished:
            allowed = (503,)
        else:
            allowed = range(400, 500)
        assert status in allowed, cls
        assert re.fullmatch(r"[a-z_]+", code), code


def test_unknown_api_path_is_a_json_404(admin: TestClient) -> None:
    r = admin.get("/api/nothing-here")
    assert r.status_code == 404
    assert r.json()["code"] == "not_found"
