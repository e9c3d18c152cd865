"""The lab's tap link (lab.tap): its two ends, the guest's NIC and file, the host's device for real, and the
soak's and the bench's choice of path."""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from lab import tap
from lab.appliance_env import LAB_GATEWAY
from lab.appliance_vm import GUEST_PORTS, ApplianceVm, VmConfig
from process import ProcessError, run
from reliability.powercut import Lab, PoolSpec

LINK = tap.TapLink(
    "arcvsatest", ipaddress.IPv4Interface("198.51.100.1/24"), ipaddress.IPv4Interface("198.51.100.2/24")
)


def test_the_link_is_on_a_documentation_network_apart_from_user_mode() -> None:
    user_mode = ipaddress.IPv4Network("10.0.2.0/24")
    assert not tap.NETWORK.overlaps(user_mode) and ipaddress.IPv4Address(LAB_GATEWAY) in user_mode
    assert tap.NETWORK.is_private  # RFC 5737: never routed, never a real customer's network
    assert len(tap.default_name()) <= 15  # the kernel's IFNAMSIZ - 1


def test_the_guest_nic_is_plugged_in_after_boot_and_found_by_mac(tmp_path: Path) -> None:
    config = VmConfig(Path("/img.qcow2"), tmp_path, tmp_path / "san.sock", [], tmp_path / "key", tap=LINK)
    assert "tap" not in " ".join(ApplianceVm(config).argv())  # the boot is the same as without it
    (netdev, backend), (device, nic) = LINK.hotplug()
    assert (netdev, backend["type"], backend["ifname"]) == ("netdev_add", "tap", "arcvsatest")
    assert (backend["script"], backend["downscript"]) == ("no", "no")  # nothing run on the host
    assert (device, nic["netdev"], nic["mac"]) == ("device_add", backend["id"], tap.GUEST_MAC)
    text = LINK.guest_network()
    assert f"MACAddress={tap.GUEST_MAC}" in text and "Address=198.51.100.2/24" in text
    assert "DHCP" not in text  # a static end: the host runs no DHCP server
    assert Path(tap.GUEST_NETWORK_FILE).name < "10-arcvsa.network" < "80-arcvsa-dhcp.network"


def test_the_measured_path_is_the_tap_link_when_there_is_one(tmp_path: Path) -> None:
    def vm(link: tap.TapLink | None) -> ApplianceVm:
        ports = {"nfs": 40001, "mountd": 40002, "https": 40003}
        return ApplianceVm(
            VmConfig(Path("/i"), tmp_path, tmp_path / "s", [], tmp_path / "k", host_ports=ports, tap=link)
        )

    pool = PoolSpec("tank", "/dev/x", True)
    user = cast(Lab, SimpleNamespace(vm=vm(None)))
    assert Lab.url(user, pool, "f") == "nfs://127.0.0.1/tank/rel/f?nfsport=40001&mountport=40002"
    assert Lab.api_url(user) == "https://127.0.0.1:40003"
    assert Lab.client.fget(user) == LAB_GATEWAY  # type: ignore[attr-defined]
    linked = cast(Lab, SimpleNamespace(vm=vm(LINK)))
    assert Lab.url(linked, pool) == (
        f"nfs://198.51.100.2/tank/rel?nfsport={GUEST_PORTS['nfs']}&mountport={GUEST_PORTS['mountd']}"
    )
    assert Lab.api_url(linked) == "https://198.51.100.2:443"
    assert Lab.client.fget(linked) == "198.51.100.1"  # type: ignore[attr-defined]


def test_a_host_without_tap_falls_back_to_user_mode_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    said: list[str] = []
    assert tap.measured_path("user", said.append) == (None, "user") and said == []

    def refuse(ifname: str | None = None, network: object = tap.NETWORK) -> tap.TapLink:
        raise tap.TapUnavailable("no /dev/net/tun on this host")

    monkeypatch.setattr(tap, "open_link", refuse)
    assert tap.measured_path("tap", said.append) == (None, "user (no /dev/net/tun on this host)")
    assert said == [
        "no tap link (no /dev/net/tun on this host): the measured traffic goes through qemu's user-mode forwards"
    ]


@contextlib.contextmanager
def made(ifname: str, network: ipaddress.IPv4Network = tap.NETWORK) -> Iterator[tap.TapLink]:
    """A tap device for real, removed after; the test is skipped on a host that makes none."""
    try:
        link = tap.open_link(ifname, network)
    except tap.TapUnavailable as err:
        pytest.skip(f"this host makes no tap devices: {err}")
    try:
        yield link
    finally:
        tap.close_link(link)


def test_a_tap_device_is_made_and_removed_for_real() -> None:
    with made("arcvsaunit0") as link:
        shown = run(["ip", "-o", "-4", "address", "show", "dev", link.ifname], timeout=30).stdout
        assert "198.51.100.1/24" in shown
        with pytest.raises(tap.TapUnavailable):
            tap.open_link("arcvsaunit0")  # the name is taken: said plainly, and the first is untouched
    with pytest.raises(ProcessError):
        run(["ip", "link", "show", "dev", link.ifname], timeout=30)  # gone


def test_a_second_link_beside_the_first_has_its_own_network() -> None:
    """The soak A/B's two appliances: one link each, on two networks, so neither route hides the other."""
    with made("arcvsaunit1") as first, made("arcvsaunit2", tap.SECOND_NETWORK) as second:
        assert (str(second.host), str(second.guest)) == ("203.0.113.1/24", "203.0.113.2/24")
        route = run(["ip", "-o", "route", "get", str(second.guest.ip)], timeout=30).stdout
        assert "dev arcvsaunit2" in route
        route = run(["ip", "-o", "route", "get", str(first.guest.ip)], timeout=30).stdout
        assert "dev arcvsaunit1" in route


def test_a_killed_runs_link_is_removed_and_a_live_runs_kept() -> None:
    """A run killed before its cleanup leaves its device, address and route behind: the next run's link
    replaces it. A device whose lab process still runs is never touched."""
    dead = "arcvsa4999999"  # above the kernel's largest pid: no process has it
    with made(tap.default_name()) as mine:
        assert tap.OWNED.fullmatch(mine.ifname) and tap.OWNED.fullmatch(dead)
        left = tap.open_link(dead)
        try:
            assert tap.stale_links(tap.NETWORK) == [dead]
            assert tap.stale_links(tap.SECOND_NETWORK) == []
            with made("arcvsaunit3") as fresh:
                names = run(["ip", "-o", "link", "show"], timeout=30).stdout
                assert f" {dead}:" not in names and f" {mine.ifname}:" in names
                route = run(["ip", "-o", "route", "get", str(fresh.guest.ip)], timeout=30).stdout
                assert f"dev {dead}" not in route
        finally:
            with contextlib.suppress(ProcessError):
                tap.close_link(left)
