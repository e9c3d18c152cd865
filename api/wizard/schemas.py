"""The wizard's offers: OVA files found on this machine, and lab appliances standing in for VMs."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

GuestPath = Annotated[str, StringConstraints(pattern=r"^/dev/disk/by-id/[A-Za-z0-9._:+-]+$", max_length=200)]
Endpoint = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9.\-\[\]:]+:\d{1,5}$", max_length=128)]


class OvaFile(BaseModel):
    path: str = Field(description="Full path of the OVA on the machine running arcvsa")
    name: str = Field(description="Its file name")
    size_bytes: int = Field(ge=0, description="Its size")
    modified_at: datetime = Field(description="When it was written (the newest is offered first)")


class StandInDisk(BaseModel):
    model_config = ConfigDict(extra="forbid")

    guest_path: GuestPath = Field(description="The disk's /dev/disk/by-id path inside the stand-in appliance")
    role: Literal["data", "log", "cache"] = Field(
        description="Its part in the pool: a SAN LUN, SLOG or L2ARC"
    )
    size_bytes: int = Field(gt=0, description="Its size")


class StandIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64, description="What it is, as the demo calls it")
    endpoint: Endpoint = Field(description="host:port where arcvsa reaches the stand-in's api")
    disks: list[StandInDisk] = Field(min_length=1, max_length=32, description="Its disks, SAN LUNs first")


class StandInFile(BaseModel):
    """The file the demo writes once its lab appliance answers (settings.stand_in_file)."""

    model_config = ConfigDict(extra="forbid")

    stand_ins: list[StandIn] = Field(
        max_length=16, description="Lab appliances, in the order hosts are chosen"
    )


class Offers(BaseModel):
    ovas: list[OvaFile] = Field(
        description="OVA files in settings.ova_dir, newest first (empty: none, or no folder set)"
    )
    stand_ins: list[StandIn] = Field(
        description="Lab appliances that play the appliance VMs a simulated vCenter cannot run: the first chosen "
        "host's appliance is reached at the first one's api and builds its pool on its disks, and so on. Empty "
        "outside the demo and the lab."
    )
    stand_ins_pending: bool = Field(
        description="A stand-in is configured but its appliance has not answered yet (the demo is still booting it)"
    )
    stand_ins_refused: str | None = Field(
        default=None, description="Why the configured stand-in file was not read (it is not a stand-in file)"
    )
