"""The appliance health wait at each boundary, one bad thing at a time, against real local servers:
nothing answering yet (allowed for the boot window, reported as it goes), a refused port, HTTP 404,
another service's certificate, a foreign JSON, plain HTTP on the TLS port, a pinned certificate that
changed, first boot refusing the OVF properties, a wrong admin password; and an appliance that boots
slowly and then comes up. Each wait is timed: the fast failures must be fast."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from fixtures.appliance import fleet_flows
from support.appliance_server import replayed_appliances
from support.tls_servers import Server, Silent, certificate, closed_port, json_answer

from api import VERSION
from api.appliance.schemas import FirstBoot, PropertyError
from api.health import Health
from provisioning.appliance_api import ApplianceApi
from provisioning.appliance_errors import ApplianceCertificateMismatch, ApplianceLoginFailed
from provisioning.errors import Cancelled
from provisioning.health import (
    ApplianceNotAnswering,
    ApplianceRefusing,
    ApplianceSetupRefused,
    ApplianceUnhealthy,
    HealthWait,
    NotAnAppliance,
    look,
    wait_healthy,
)
from provisioning.plan import ApplianceSpec

HEALTHY = Health(status="ok", version=VERSION, firstboot=FirstBoot(status="applied")).model_dump()


def spec(endpoint: str, thumbprint: str | None = None) -> ApplianceSpec:
    return ApplianceSpec(host="h0", name="arcvsa-01", api_endpoint=endpoint, api_thumbprint_sha256=thumbprint)


def waiting(boot_s: float = 600.0, **kw: object) -> tuple[HealthWait, list[str]]:
    said: list[str] = []
    wait = HealthWait(boot_s=boot_s, say=said.append, interval=0.2, **kw)  # type: ignore[arg-type]
    return wait, said


def timed(fn: object, *args: object) -> tuple[BaseException | str, float]:
    started = time.monotonic()
    try:
        out: BaseException | str = fn(*args)  # type: ignore[operator]
    except Exception as exc:
        out = exc
    return out, time.monotonic() - started


@pytest.fixture
def own_cert(tmp_path: Path) -> tuple[Path, Path, str]:
    return certificate(tmp_path / "own", "arcvsa-01", "arcvsa")


def test_a_healthy_arcvsa_answer_is_pinned_and_each_state_is_said(own_cert: tuple[Path, Path, str]) -> None:
    cert, key, thumbprint = own_cert
    with Server(json_answer(200, HEALTHY), tls=(cert, key)) as server:
        wait, said = waiting()
        pin, took = timed(wait_healthy, spec(server.endpoint), wait)
    assert pin == thumbprint and took < 2
    assert (
        said[0]
        == f"probing its api at {server.endpoint}, the plan's api address (vCenter reports no guest IP yet)"
    )
    assert said[1:] == [
        f"TLS answered at {server.endpoint}: certificate SHA-256 {thumbprint}",
        f"api healthy (arcvsa {VERSION})",
    ]


def test_the_guest_ip_vcenter_reports_is_said_as_the_address_seen(own_cert: tuple[Path, Path, str]) -> None:
    cert, key, _ = own_cert
    with Server(json_answer(200, HEALTHY), tls=(cert, key)) as server:
        wait, said = waiting(guest_ip=lambda: "10.10.0.11")
        wait_healthy(spec(server.endpoint), wait)
    assert said[0] == "address seen: 10.10.0.11 (vCenter reports the guest's IP)"


def test_nothing_answering_is_allowed_for_the_boot_window_and_said_every_few_seconds() -> None:
    with Silent() as silent:
        wait, said = waiting(boot_s=3.0, say_every=1.0, look_timeout=0.5)
        failed, took = timed(wait_healthy, spec(silent.endpoint), wait)
    assert isinstance(failed, ApplianceNotAnswering), failed
    assert "not healthy after 3 s" in str(failed) and "raise the boot wait" in str(failed)
    assert 3 <= took < 3 + 0.5 + 0.5, "one look may still be in progress when the window ends"
    progress = [s for s in said if s.startswith("waiting for its api: nothing answers")]
    assert len(progress) >= 2, said


def test_silence_once_vcenter_sees_the_guest_running_fails_after_silent_s() -> None:
    with Silent() as silent:
        wait, _ = waiting(guest_ip=lambda: "10.10.0.11", silent_s=1.0, look_timeout=0.5)
        failed, took = timed(wait_healthy, spec(silent.endpoint), wait)
    assert isinstance(failed, ApplianceNotAnswering), failed
    assert "vCenter reports the VM running at 10.10.0.11" in str(failed) and "firewall" in str(failed)
    assert 1 <= took < 1 + 0.5 + 0.5


@pytest.mark.parametrize(("refused_s", "listens_after", "healthy"), [(3.0, 1.0, True), (1.0, 3.0, False)])
def test_a_refused_port_is_allowed_refused_s_then_fails(
    own_cert: tuple[Path, Path, str], refused_s: float, listens_after: float, healthy: bool
) -> None:
    cert, key, thumbprint = own_cert
    with Server(json_answer(200, HEALTHY), tls=(cert, key), listen_after=listens_after) as server:
        wait, _ = waiting(refused_s=refused_s)
        out, took = timed(wait_healthy, spec(server.endpoint), wait)
    if healthy:
        assert out == thumbprint, "a slow boot that then answers is healthy"
        assert listens_after <= took < listens_after + 1
    else:
        assert isinstance(out, ApplianceRefusing), out
        assert "refused connections for 1 s" in str(out) and "no arcvsa api listens there" in str(out)
        assert refused_s <= took < refused_s + 1


def test_http_404_fails_after_three_looks_not_the_boot_window(own_cert: tuple[Path, Path, str]) -> None:
    cert, key, _ = own_cert
    with Server(json_answer(404, {"detail": "Not Found"}), tls=(cert, key)) as server:
        wait, _ = waiting()
        failed, took = timed(wait_healthy, spec(server.endpoint), wait)
        assert server.hits == 3
    assert isinstance(failed, NotAnAppliance), failed
    assert "answered HTTP 404 (3 looks in a row)" in str(failed) and "correct the appliance's address" in str(
        failed
    )
    assert took < 2


def test_two_wrong_looks_then_a_healthy_one_is_healthy(own_cert: tuple[Path, Path, str]) -> None:
    cert, key, thumbprint = own_cert
    answers = iter([404, 404, 200])

    def flaky(path: str) -> tuple[int, bytes, str]:
        status = next(answers, 200)
        return json_answer(status, HEALTHY if status == 200 else {"detail": "Not Found"})(path)

    with Server(flaky, tls=(cert, key)) as server:
        wait, _ = waiting()
        assert wait_healthy(spec(server.endpoint), wait) == thumbprint


def test_another_services_certificate_and_json_is_not_an_appliance(tmp_path: Path) -> None:
    cert, key, _ = certificate(tmp_path, "vcenter.example.org", "Example Corp")
    with Server(json_answer(200, {"name": "VMware vCenter", "build": "24026615"}), tls=(cert, key)) as server:
        wait, said = waiting()
        failed, took = timed(wait_healthy, spec(server.endpoint), wait)
    assert isinstance(failed, NotAnAppliance), failed
    assert "not arcvsa's health answer" in str(failed)
    assert "Its certificate is for CN=vcenter.example.org,O=Example Corp." in str(failed)
    assert not [s for s in said if s.startswith("TLS answered")], (
        "a foreign certificate is not reported as ours"
    )
    assert took < 2


def test_a_json_with_a_status_but_no_version_is_not_arcvsas(own_cert: tuple[Path, Path, str]) -> None:
    cert, key, _ = own_cert
    with Server(json_answer(200, {"status": "ok"}), tls=(cert, key)) as server:
        failed, _ = timed(wait_healthy, spec(server.endpoint), waiting()[0])
    assert isinstance(failed, NotAnAppliance) and "not arcvsa's health answer" in str(failed)


def test_plain_http_on_the_tls_port_is_not_an_appliance() -> None:
    with Server(json_answer(200, HEALTHY), tls=None) as server:
        failed, took = timed(wait_healthy, spec(server.endpoint), waiting()[0])
    assert isinstance(failed, NotAnAppliance) and "does not speak TLS" in str(failed), failed
    assert took < 2


def test_a_certificate_other_than_the_pinned_one_fails_at_once(
    own_cert: tuple[Path, Path, str], tmp_path: Path
) -> None:
    _, _, pinned = own_cert
    cert, key, other = certificate(tmp_path / "other", "arcvsa-01", "arcvsa")
    with Server(json_answer(200, HEALTHY), tls=(cert, key)) as server:
        failed, took = timed(wait_healthy, spec(server.endpoint, pinned), waiting()[0])
        assert server.hits == 0, "nothing is sent to a server whose certificate is not the pinned one"
    assert isinstance(failed, ApplianceCertificateMismatch), failed
    assert (
        failed.thumbprint == other
        and pinned in str(failed)
        and "clear the appliance's thumbprint" in str(failed)
    )
    assert took < 1


def test_first_boot_refusing_the_ovf_properties_fails_at_once(own_cert: tuple[Path, Path, str]) -> None:
    cert, key, _ = own_cert
    refused = FirstBoot(
        status="refused",
        errors=[PropertyError(key="ipv4_prefix", label="IPv4 prefix length", message="must be 1..32")],
    )
    answer = Health(status="ok", version=VERSION, firstboot=refused).model_dump()
    with Server(json_answer(200, answer), tls=(cert, key)) as server:
        failed, took = timed(wait_healthy, spec(server.endpoint), waiting()[0])
    assert isinstance(failed, ApplianceSetupRefused), failed
    assert "IPv4 prefix length: must be 1..32" in str(failed) and "deploy again" in str(failed)
    assert took < 1


def test_an_api_that_is_starting_is_waited_for_within_the_boot_window(
    own_cert: tuple[Path, Path, str],
) -> None:
    cert, key, _ = own_cert
    with Server(json_answer(503, {"status": "starting"}), tls=(cert, key)) as server:
        failed, took = timed(wait_healthy, spec(server.endpoint), waiting(boot_s=1.5)[0])
    assert type(failed) is ApplianceUnhealthy and "its api is starting (HTTP 503" in str(failed), failed
    assert 1.5 <= took < 3


def test_a_cancel_ends_the_wait_by_its_next_look() -> None:
    """run_bounded stops waiting for a step at once; the wait itself ends by its next look (or sleep)."""
    switch = threading.Event()
    with Silent() as silent:
        wait, _ = waiting(cancelled=switch.is_set, look_timeout=0.5)
        threading.Timer(1.0, switch.set).start()
        failed, took = timed(wait_healthy, spec(silent.endpoint), wait)
    assert isinstance(failed, Cancelled), failed
    assert "while waiting for arcvsa-01's api" in str(failed)
    assert 1.0 <= took < 1.0 + 0.5 + 0.5


def test_a_closed_port_is_refused_and_a_single_look_says_so() -> None:
    seen = look(closed_port(), None)
    assert (seen.kind, seen.words.endswith("refuses connections")) == ("refused", True)


def test_a_wrong_admin_password_fails_the_login_at_once(tmp_path: Path) -> None:
    with replayed_appliances(tmp_path, 1, "fleet", fleet_flows.PASSWORD) as [(server, _)]:
        api = ApplianceApi(server.endpoint, server.thumbprint, name="arcvsa-01")
        started = time.monotonic()
        with pytest.raises(ApplianceLoginFailed) as refused:
            api.login("not-" + fleet_flows.PASSWORD)
        took = time.monotonic() - started
        api.login(fleet_flows.PASSWORD)  # the right one still works: one refusal locks nothing out
    assert "arcvsa-01: the admin password you entered is not this appliance's" in str(refused.value)
    assert refused.value.field == "fleet.admin_password" and took < 5
