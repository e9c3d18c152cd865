"""What the api says about the appliance (the files first boot and the image build leave behind)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

FirstBootState = Literal["applied", "skipped", "refused", "failed", "pending", "absent"]


class PropertyError(BaseModel):
    """One refused OVF property (its key and why; never its value)."""

    key: str | None = Field(default=None, description="vApp property key, e.g. ipv4_prefix")
    label: str | None = Field(default=None, description="The property's label in the vSphere client")
    message: str = Field(description="Why it was refused")


class FirstBoot(BaseModel):
    """Outcome of first boot. `pending`: not run yet; `absent`: not an appliance (a developer machine)."""

    status: FirstBootState = Field(description="applied, skipped, refused, failed, pending or absent")
    finished_at: str | None = Field(default=None, description="When first boot finished (ISO 8601)")
    transport: str | None = Field(default=None, description="iso or guestinfo")
    errors: list[PropertyError] = Field(default_factory=list, description="Refused properties")
    warnings: list[str] = Field(default_factory=list, description="Applied, with a caveat")


class Build(BaseModel):
    """The image's build manifest (/etc/arcvsa/build-manifest.json)."""

    version: str
    git_version: str
    kernel: str
    openzfs: str
    nfs_ganesha: str


class ApplianceInfo(BaseModel):
    """The appliance as its admin sees it."""

    version: str = Field(description="arcvsa version of this api")
    hostname: str = Field(description="Host name of the machine")
    role: str | None = Field(default=None, description="manager or storage (OVF property), if set")
    nfs_backend: str | None = Field(default=None, description="ganesha or knfsd (OVF property), if set")
    build: Build | None = Field(default=None, description="Build manifest; none outside the image")
    firstboot: FirstBoot = Field(description="What first boot made of the OVF properties")
