"""The systemd-networkd files for the appliance's NICs, rendered from the validated properties.

The management file is named 10-arcvsa.network so that it sorts before the image's
80-arcvsa-dhcp.network (networkd applies the first file matching a link). When a static configuration
is self-contradictory (gateway outside the subnet, the address being the subnet's network or broadcast
address) the file asks for DHCP instead and a warning says why: the appliance stays reachable and
reports it.

The OVF gives the appliance two NICs, management first: vSphere gives them PCI slots in the
descriptor's order, so first boot takes the Ethernet NIC on the lowest PCI path as management and the
next as storage, and names each in its own file (interface names follow the PCI slot, so a cloned VM
keeps them). The storage NIC gets the storage_mode static address with no gateway and never holds the
boot up; without a storage network it is kept down rather than left to the image's DHCP, which would
put a second address on whatever port group it was mapped to. With one NIC there is nothing to tell
apart and its file matches any Ethernet name, as before there were two.
"""

from __future__ import annotations

import contextlib
import ipaddress
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from appliance.firstboot.model import ValidatedProperties
from appliance.firstboot.runner import Runner
from ovf import network_rules
from process import ProcessError

NETWORK_FILE = PurePosixPath("/etc/systemd/network/10-arcvsa.network")
STORAGE_FILE = PurePosixPath("/etc/systemd/network/20-arcvsa-storage.network")
SYS_NET = PurePosixPath("sys/class/net")  # under first boot's root
# First boot runs early: after udev's coldplug was queued (the unit's ordering), not necessarily after
# the NIC drivers probed and udev renamed the links (ens192, not eth0); the names it writes must be final.
SETTLE = ("udevadm", "settle", "--timeout=60")
SETTLE_TIMEOUT = 90.0
MATCH_NAMES = "en* eth*"  # the same links the image's DHCP fallback file matches


def settle(runner: Runner) -> None:
    """Wait for udev to have handled the devices queued so far; a udev that is not there (a first boot
    run on a tree, not a booted system) or does not settle leaves the NICs as they are found."""
    with contextlib.suppress(ProcessError):
        runner(list(SETTLE), timeout=SETTLE_TIMEOUT)


def nics(root: Path) -> list[str]:
    """The names of the guest's Ethernet NICs backed by a device (not lo, bridges or tunnels), management
    first: ordered by the sysfs path of their PCI device."""
    base = root / SYS_NET
    found = [
        ((entry / "device").resolve(), entry.name)
        for entry in (base.iterdir() if base.is_dir() else [])
        if entry.name.startswith(("en", "eth")) and (entry / "device").exists()
    ]
    return [name for _, name in sorted(found)]


@dataclass(frozen=True)
class StorageIntent:
    """The storage NIC (its interface name), its static address and MTU."""

    interface: str
    address: ipaddress.IPv4Interface
    mtu: int


def storage_intent(
    props: ValidatedProperties, management: NetworkIntent, found: list[str]
) -> tuple[StorageIntent | None, list[str]]:
    """The storage network on the second of the NICs ``found`` when asked for and usable; else None, with
    a warning saying why."""
    if props.text("storage_mode") != "static":
        return None, []
    address = ipaddress.IPv4Interface(f"{props.text('storage_address')}/{props.integer('storage_prefix')}")
    problems = network_rules.storage_problems(address, management.address)
    if len(found) < 2:
        problems.append(f"the appliance has {len(found)} NIC(s), the storage network needs a second")
    if problems:
        return None, [
            f"storage network not usable ({'; '.join(problems)}): NFS and iSCSI stay on the management network"
        ]
    return StorageIntent(interface=found[1], address=address, mtu=props.integer("storage_mtu")), []


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
    problems = [edge] if (edge := network_rules.subnet_edge(address)) else []
    if gateway is not None:
        if gateway == address.ip:
            problems.append(f"the gateway {gateway} is the appliance's own address")
        elif gateway not in address.network:
            problems.append(f"the gateway {gateway} is outside {address.network}")
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


def render_network(intent: NetworkIntent, name: str = MATCH_NAMES) -> str:
    """The management .network file text, for the NIC ``name`` (any Ethernet NIC by default)."""
    lines = [
        "# Written once by arcvsa first boot from the OVF properties.",
        "# The image's 80-arcvsa-dhcp.network applies when this file is absent.",
        "[Match]",
        f"Name={name}",
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


def render_storage(intent: StorageIntent | None, name: str) -> str:
    """The storage NIC's .network file: its address and MTU, or the link kept down without one."""
    lines = [
        "# Written once by arcvsa first boot from the OVF properties (storage_mode).",
        "[Match]",
        f"Name={name}",
        "",
        "[Link]",
        # Never hold the boot up (networkd-wait-online) for a port group without carrier.
        "RequiredForOnline=no",
    ]
    if intent is None:
        lines += ["ActivationPolicy=down", "", "[Network]", "LinkLocalAddressing=no", "IPv6AcceptRA=no"]
    else:
        lines += [
            f"MTUBytes={intent.mtu}",
            "",
            "[Network]",
            f"Address={intent.address.with_prefixlen}",
            "LinkLocalAddressing=no",
            "IPv6AcceptRA=no",
        ]
    return "\n".join(lines) + "\n"
