"""The appliance's default-deny firewall: one nftables table, rendered whole from what it serves.

Everything inbound is dropped but replies to the appliance's own connections, loopback, the ICMP that
IPv4 and IPv6 need (path MTU, neighbour discovery), DHCP answers, and:
- the web interface (443) and, while SSH is on, 22, from the management networks;
- NFS from the hosts its exports list: 2049 for NFSv4.1, with rpcbind (111) and mountd (20048) for
  NFSv3, TCP only (rpcbind over UDP is a known reflection amplifier; ESXi mounts over TCP);
- iSCSI (3260) from the initiator networks, while a target exists (initiators are named by IQN, which
  says nothing of the address they connect from).
With a storage network (a second NIC first boot configured), NFS and iSCSI are answered only on its NIC
and the web interface and SSH only on the others: the networks stay apart even for an address listed on
both sides. TCP to any other port is answered with a reset, so a host left out of an export fails at once rather
than after a timeout; the rest is dropped.

The table is replaced in one ``nft -f`` transaction (created if missing, deleted, defined again), so no
packet ever meets half a rule set, and other tables are left alone. The file nftables.service loads at
boot is the rule set in effect; a change that narrows the management networks is tried live with a
rollback armed (a systemd timer that loads that file again) and written only once the administrator's
next request proves it still reaches the appliance.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from pydantic import BaseModel, Field

from appliance.control import names
from appliance.control.errors import ControlError
from appliance.control.files import Files
from appliance.control.gateway import Gateway

RULES_FILE = "/etc/nftables.conf"  # what nftables.service loads at boot
TABLE = "arcvsa"
HTTPS = 443
SSH = 22
NFS = 2049
RPCBIND = 111
MOUNTD = 20048  # appliance.control.nfs: ganesha's MNT_Port and knfsd's [mountd] port
ISCSI = 3260
NFS3_PORTS = (RPCBIND, NFS, MOUNTD)
NFS4_PORTS = (NFS,)
# Rollback of a change on trial: a transient timer, so it fires even when the api is gone.
ROLLBACK_UNIT = "arcvsa-firewall-rollback"
NFT_TIMEOUT = 30.0
SYSTEMCTL_TIMEOUT = 30.0
ANY = (ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0"))
HEADER = (
    "#!/usr/sbin/nft -f\n"
    "# Written by arcvsa (appliance.control.firewall) from the api's firewall settings, exports and iSCSI\n"
    "# targets; loaded at boot by nftables.service. Edits by hand are replaced at the next change.\n"
)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class Rules(BaseModel):
    """Who may reach what: the input of the rendered rule set."""

    management: list[Network] = Field(description="networks the web interface (and SSH when on) answer")
    ssh: bool = Field(description="22 open to the management networks")
    nfs3: list[Address] = Field(default_factory=list, description="hosts of the NFSv3 exports")
    nfs4: list[Address] = Field(default_factory=list, description="hosts of the NFSv4.1 exports")
    iscsi: list[Network] = Field(default_factory=list, description="initiator networks (empty: 3260 closed)")
    storage_interface: str | None = Field(
        default=None,
        pattern=rf"^{names.INTERFACE.pattern}$",
        description="the storage network's NIC: NFS and iSCSI only there, the rest never there",
    )


def default_rules() -> Rules:
    """The image's rule set, until the api first renders one: the web interface and 22 from anywhere,
    nothing else. 22 because SSH runs only where the build or first boot (given a key) turned it on, and
    must answer before the api starts; the api's first reconcile then follows what runs."""
    return Rules(management=list(ANY), ssh=True)


