"""A boot with bad vApp properties: nothing is applied, the appliance stays reachable and says why."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import portscan
from support.lab_boot import UEFI_BOOT_LINE, BootedAppliance, boot

from lab import console
from lab.san import San, make_luns

pytestmark = [pytest.mark.lab, pytest.mark.timeout(1200)]

# One refusal each: out of range, empty, a label with a leading hyphen, an empty search entry.
BAD = {
    "ipv4_prefix": "33",
    "admin_password": "",
    "fqdn": "-arcvsa-lab.lab.arcvsa.test",
    "dns_search": "lab.arcvsa.test,",
}


@pytest.fixture(scope="module")
def refused(
    lab_image: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BootedAppliance]:
    """The image booted with BAD's values (its own small SAN), under BIOS: the smoke's other
    appliance (test_smoke) boots under UEFI, so `make lab-smoke` boots both."""
    image, key = lab_image
    directory = tmp_path_factory.mktemp("refused")
    san = San(directory / "san", make_luns(directory / "luns", 1, 64 << 20), tied=True).start()
    try:
        appliance = boot(image, key, san, directory / "vm", BAD, firmware="bios")
        try:
            yield appliance
        finally:
            appliance.vm.shutdown(timeout=120)
    finally:
        san.stop()


def test_refused_properties_are_reported_by_the_api(refused: BootedAppliance) -> None:
    firstboot = refused.health["firstboot"]
    assert isinstance(firstboot, dict)
    assert firstboot["status"] == "refused"
    keys = {error["key"] for error in firstboot["errors"]}
    assert keys == set(BAD), firstboot
    assert all(error["message"] for error in firstboot["errors"])


def test_refused_properties_are_on_the_console(refused: BootedAppliance) -> None:
    """First boot's own lines, and the greeting above the login prompt: each property with its reason."""
    seen = console.text(refused.vm.console)
    assert all(f"{key} (" in seen for key in BAD), seen[-3000:]
    started = time.monotonic()
    while not (drawn := [g for g in console.greetings(refused.vm.console) if "https://10.0.2.15/" in g]):
        assert time.monotonic() - started < 180, console.tail(refused.vm.console, 30)
        time.sleep(2)
    greeting = drawn[-1]
    print(f"\nconsole greeting:\n{greeting}")
    assert f"REFUSED {len(BAD)} vApp properties, so nothing was applied:" in greeting
    reasons = {
        "ipv4_prefix": "must be between 1 and 32 (got '33')",
        "admin_password": "is empty; it needs at least 8 characters",
        "fqdn": "'-arcvsa-lab.lab.arcvsa.test' has the label '-arcvsa-lab'",
        "dns_search": "entry 2 of 'lab.arcvsa.test,' is empty",
    }
    for key, reason in reasons.items():
        assert f"- {key} (" in greeting and reason in greeting, key


def test_the_image_booted_under_bios(refused: BootedAppliance) -> None:
    # No SSH here (nothing was applied): the kernel's console says which firmware started it.
    seen = console.text(refused.vm.console)
    assert "Linux version" in seen and not UEFI_BOOT_LINE.search(seen), seen[:3000]


def test_nothing_was_applied(refused: BootedAppliance) -> None:
    # No password was set, so no login works; the host name is still the image's.
    status, _ = refused.api.request("POST", "/api/auth/token", {"username": "admin", "password": "x"})
    assert status == 401
    status, _ = refused.api.request("GET", "/api/appliance")
    assert status == 401


def test_ssh_is_off(refused: BootedAppliance) -> None:
    # The seal removed packer's build key and turned SSH off, and the refused environment gave no key
    # to turn it on: nothing answers on 22 (the web interface, beside it, does).
    ports = refused.vm.config.host_ports
    seen = portscan.scan({"ssh": ("127.0.0.1", ports["ssh"]), "https": ("127.0.0.1", ports["https"])})
    assert seen == {"ssh": "closed", "https": "open"}, seen
