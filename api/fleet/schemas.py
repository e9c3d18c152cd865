"""What a deployment owns in vCenter now, and how each of its appliances is doing."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from api.alerts.schemas import Alert
from api.backup.schemas import BackupRequest
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


class FleetFigures(BaseModel):
    """Figures over the window or one bucket of it: rates per second, ratios, latencies in ms; null where
    nothing was measured (no LUN I/O for an offload, no operations for a latency)."""

    client_iops: float = Field(description="NFS operations per second (reads and writes)")
    lun_iops: float = Field(description="I/Os per second reaching the data LUNs")
    client_read_ops: float = Field(description="NFS reads per second")
    client_write_ops: float = Field(description="NFS writes per second")
    lun_read_ops: float = Field(description="reads per second reaching the data LUNs")
    lun_write_ops: float = Field(description="writes per second reaching the data LUNs")
    client_read_bytes: float = Field(description="bytes/s read by the NFS clients")
    client_write_bytes: float = Field(description="bytes/s written by the NFS clients")
    lun_read_bytes: float = Field(description="bytes/s read from the data LUNs")
    lun_write_bytes: float = Field(description="bytes/s written to the data LUNs")
    read_offload: float | None = Field(description="client read bytes / LUN read bytes")
    write_offload: float | None = Field(description="client write bytes / LUN write bytes")
    arc_hit_ratio: float | None = Field(description="ARC hits / lookups, weighted by client reads")
    l2_hit_ratio: float | None = Field(description="L2ARC hits / lookups, weighted by client reads")
    client_latency_ms: float | None = Field(
        description="mean NFS operation time at the server (ganesha counts it; the kernel server does not)"
    )
    lun_read_latency_ms: float | None = Field(description="mean LUN read time")
    lun_write_latency_ms: float | None = Field(description="mean LUN write time")
    compressratio: float | None = Field(description="logical / physical bytes (mean over appliances)")


class FleetPoint(FleetFigures):
    t: datetime = Field(description="start of the bucket (UTC)")


class FleetSeriesPoint(FleetPoint):
    appliances: int = Field(description="appliances with samples in this bucket")


class PoolSpace(BaseModel):
    name: str = Field(description="ZFS pool name")
    size: int = Field(description="bytes in the pool")
    allocated: int = Field(description="bytes allocated")
    health: str = Field(description="zpool's health")


ApplianceState = Literal["ok", "unpinned", "unreachable", "slow", "certificate", "refused"]


class FleetAppliance(BaseModel):
    """One appliance as its own api reported it within its time budget, or why it could not."""

    name: str = Field(description="Appliance VM name")
    host: str = Field(description="ESXi host it runs on")
    address: str | None = Field(description="host:port of its api")
    state: ApplianceState = Field(
        description="ok: read; unpinned: its certificate is not pinned yet; unreachable: no connection; "
        "slow: no answer within the time budget; certificate: another certificate than the pinned one; "
        "refused: its api answered with an error (the login among them)"
    )
    reason: str | None = Field(description="why it is not ok, in words")
    healthy: bool = Field(description="ok, its api healthy, its pools online without errors, no alert")
    version: str | None = Field(description="arcvsa version its api reports")
    backend: str | None = Field(description="the NFS server it runs (ganesha or knfsd)")
    figures: FleetFigures | None = Field(description="over the window; none when nothing was read")
    series: list[FleetPoint] = Field(description="the window in buckets, oldest first")
    pools: list[PoolSpace] = Field(description="its pools' space and health")
    used_bytes: int | None = Field(description="bytes allocated in its pools")
    size_bytes: int | None = Field(description="bytes in its pools")
    alerts: list[Alert] = Field(description="its api's alerts now, critical first")
    seconds: float = Field(description="how long reading it took")


class FleetDeployment(BaseModel):
    id: int = Field(description="Deployment id")
    name: str = Field(description="Deployment name")
    vcenter: str = Field(description="Name of the vCenter it is deployed in")
    datacenter: str = Field(description="Datacenter")
    cluster: str = Field(description="Cluster")
    horizon: str | None = Field(
        None, description="host:port of the Horizon Connection Server its pool is handed to, if one is"
    )
    appliances: list[FleetAppliance] = Field(description="Its appliances, in the plan's order")


class FleetView(BaseModel):
    """Every appliance of every deployment, read concurrently, each within its own time budget."""

    minutes: int = Field(description="the window the figures and series cover, up to now")
    bucket_seconds: int = Field(description="the width of a series point")
    timeout_seconds: float = Field(description="each appliance's time budget for all its reads")
    deployments: list[FleetDeployment] = Field(description="deployments with appliances, by name")
    figures: FleetFigures = Field(description="the fleet's figures over the window (appliances summed)")
    series: list[FleetSeriesPoint] = Field(description="the fleet's figures per bucket, oldest first")
    seconds: float = Field(description="how long reading the whole fleet took")


class FleetBackupRequest(BackupRequest):
    """Back up every appliance (or one deployment's), each under this passphrase."""

    deployment_id: int | None = Field(None, ge=1, description="only this deployment's appliances")


class FleetBackupItem(BaseModel):
    """One appliance's part of a fleet backup."""

    deployment: str
    appliance: str
    state: Literal["taken", "failed", "not deployed"]
    reason: str | None = Field(None, description="why it was not taken")
    file: str | None = Field(None, description="its file in the archive, restorable onto it as it is")


class FleetBackup(BaseModel):
    """A fleet backup kept on the manager: one archive of every appliance's own backup file."""

    name: str = Field(description="the archive's file name (GET /api/fleet/backups/{name})")
    created_at: str = Field(description="when (UTC, ISO 8601)")
    size_bytes: int
    taken: int = Field(description="appliances backed up")
    appliances: list[FleetBackupItem]