def allows(networks: Iterable[Network], address: Address) -> bool:
    """Whether ``address`` is in one of ``networks`` (an IPv4-mapped IPv6 address as its IPv4 one)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address.version == n.version and address in n for n in networks)


def _elements(items: Iterable[Network | Address], version: int) -> str:
    chosen = sorted({str(i) for i in items if i.version == version})
    return f" elements = {{ {', '.join(chosen)} }};" if chosen else ""


def _set(name: str, version: int, items: Iterable[Network | Address]) -> str:
    kind = "ipv4_addr" if version == 4 else "ipv6_addr"
    # interval + auto-merge: networks that overlap (10.0.0.0/8 and 10.1.0.0/16) are one range.
    return (
        f"\tset {name}_v{version} {{ type {kind}; flags interval; auto-merge;{_elements(items, version)} }}\n"
    )


def _ports(ports: Iterable[int]) -> str:
    listed = sorted(set(ports))
    return str(listed[0]) if len(listed) == 1 else "{ " + ", ".join(str(p) for p in listed) + " }"


def render(rules: Rules) -> str:
    """The nft script: the table created if missing, deleted and defined again, in one transaction."""
    management_ports = (HTTPS, SSH) if rules.ssh else (HTTPS,)
    nic = rules.storage_interface
    off_storage, on_storage = (f'iifname != "{nic}" ', f'iifname "{nic}" ') if nic else ("", "")
    allowed = (
        ("management", rules.management, management_ports, off_storage),
        ("nfs3", rules.nfs3, NFS3_PORTS, on_storage),
        ("nfs4", rules.nfs4, NFS4_PORTS, on_storage),
        ("iscsi", rules.iscsi, (ISCSI,), on_storage),
    )
    sets = "".join(_set(name, v, items) for name, items, _, _ in allowed for v in (4, 6))
    accepts = "".join(
        f"\t\t{where}{family} saddr @{name}_v{v} tcp dport {_ports(ports)} accept\n"
        for name, _, ports, where in allowed
        for v, family in ((4, "ip"), (6, "ip6"))
    )
    return (
        f"{HEADER}"
        f"table inet {TABLE}\n"
        f"delete table inet {TABLE}\n"
        f"table inet {TABLE} {{\n"
        f"{sets}"
        "\tchain input {\n"
        "\t\ttype filter hook input priority filter; policy drop;\n"
        "\t\tct state established,related accept\n"
        "\t\tct state invalid drop\n"
        '\t\tiif "lo" accept\n'
        "\t\ticmp type { echo-request, destination-unreachable, time-exceeded, parameter-problem }"
        " limit rate 50/second accept\n"
        "\t\ticmpv6 type { destination-unreachable, packet-too-big, time-exceeded, parameter-problem,"
        " echo-request, nd-router-advert, nd-neighbor-solicit, nd-neighbor-advert } accept\n"
        "\t\tudp sport 67 udp dport 68 accept\n"
        "\t\tip6 saddr fe80::/10 udp sport 547 udp dport 546 accept\n"
        f"{accepts}"
        "\t\tmeta l4proto tcp reject with tcp reset\n"
        "\t}\n"
        "\tchain forward {\n"
        "\t\ttype filter hook forward priority filter; policy drop;\n"
        "\t}\n"
        "}\n"
    )


def check(gw: Gateway, text: str) -> None:
    """``nft -c``: the whole script parsed and checked by the kernel, nothing applied."""
    gw.run(["nft", "-c", "-f", "/dev/stdin"], input_text=text, timeout=NFT_TIMEOUT)


def load(gw: Gateway, text: str) -> None:
    """Apply the script: one transaction, all of it or none."""
    gw.run(["nft", "-f", "/dev/stdin"], input_text=text, timeout=NFT_TIMEOUT)


def loaded(gw: Gateway) -> bool:
    """Whether the table is in the kernel now (gone after ``nft flush ruleset`` by hand)."""
    return (
        gw.query(["nft", "list", "table", "inet", TABLE], timeout=NFT_TIMEOUT, ok_codes=(0, 1)).exit_code == 0
    )


def apply(gw: Gateway, files: Files, rules: Rules) -> bool:
    """The rule set in effect and in the boot file; True when it changed. Idempotent.

    A script nft refuses changes nothing; the boot file is written only after the kernel took it.
    """
    text = render(rules)
    if files.read(RULES_FILE) == text and loaded(gw):
        return False
    check(gw, text)
    load(gw, text)
    files.write(RULES_FILE, text)
    return True


def try_out(gw: Gateway, rules: Rules, seconds: int) -> None:
    """Apply ``rules`` live with the boot file's rule set coming back after ``seconds`` unless kept."""
    text = render(rules)
    check(gw, text)
    disarm(gw)
    gw.run(
        [
            "systemd-run",
            f"--unit={ROLLBACK_UNIT}",
            f"--on-active={seconds}s",
            "--timer-property=AccuracySec=1s",
            "--description=arcvsa: the firewall's rule set back as it was before an unconfirmed change",
            "nft",
            "-f",
            RULES_FILE,
        ],
        timeout=SYSTEMCTL_TIMEOUT,
    )
    try:
        load(gw, text)
    except ControlError:
        disarm(gw)
        raise


def keep(gw: Gateway, files: Files, rules: Rules) -> None:
    """A change on trial confirmed: the rollback disarmed, the rules in the boot file (and live)."""
    disarm(gw)
    text = render(rules)
    load(gw, text)
    files.write(RULES_FILE, text)


def roll_back(gw: Gateway, files: Files) -> None:
    """A change on trial abandoned: the boot file's rule set live again, the timer gone."""
    disarm(gw)
    text = files.read(RULES_FILE)
    if text is not None:
        load(gw, text)


def disarm(gw: Gateway) -> None:
    """Stop a pending rollback (none pending: nothing to do)."""
    units = [f"{ROLLBACK_UNIT}.timer", f"{ROLLBACK_UNIT}.service"]
    gw.run(["systemctl", "stop", *units], timeout=SYSTEMCTL_TIMEOUT, ok_codes=(0, 5))
    gw.run(["systemctl", "reset-failed", *units], timeout=SYSTEMCTL_TIMEOUT, ok_codes=(0, 1, 5))
