"""The systemd-networkd file for the appliance's NIC, rendered from the validated properties.

It is named 10-arcvsa.network so that it sorts before the image's 80-arcvsa-dhcp.network (networkd
applies the first file matching a link). When a static configuration is self-contradictory
(gateway outside the subnet, the address being the subnet's network or broadcast address) the
file asks for DHCP instead and a warning says why: the appliance stays reachable and reports it.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import PurePosixPath

from appliance.firstboot.model import ValidatedProperties

NETWORK_FILE = PurePosixPath("/etc/systemd/network/10-arcvsa.network")
MATCH_NAMES = "en* eth*"  # the same links the image's DHCP fallback file matches


@dataclass(frozen=True)
class NetworkIntent:
    """What the NIC should do: DHCP, or a static address with optional gateway and DNS servers."""

    address: ipaddress.IPv4Interface | None
    gateway: ipaddress.IPv4Address | None = None
    dns: tuple[ipaddress.IPv4Address, ...] = ()
    domains: tuple[str, ...] = ()

    @property
    def dhcp(self) -> bool:
        return self.address is None


def static_problems(address: ipaddress.IPv4Interface, gateway: ipaddress.IPv4Address | None) -> list[str]:
    """Why a static address/prefix/gateway cannot work together; empty when it can."""
    problems = []
    net = address.network
    if net.prefixlen < 31 and address.ip in (net.network_address, net.broadcast_address):
        what = "network" if address.ip == net.network_address else "broadcast"
        problems.append(f"{address.ip} is the {what} address of {net}")
    if gateway is not None:
        if gateway == address.ip:
            problems.append(f"the gateway {gateway} is the appliance's own address")
        elif gateway not in net:
            problems.append(f"the gateway {gateway} is outside {net}")
    return problems


def network_intent(props: ValidatedProperties) -> tuple[NetworkIntent, list[str]]:
    """The intent for the properties, and warnings when a static configuration fell back to DHCP."""
    domains = tuple(d for d in props.text("dns_search").split(",") if d)
    if props.text("ipv4_mode") != "static":
        return NetworkIntent(address=None, domains=domains), []
    address = ipaddress.IPv4Interface(f"{props.text('ipv4_address')}/{props.integer('ipv4_prefix')}")
    gateway_text = props.text("ipv4_gateway")
    gateway = ipaddress.IPv4Address(gateway_text) if gateway_text else None
    problems = static_problems(address, gateway)
    if problems:
        return NetworkIntent(address=None, domains=domains), [
            f"static IPv4 configuration not usable ({'; '.join(problems)}): using DHCP instead"
        ]
    dns = tuple(ipaddress.IPv4Address(d) for d in props.text("dns_servers").split(",") if d)
    return NetworkIntent(address=address, gateway=gateway, dns=dns, domains=domains), []


def render_network(intent: NetworkIntent) -> str:
    """The .network file text."""
    lines = [
        "# Written once by arcvsa first boot from the OVF properties.",
        "# The image's 80-arcvsa-dhcp.network applies when this file is absent.",
        "[Match]",
        f"Name={MATCH_NAMES}",
        "",
        "[Network]",
    ]
    if intent.address is None:
        lines.append("DHCP=ipv4")
    else:
        lines.append(f"Address={intent.address.with_prefixlen}")
        if intent.gateway is not None:
            lines.append(f"Gateway={intent.gateway}")
        lines.extend(f"DNS={server}" for server in intent.dns)
    if intent.domains:
        # The link's search domains: resolved searches them for names without a dot, with DHCP too.
        lines.append(f"Domains={' '.join(intent.domains)}")
    return "\n".join(lines) + "\n"
