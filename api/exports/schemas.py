"""Requests and answers of the NFS export routes (addresses and names checked like appliance.control's)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field

from appliance.control import names
from appliance.control.errors import InvalidName
from appliance.control.nfs.backends import Backend
from appliance.control.nfs.model import Protocol


def _unique(clients: list[str]) -> list[str]:
    if len(set(clients)) != len(clients):
        raise InvalidName("a client address is listed twice")
    return clients


Clients = Annotated[list[names.Address], AfterValidator(_unique)]


class ExportCreate(BaseModel):
    """A datastore export: one dataset, one NFS version, the ESXi hosts allowed in."""

    dataset: names.ChildDataset = Field(
        description="the ZFS dataset to export (pool/child); its mount point is exported"
    )
    protocol: Protocol = Field(description="NFS version of this datastore: 3 or 4.1 (never both to one host)")
    clients: Clients = Field(
        min_length=1, max_length=64, description="ESXi host addresses (read-write, no root squash)"
    )
    insecure_ports: bool = Field(
        False, description="accept client ports above 1023 (knfsd; NAT in front of the hosts)"
    )
    export_id: int | None = Field(
        None,
        ge=2,
        le=65535,
        description="ganesha Export_Id / knfsd fsid; allocated from 101 upwards when absent",
    )


class ExportUpdate(BaseModel):
    """New hosts (and optionally protocol or port rule) for an export; the dataset and path stay."""

    clients: Clients = Field(min_length=1, max_length=64, description="ESXi host addresses")
    protocol: Protocol | None = Field(None, description="new NFS version (None: unchanged)")
    insecure_ports: bool | None = Field(None, description="new port rule (None: unchanged)")


class ExportView(BaseModel):
    """A desired export and whether the backend serves it now."""

    export_id: int = Field(description="ganesha Export_Id / knfsd fsid")
    dataset: str = Field(description="the ZFS dataset exported")
    path: str = Field(description="its mount point, the NFS path the hosts mount")
    protocol: Protocol = Field(description="NFS version")
    clients: list[str] = Field(description="ESXi host addresses allowed in")
    insecure_ports: bool = Field(description="client ports above 1023 accepted")
    backend: Backend = Field(description="the NFS server serving it")
    active: bool = Field(description="the backend serves it now")


class NfsState(BaseModel):
    """The appliance's NFS server and its exports."""

    backend: Backend = Field(description="the one NFS server in use")
    exports: list[ExportView] = Field(description="every desired export")


class BackendChoice(BaseModel):
    """Which NFS server the appliance runs."""

    backend: Backend = Field(
        description="ganesha (nfs-ganesha, per-export counters) or knfsd (kernel server)"
    )


class ExportIOView(BaseModel):
    """Client I/O counters of one export since its server started."""

    export_id: int = Field(description="ganesha Export_Id / knfsd fsid")
    protocol: Protocol = Field(description="NFS version")
    read_ops: int = Field(description="read operations")
    read_bytes: int = Field(description="bytes read by clients")
    write_ops: int = Field(description="write operations")
    write_bytes: int = Field(description="bytes written by clients")
    counters_available: bool = Field(description="false on knfsd: it keeps no per-export counters (all zero)")
