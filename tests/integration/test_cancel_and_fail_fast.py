"""Cancel within seconds in every phase of an apply, and a wrong appliance failing fast, against vcsim.

Phases: the OVA upload (through a relay that slows what is sent to vCenter), a vCenter task that takes a
minute (vcsim's -method-delay on ReconfigVm, the disks' attach), the health wait of an appliance that
never answers. A wrong appliance: a plain HTTPS server answering 404 where the appliance's api should
be; a port that refuses. Every figure printed is measured from the cancel (or the power-on) to apply's end.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.delayed_vcsim import DelayedVcsim
from support.ova import make_ova
from support.slow_proxy import SlowProxy
from support.tls_servers import Server, Silent, certificate, closed_port, json_answer

from lab.vcsim import CLUSTER, DATACENTER, Vcsim
from provisioning import apply as prov
from provisioning import session
from provisioning.destroy import destroy
from provisioning.errors import Cancelled
from provisioning.plan import DeploymentPlan
from provisioning.progress import Event, Options, Report

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]
CANCEL_S = 10.0


@pytest.fixture(scope="module")
def delayed() -> Iterator[Vcsim]:
    with DelayedVcsim({"ReconfigVm": 60_000}) as sim:
        yield sim


@pytest.fixture(scope="module")
def proxy(site: Vcsim) -> Iterator[SlowProxy]:
    with SlowProxy((site.host, site.port)) as relay:
        yield relay


@pytest.fixture(scope="module")
def big_ova(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8 MiB of random data on its disk: its upload takes about 30 s over the slowed relay."""
    return make_ova(tmp_path_factory.mktemp("ova"), os.urandom(8 * 1024**2))


