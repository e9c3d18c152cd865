"""Issue 9 part 3: the "time not synchronised" alert raised and cleared through the api of the booted
lab appliance.

The appliance is deployed with ntp_servers=10.0.2.2 (the host, as qemu user networking shows it; the VM
boots with restrict=off, or its NTP requests would never leave it) while nothing serves NTP there, so
chronyd follows no source: past the alert's grace period after boot, /api/alerts lists ``time/sync``.
Then the host's lab NTP server starts (lab.ntp: the real chronyd serving the host's clock, never setting
it), chronyd is told to poll at once rather than at its next interval (``chronyc burst``), and the alert
clears once it follows the host.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance.remote import SshRunner
from support import polling
from support.lab_api import LabApi, in_guest
from support.lab_boot import BootedAppliance, boot

from api.alerts.timesync import GRACE_SECONDS, KEY
from appliance.control import chrony
from lab import ntp
from lab.san import San

pytestmark = [pytest.mark.lab, pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def booted(
    lab_image: tuple[Path, Path], san: San, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BootedAppliance]:
    """The appliance told to follow the host's NTP server, able to reach it; powered off afterwards."""
    if ntp.running() is not None:
        pytest.fail("a lab NTP server runs already (python -m lab.ntp stop): the test starts its own")
    image, key = lab_image
    appliance = boot(
        image, key, san, tmp_path_factory.mktemp("vm"), {"ntp_servers": ntp.GUEST_HOST}, reach_host=True
    )
    try:
        print(f"boot to SSH: {appliance.vm.wait_ssh(timeout=300):.1f} s")
        yield appliance
    finally:
        appliance.vm.shutdown(timeout=120)


def time_alert(api: LabApi) -> dict[str, Any] | None:
    return next((a for a in api.call("GET", "/api/alerts") if a["key"] == KEY), None)


def tracking(guest: SshRunner) -> chrony.Tracking:
    return chrony.parse_tracking(in_guest(guest, chrony.TRACKING, timeout=60).stdout)


def test_alert_raised_without_a_source_and_cleared_once_synchronised(api: LabApi, guest: SshRunner) -> None:
    sources = in_guest(guest, ["cat", "/etc/chrony/sources.d/arcvsa.sources"]).stdout
    assert f"server {ntp.GUEST_HOST} iburst" in sources  # first boot wrote the ntp_servers property
    assert not tracking(guest).synchronised

    raised = polling.wait("the time alert", lambda: time_alert(api), timeout=GRACE_SECONDS + 300, every=5.0)
    uptime = float(in_guest(guest, ["cat", chrony.UPTIME]).stdout.split()[0])
    print(f"alert at {uptime:.0f} s uptime: {raised['message']}")
    assert raised["severity"] == "warning" and "follows no NTP source" in raised["message"]

    server = ntp.start(tied=True)
    try:
        started = time.monotonic()
        in_guest(guest, ["chronyc", "burst", "4/4"])  # poll now, not at the next poll interval
        polling.wait(
            "the time alert cleared",
            lambda: True if time_alert(api) is None else None,
            timeout=300,
            every=5.0,
        )
        cleared = time.monotonic() - started
        now = tracking(guest)
        print(
            f"alert cleared {cleared:.1f} s after the host's NTP server started; "
            f"offset {now.offset:+.6f} s, last offset {now.last_offset:+.6f} s, stratum {now.stratum}, "
            f"source {now.reference}"
        )
        assert now.synchronised and now.reference == ntp.GUEST_HOST and now.stratum == ntp.STRATUM + 1
        assert abs(now.offset) < 1.0
    finally:
        server.stop()
