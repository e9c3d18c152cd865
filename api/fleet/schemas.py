"""What a deployment owns in vCenter now, and how each of its appliances is doing."""

from __future__ import annotations

from pydantic import BaseModel, Field

from provisioning.diff import Action


class OwnedDesktop(BaseModel):
    name: str = Field(description="Desktop VM name")
    power_state: str = Field(description="'poweredOn', 'poweredOff' or 'suspended'")
    source: str | None = Field(description="'golden@snapshot' it was cloned from, as recorded on it")


class DeploymentInventory(BaseModel):
    """The deployment's desktops in vCenter against its plan, and what destroy would remove."""

    planned: int = Field(description="Desktops the plan asks for (0 without a pool)")
    present: int = Field(description="Planned desktops that exist and are this deployment's")
    current: int = Field(description="Of those, the ones cloned from the plan's golden@snapshot")
    powered_on: int = Field(description="Of those, the ones powered on")
    desktops: list[OwnedDesktop] = Field(description="Every desktop the deployment owns, planned or not")
    teardown: list[Action] = Field(description="Every object destroy would remove, in its order")


class ZfsPoolStatus(BaseModel):
    name: str = Field(description="ZFS pool name")
    state: str = Field(
        description="ONLINE, DEGRADED, FAULTED ... or MISSING when the appliance has no such pool"
    )
    data_errors: int = Field(description="Files with permanent errors")
    device_errors: int = Field(description="Read, write and checksum errors of its devices")


class ApplianceStatus(BaseModel):
    """One appliance of the fleet as its own api reports it (read through the pinned certificate)."""

    name: str = Field(description="Appliance VM name")
    host: str = Field(description="ESXi host it runs on")
    address: str | None = Field(description="host:port of its api; none when the plan names none")
    reachable: bool = Field(description="Whether its api answered /api/health")
    healthy: bool = Field(description="Reachable, healthy, pools ONLINE without errors")
    version: str | None = Field(description="arcvsa version its api reports")
    pools: list[ZfsPoolStatus] | None = Field(
        description="Its pools (the plan's pool when the plan has an NFS datastore); none when not read"
    )
    alerts: list[str] = Field(description="What needs a look, in words")
    seconds: float = Field(description="How long asking it took")
