"""An appliance's api faults are their own family, never vCenter's, each with its own code.

The faults come from real local servers (tests/support/tls_servers.py): a closed port, another
certificate than the pinned one, plain HTTP on the TLS port and an api that refuses a request.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from support.tls_servers import Server, certificate, closed_port, json_answer

from api import errors
from provisioning import health
from provisioning.appliance_api import ApplianceApi, first_contact
from provisioning.appliance_errors import (
    ApplianceApiError,
    ApplianceBadAnswer,
    ApplianceCertificateMismatch,
    ApplianceLoginFailed,
    ApplianceRequestRefused,
    ApplianceUnreachable,
)
from provisioning.errors import VCenterError


def _family(root: type[ApplianceApiError]) -> list[type[ApplianceApiError]]:
    """``root`` and every subclass below it, each once (the api's faults, the health wait's)."""
    return [root, *(c for sub in root.__subclasses__() for c in _family(sub))]


FAMILY = _family(ApplianceApiError)


def answered(exc: Exception) -> tuple[int, dict[str, object]]:
    """What the api answers a request that raised `exc` (the real handlers of api.errors)."""
    app = FastAPI()
    errors.install(app)

    @app.get("/fail")
    def fail() -> None:
        raise exc

    response = TestClient(app).get("/fail")
    return response.status_code, response.json()


def test_the_family_holds_every_appliance_fault_and_none_is_a_vcenter_error() -> None:
    assert len(FAMILY) == len(set(FAMILY)) and health.ApplianceUnhealthy in FAMILY, FAMILY
    for cls in FAMILY:
        assert not issubclass(cls, VCenterError), cls
        status, code = next(errors.ERROR_TABLE[c] for c in cls.__mro__ if c in errors.ERROR_TABLE)
        assert code.startswith("appliance_") and status == 422, (cls, code)


@pytest.mark.parametrize(
    ("cls", "code"),
    [
        (ApplianceApiError, "appliance_error"),
        (ApplianceUnreachable, "appliance_unreachable"),
        (ApplianceBadAnswer, "appliance_bad_answer"),
        (ApplianceRequestRefused, "appliance_refused"),
        (ApplianceLoginFailed, "appliance_login_failed"),
        (health.ApplianceUnhealthy, "appliance_unhealthy"),
        (health.NotAnAppliance, "appliance_unhealthy"),
    ],
)
def test_each_fault_maps_to_its_code(cls: type[ApplianceApiError], code: str) -> None:
    assert errors.lookup(cls("arcvsa-01: x")) == (422, code)


def test_a_closed_port_is_unreachable_and_says_which_appliance_and_what_to_do() -> None:
    endpoint = closed_port()
    api = ApplianceApi(endpoint, "00" * 32, name="arcvsa-01", timeout=5)
    with pytest.raises(ApplianceUnreachable) as caught:
        api.health()
    assert not isinstance(caught.value, VCenterError)
    words = str(caught.value)
    assert words.startswith(f"arcvsa-01: its api at {endpoint} cannot be reached") and "powered on" in words
    assert "vCenter" not in words and "vSphere" not in words
    status, body = answered(caught.value)
    assert (status, body["code"], body["field"]) == (422, "appliance_unreachable", "fleet.appliances")


def test_first_contact_with_nothing_listening_is_an_appliance_fault() -> None:
    with pytest.raises(ApplianceUnreachable, match=r"^arcvsa-01: its api at .* powered on"):
        first_contact(closed_port(), 5, "arcvsa-01")


def test_another_certificate_than_the_pinned_one_is_a_mismatch_with_its_thumbprint(tmp_path: Path) -> None:
    _, _, pinned = certificate(tmp_path / "own", "arcvsa-01", "arcvsa")
    cert, key, other = certificate(tmp_path / "other", "arcvsa-01", "arcvsa")
    with Server(json_answer(200, {"status": "ok"}), tls=(cert, key)) as server:
        with pytest.raises(ApplianceCertificateMismatch) as caught:
            ApplianceApi(server.endpoint, pinned, name="arcvsa-01", timeout=5).health()
        assert server.hits == 0
    assert caught.value.thumbprint == other
    assert str(caught.value).startswith("arcvsa-01: ") and "clear the appliance's thumbprint" in str(
        caught.value
    )
    status, body = answered(caught.value)
    assert (status, body["code"], body["thumbprint"]) == (422, "appliance_certificate_mismatch", other)


def test_plain_http_on_the_tls_port_is_a_bad_answer() -> None:
    with (
        Server(json_answer(200, {"status": "ok"}), tls=None) as server,
        pytest.raises(ApplianceBadAnswer) as caught,
    ):
        ApplianceApi(server.endpoint, "00" * 32, name="arcvsa-01", timeout=5).health()
    assert str(caught.value).startswith("arcvsa-01: ") and "correct the appliance's api address" in str(
        caught.value
    )
    assert answered(caught.value)[1]["code"] == "appliance_bad_answer"


def test_a_refused_request_keeps_the_appliances_status_and_code(tmp_path: Path) -> None:
    cert, key, pin = certificate(tmp_path / "own", "arcvsa-01", "arcvsa")
    refusal = {"detail": "tank is in use", "code": "device_in_use"}
    with Server(json_answer(409, refusal), tls=(cert, key)) as server:
        api = ApplianceApi(server.endpoint, pin, name="arcvsa-01", timeout=5)
        with pytest.raises(ApplianceRequestRefused) as caught:
            api.call("GET", "/api/storage/pools/tank")
        status, answer = api.exchange("GET", "/api/health")  # exchange reports, it does not raise
    assert (status, answer) == (409, refusal)
    assert type(caught.value) is ApplianceRequestRefused and not isinstance(caught.value, VCenterError)
    assert (caught.value.status, caught.value.code) == (409, "device_in_use")
    assert str(caught.value).startswith("arcvsa-01: GET /api/storage/pools/tank answered 409")
    assert answered(caught.value)[1]["code"] == "appliance_refused"
