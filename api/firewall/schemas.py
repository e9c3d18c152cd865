"""Who may reach the appliance, as the api takes and shows it: management and iSCSI networks, SSH."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field

from appliance.control import names


def _network(value: str) -> str:
    """A network in its usual form (an address alone is its /32 or /128); host bits set is a mistake,
    not rounded away."""
    try:
        return names.network(value.strip())
    except ValueError as exc:
        raise ValueError(f"not a network: {value!r} ({exc})") from None


Network = Annotated[str, AfterValidator(_network)]


def _unique(networks: list[str]) -> list[str]:
    if len(set(networks)) != len(networks):
        raise ValueError("a network is listed twice")
    return networks


Networks = Annotated[list[Network], AfterValidator(_unique)]


class FirewallSettings(BaseModel):
    """Who may reach the web interface, SSH and iSCSI (NFS follows the exports' hosts by itself)."""

    management: Networks = Field(
        min_length=1,
        max_length=64,
        description="networks (or single addresses) allowed to the web interface (443) and, when on, SSH "
        "(22); 0.0.0.0/0 and ::/0 allow every address",
    )
    iscsi: Networks = Field(
        default_factory=list,
        max_length=64,
        description="networks of the ESXi hosts whose iSCSI initiators log in (3260, while a target exists)",
    )
    ssh: bool = Field(
        False, description="the SSH service on (keys only), reachable from the management networks"
    )
    ssh_root: bool = Field(
        False,
        description="root may log in over SSH too, with the arcvsa account's keys (for automation that has "
        "no terminal), while SSH is on; administrators log in as arcvsa",
    )


class Allowed(BaseModel):
    """One accept rule in effect: a service, its TCP ports and who may reach them."""

    service: str = Field(description="web interface, SSH, NFSv3, NFSv4.1 or iSCSI")
    ports: list[int] = Field(description="TCP ports")
    sources: list[str] = Field(description="networks or addresses allowed (empty: nobody)")
    interface: str | None = Field(
        None,
        description="the NIC the rule answers on: the storage network's for NFS and iSCSI, any other for "
        "the web interface and SSH ('not ens224'); None: every NIC (no storage network)",
    )


class StorageNetwork(BaseModel):
    """The storage network first boot configured from the OVF properties (storage_mode static)."""

    interface: str = Field(
        pattern=rf"^{names.INTERFACE.pattern}$",
        description="the storage NIC's interface name in the appliance, e.g. ens224",
    )
    address: str = Field(description="its address and prefix, e.g. 198.51.100.10/24; ESXi mounts here")
    mtu: int = Field(description="its MTU (9000: jumbo frames)")


class Trial(BaseModel):
    """A change of the management networks in effect on trial: kept only when confirmed in time."""

    settings: FirewallSettings = Field(description="the settings on trial")
    until: datetime = Field(description="when the previous rules come back unless confirmed")


class FirewallView(BaseModel):
    """The firewall's settings, what they allow, and the address this appliance sees the caller at."""

    settings: FirewallSettings = Field(description="the settings in effect (confirmed)")
    allowed: list[Allowed] = Field(description="every accept rule in effect; all else is refused")
    trial: Trial | None = Field(None, description="a change waiting for confirmation")
    your_address: str = Field(description="the address your requests come from, as the appliance sees it")
    storage_network: StorageNetwork | None = Field(
        None, description="the storage network NFS and iSCSI are answered on alone; None: every NIC"
    )