@pytest.fixture(scope="module")
def small_ova(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_ova(tmp_path_factory.mktemp("small-ova"))


class Run:
    """apply() of a one-appliance plan on a thread, with its events and a cancel switch, as a job runs it."""

    def __init__(self, sim: Vcsim, name: str, ova: Path, endpoint: str, port: int | None = None) -> None:
        appliance = {
            "host": "DC0_C0_H0",
            "name": name,
            "properties": {"hostname": name},
            "api_endpoint": endpoint,
            "disks": [{"datastore": "san-lun-01", "size_gb": 1}],
        }
        self.plan = DeploymentPlan.model_validate({
            "name": name, "datacenter": DATACENTER, "cluster": CLUSTER,
            "fleet": {"ova_path": str(ova), "network": "vsa-nfs", "datastore": "san-lun-01",
                      "appliances": [appliance]},
        })  # fmt: skip
        self.login = functools.partial(
            session.login, sim.host, port or sim.port, sim.username, sim.password,
            thumbprint_sha256=sim.thumbprint_sha256,
        )  # fmt: skip
        self.events: list[Event] = []
        self.switch = threading.Event()
        self.outcome: Report | BaseException | None = None
        self.ended = 0.0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        opts = Options(on_event=self.events.append, cancelled=self.switch.is_set)
        try:
            self.outcome = prov.apply(self.login, self.plan, opts)
        except BaseException as exc:
            self.outcome = exc
        self.ended = time.monotonic()

    def start(self) -> Run:
        self.started = time.monotonic()
        self.thread.start()
        return self

    def until(self, test: Any, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not any(test(e) for e in list(self.events)):
            assert self.thread.is_alive(), (self.outcome, self.said())
            assert time.monotonic() < deadline, self.said()
            time.sleep(0.05)

    def said(self) -> list[str]:
        return [f"{e.kind} {e.object}: {e.message}" for e in list(self.events)]

    def cancel(self) -> float:
        """Turn the switch on; seconds until apply ended."""
        at = time.monotonic()
        self.switch.set()
        self.thread.join(60)
        return self.ended - at

    def finish(self) -> float:
        self.thread.join(120)
        return self.ended - self.started

    def clean(self, sim: Vcsim) -> None:
        login = functools.partial(session.login, sim.host, sim.port, sim.username, sim.password,
                                  thumbprint_sha256=sim.thumbprint_sha256)  # fmt: skip
        destroy(login, self.plan.name, DATACENTER, CLUSTER)


def test_a_cancel_during_the_ova_upload_ends_the_run_within_seconds(
    site: Vcsim, proxy: SlowProxy, big_ova: Path
) -> None:
    proxy.rate = 256 * 1024  # 8 MiB take about 30 s
    try:
        run = Run(site, "cancel-upload", big_ova, closed_port(), proxy.port).start()
        run.until(lambda e: e.kind == "bytes")
        took = run.cancel()
    finally:
        proxy.rate = None
    print(f"\ncancel during the OVA upload: {took:.1f} s")
    assert isinstance(run.outcome, Cancelled), run.outcome
    assert took < CANCEL_S
    assert not [e for e in run.events if e.message.startswith("VM imported")], "the lease was aborted"
    run.clean(site)


def test_a_cancel_during_a_vcenter_task_ends_the_run_within_seconds(delayed: Vcsim, small_ova: Path) -> None:
    run = Run(delayed, "cancel-task", small_ova, closed_port()).start()
    run.until(lambda e: e.message.startswith("attaching"))
    # vcsim holds the ReconfigVM_Task call itself for a minute: give a loaded host time to send it
    time.sleep(5)
    took = run.cancel()
    print(f"\ncancel during a vCenter task (ReconfigVm, 60 s): {took:.1f} s")
    assert isinstance(run.outcome, Cancelled), run.outcome
    assert "1 vCenter task left running" in str(run.outcome)
    assert not [e for e in run.events if e.message == "powering on"], run.said()
    assert took < CANCEL_S


def test_a_cancel_during_the_health_wait_ends_the_run_within_seconds(site: Vcsim, big_ova: Path) -> None:
    with Silent() as silent:
        run = Run(site, "cancel-health", big_ova, silent.endpoint).start()
        run.until(lambda e: e.message.startswith("probing its api"))
        time.sleep(1)  # a look is in progress: the silent port never answers TLS
        took = run.cancel()
    print(f"\ncancel during the health wait: {took:.1f} s")
    assert isinstance(run.outcome, Cancelled), run.outcome
    assert took < CANCEL_S
    run.clean(site)


def test_a_404_where_the_appliance_should_be_fails_it_in_seconds_with_what_to_do(
    site: Vcsim, big_ova: Path, tmp_path: Path
) -> None:
    cert, key, _ = certificate(tmp_path, "www.example.org", "Example Corp")
    with Server(json_answer(404, {"detail": "Not Found"}), tls=(cert, key)) as other:
        run = Run(site, "wrong-404", big_ova, other.endpoint).start()
        run.until(lambda e: e.message == "VM powered on")
        powered = time.monotonic()
        run.finish()
    took = run.ended - powered
    print(f"\nHTTP 404 at the appliance's address: failed {took:.1f} s after power-on")
    assert isinstance(run.outcome, Report), run.outcome
    why = run.outcome.failed["wrong-404"]
    assert why.startswith("NotAnAppliance: wrong-404:") and "answered HTTP 404" in why
    assert "correct the appliance's address" in why
    assert took < 15
    run.clean(site)


def test_a_refusing_address_fails_the_appliance_within_about_a_minute(site: Vcsim, big_ova: Path) -> None:
    run = Run(site, "refusing", big_ova, closed_port()).start()
    run.until(lambda e: e.message == "VM powered on")
    powered = time.monotonic()
    run.finish()
    took = run.ended - powered
    print(f"\nconnection refused at the appliance's address: failed {took:.1f} s after power-on")
    assert isinstance(run.outcome, Report), run.outcome
    assert run.outcome.failed["refusing"].startswith("ApplianceRefusing: refusing:"), run.outcome.failed
    assert 60 <= took < 75
    said = [e.message for e in run.events if e.object == "refusing" and e.kind == "info"]
    assert sum(m.startswith("waiting for its api:") for m in said) >= 5, "never silent for more than ~10 s"
    run.clean(site)
