"""What make security's fuzzing found, pinned: each was a 500 or an answer outside the documented schema."""

from __future__ import annotations

from typing import Any

import pytest
from support.security_kit import Api

from api.errors import ValidationErrorBody
from api.openapi import document as _document


def document() -> dict[str, Any]:
    doc: dict[str, Any] = _document()
    return doc


@pytest.mark.parametrize(
    "url",
    [
        "/api/jobs/10696329387716812734464",
        "/api/jobs/-121548257747770343424/events?after=1&limit=10",
        "/api/jobs?deployment_id=99999999999999999999",
        "/api/vcenters/10696329387716812734464/inventory",
        "/api/deployments/10696329387716812734464",
    ],
)
def test_ids_sqlite_cannot_hold_are_422_not_500(api: Api, url: str) -> None:
    r = api.client.get(url, headers=api.auth)
    assert r.status_code == 422 and r.json()["code"] == "invalid_input", r.text
    assert api.client.get("/api/jobs/9223372036854775807", headers=api.auth).status_code == 404


@pytest.mark.parametrize(
    ("url", "body", "loc"),
    [
        ("/api/deployments", {"vcenter_id": -79372278372383634963401015296}, ["body", "vcenter_id"]),
        ("/api/storage/exports", {"dataset": "tank/ds", "clients": [1 << 70]}, ["body", "clients", 0]),
    ],
)
def test_body_integers_sqlite_cannot_hold_are_422_not_500(
    api: Api, url: str, body: dict[str, object], loc: list[object]
) -> None:
    r = api.client.post(url, json=body, headers=api.auth)
    assert r.status_code == 422 and r.json()["code"] == "invalid_input", r.text
    assert r.json()["errors"][0]["loc"] == loc


def test_a_host_the_resolver_cannot_encode_is_unreachable_not_500(api: Api) -> None:
    r = api.client.post("/api/vcenters/certificate", json={"host": "d:6:8..e"}, headers=api.auth)
    assert r.status_code == 422 and r.json()["code"] == "vcenter_unreachable", r.text


def test_sizing_inputs_that_overflow_are_refused(api: Api) -> None:
    body = {
        "pool_type": "persistent-full",
        "desktops": 10,
        "desktop_gib": 1e308,
        "golden_gib": 40,
        "ram_gib": 1e308,
    }
    r = api.client.post("/api/tuning/recommendation", json=body, headers=api.auth)
    assert r.status_code == 422 and r.json()["field"] in ("desktop_gib", "ram_gib"), r.text


def test_user_times_carry_their_offset(api: Api) -> None:
    users = api.client.get("/api/users", headers=api.auth).json()
    assert users and all(u["created_at"].endswith(("Z", "+00:00")) for u in users), users


def test_a_422_matches_the_documented_body(api: Api) -> None:
    documented = document()["components"]["schemas"]["HTTPValidationError"]
    assert set(documented["required"]) == {"detail", "code", "errors"}, documented
    for r in (
        api.client.post("/api/users", json={"username": 5}, headers=api.auth),
        api.client.get("/api/jobs/10696329387716812734464", headers=api.auth),
    ):
        assert r.status_code == 422
        body = ValidationErrorBody.model_validate(r.json(), strict=True)
        assert body.errors and body.code == "invalid_input", body


def test_a_body_that_is_not_json_is_a_documented_400(api: Api) -> None:
    r = api.client.post(
        "/api/users", content=b"\xff\xfe{", headers={**api.auth, "Content-Type": "application/json"}
    )
    assert r.status_code in (400, 422), r.text
    assert str(r.status_code) in document()["paths"]["/api/users"]["post"]["responses"]
