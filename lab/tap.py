"""A tap link from the host to a lab VM: the path a real NIC gives an appliance.

The lab's VMs talk to the host through qemu's user-mode network (slirp), a TCP/IP stack of its own run
in qemu's one main loop; under many desktops' load its own latency would be measured as the
appliance's. A tap device is a plain Ethernet link: the
guest's second NIC, on a documentation network (RFC 5737 TEST-NET-2) the host answers on. The guest's
control path (SSH, the forwards) stays on user mode; what a run measures can go over the tap.

It needs /dev/net/tun and CAP_NET_ADMIN; :func:`open_link` raises :class:`TapUnavailable` saying which.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from process import ProcessError, run

NETWORK = ipaddress.IPv4Network("198.51.100.0/24")
# A second run's link beside the first (reliability.soak_ab boots two appliances): TEST-NET-3.
SECOND_NETWORK = ipaddress.IPv4Network("203.0.113.0/24")
# A locally administered MAC, so the guest finds the link's NIC by it (interface names depend on slots).
GUEST_MAC = "52:54:00:a5:c6:02"
# networkd applies the first .network file (by name, over /etc, /run and /usr/lib) that matches a link:
# 05- sorts before the image's and first boot's files, which ask for DHCP on every Ethernet port.
GUEST_NETWORK_FILE = "/run/systemd/network/05-arcvsa-lab-tap.network"
Network = Literal["tap", "user"]  # a run's measured path: a tap link, or qemu's user-mode forwards


class TapUnavailable(RuntimeError):
    """The host cannot make a tap device (no /dev/net/tun, or no CAP_NET_ADMIN)."""


@dataclass(frozen=True)
class TapLink:
    """The host's tap device and the two ends' addresses."""

    ifname: str
    host: ipaddress.IPv4Interface
    guest: ipaddress.IPv4Interface
    mac: str = GUEST_MAC

    def hotplug(self) -> list[tuple[str, dict[str, object]]]:
        """The QMP commands that plug the guest's second NIC into this device once the guest runs.

        Plugged after boot, not on qemu's command line: a NIC present at boot gets the image's DHCP, no
        lease comes on this link, and the boot waits for the network to be online (up to 2 min) with the
        user-mode NIC's forwards refusing meanwhile. qemu configures nothing on the host (no scripts).
        """
        return [
            ("netdev_add", {"type": "tap", "id": "net-tap", "ifname": self.ifname, "script": "no", "downscript": "no"}),
            ("device_add", {"driver": "virtio-net-pci", "id": "nic-tap", "netdev": "net-tap", "mac": self.mac, "romfile": ""}),
        ]  # fmt: skip

    def guest_network(self) -> str:
        """The guest's runtime networkd file for its end (in /run: gone at the next boot)."""
        return (
            "# The lab's tap link (lab/tap.py); runtime only.\n"
            f"[Match]\nMACAddress={self.mac}\n\n"
            f"[Network]\nAddress={self.guest.with_prefixlen}\nLinkLocalAddressing=no\nIPv6AcceptRA=no\n"
        )


#: the devices :func:`default_name` makes, the process's id after the prefix
OWNED = re.compile(r"arcvsa(\d+)")


def default_name() -> str:
    """One device per lab process: its pid (at most 7 digits: names are at most 15 characters)."""
    return f"arcvsa{os.getpid()}"


def stale_links(network: ipaddress.IPv4Network) -> list[str]:
    """The devices of lab processes that are gone but whose link still holds an address in ``network``:
    a run killed before its cleanup leaves one, and its route to the network would take the next run's
    traffic to a link nobody serves."""
    listed = json.loads(run(["ip", "-json", "-4", "address", "show"], timeout=30).stdout or "[]")
    stale = []
    for device in listed:
        owner = OWNED.fullmatch(device.get("ifname", ""))
        if owner is None or os.path.exists(f"/proc/{owner.group(1)}"):
            continue
        addresses = (f"{a['local']}/{a['prefixlen']}" for a in device.get("addr_info", []))
        if any(ipaddress.IPv4Interface(a).network == network for a in addresses):
            stale.append(device["ifname"])
    return stale


def open_link(ifname: str | None = None, network: ipaddress.IPv4Network = NETWORK) -> TapLink:
    """Create the tap device with the host's address, up; the guest end is configured once it boots."""
    hosts = network.hosts()
    host, guest = next(hosts), next(hosts)
    link = TapLink(
        ifname or default_name(),
        ipaddress.IPv4Interface(f"{host}/{network.prefixlen}"),
        ipaddress.IPv4Interface(f"{guest}/{network.prefixlen}"),
    )
    if not os.path.exists("/dev/net/tun"):
        raise TapUnavailable("no /dev/net/tun on this host")
    for name in stale_links(network):
        delete_device(name)
    try:
        run(["ip", "tuntap", "add", "dev", link.ifname, "mode", "tap"], timeout=30)
    except ProcessError as err:
        raise TapUnavailable(f"cannot create a tap device: {err.stderr.strip()}") from err
    try:
        run(["ip", "address", "add", link.host.with_prefixlen, "dev", link.ifname], timeout=30)
        run(["ip", "link", "set", "dev", link.ifname, "up"], timeout=30)
    except ProcessError:
        close_link(link)
        raise
    return link


def close_link(link: TapLink) -> None:
    """Delete the host's device (its address and route go with it)."""
    delete_device(link.ifname)


def delete_device(ifname: str) -> None:
    run(["ip", "tuntap", "del", "dev", ifname, "mode", "tap"], timeout=30)


def measured_path(
    asked: Network,
    say: Callable[[str], None],
    ifname: str | None = None,
    network: ipaddress.IPv4Network = NETWORK,
) -> tuple[TapLink | None, str]:
    """The tap link when asked for and the host can make one; else qemu's user-mode forwards, saying why
    (a run's JSON names the path its figures were measured on with the second value)."""
    if asked == "user":
        return None, "user"
    try:
        link = open_link(ifname, network)
    except TapUnavailable as err:
        say(f"no tap link ({err}): the measured traffic goes through qemu's user-mode forwards")
        return None, f"user ({err})"
    say(f"tap link {link.ifname}: host {link.host.ip}, guest {link.guest.ip}")
    return link, "tap"
