"""Requests of the storage routes; answers are appliance.control's own models."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field
from zfs_tuning.schema import DesktopPoolType, parse_size

from appliance.control import names
from appliance.control.errors import InvalidRequest
from appliance.control.pools import ZfsPoolLayout


class DatasetCreate(BaseModel):
    """A dataset for a desktop pool's datastore, tuned by the profile of its pool type."""

    name: str = Field(description="pool/child, e.g. tank/vdi-linked")
    profile: DesktopPoolType = Field(description="tuning profile (pool type) whose dataset properties apply")
    properties: dict[str, Any] = Field(
        default_factory=dict,
        description="overrides of the profile's properties (validated; never sync=disabled)",
    )


def _volblocksize(value: str) -> str:
    try:
        # parse_size forgives blanks around the size ('16K\t'); the value itself goes on zfs's argv
        size = parse_size(value) if value == value.strip() else 0
    except ValueError:
        size = 0
    if size < 4096 or size > 128 << 10 or size & (size - 1):
        raise InvalidRequest(f"volblocksize must be a power of two from 4K to 128K: {value!r}")
    return value


class VolumeCreate(BaseModel):
    """A zvol for an iSCSI LUN."""

    name: names.ChildDataset = Field(description="pool/child, e.g. tank/lun0")
    size_bytes: int = Field(gt=0, le=1 << 50, description="size in bytes, a multiple of volblocksize")
    volblocksize: Annotated[str, AfterValidator(_volblocksize)] = Field(
        "16K", description="block size, a power of two from 4K to 128K (16K suits VMFS)"
    )


class SnapshotCreate(BaseModel):
    """A snapshot of a dataset."""

    name: Annotated[str, AfterValidator(names.snapshot)] = Field(
        description="dataset@tag, e.g. tank/golden@v1"
    )


class CloneCreate(BaseModel):
    """A clone of a snapshot."""

    snapshot: Annotated[str, AfterValidator(names.snapshot)] = Field(description="dataset@tag to clone")
    target: names.ChildDataset = Field(description="the new dataset, pool/child")
    properties: dict[str, Any] = Field(
        default_factory=dict, description="properties of the clone (validated; never sync=disabled)"
    )


class ZfsPoolGrow(BaseModel):
    """LUNs that grow a pool (scale-up): one new top-level vdev in the pool's layout."""

    devices: list[names.Device] = Field(min_length=1, max_length=16, description="free LUNs, by-id paths")
    layout: ZfsPoolLayout = Field(
        ZfsPoolLayout.stripe, description="the new vdev's layout; match the pool's (zpool refuses a mismatch)"
    )
    force: bool = Field(False, description="use LUNs that hold a file system or an old pool label")


class ZfsPoolReplace(BaseModel):
    """One LUN of a pool replaced by another; the pool resilvers onto the new one."""

    old: names.Device = Field(description="the device in the pool, as its path in the pool's vdevs")
    new: names.Device = Field(description="the free LUN that takes its place")
    force: bool = Field(False, description="use a LUN that holds a file system or an old pool label")


class DatasetUpdate(BaseModel):
    """Properties changed on an existing dataset (quota, reservation, compression ...); others untouched."""

    properties: dict[str, Any] = Field(
        min_length=1, description="properties to set (validated; never sync=disabled)"
    )


class ZfsPoolImport(BaseModel):
    """How to import a pool found by GET /api/storage/imports."""

    name: names.Pool | None = Field(
        None, description="a new name for it (needed when a pool of its name is already imported)"
    )


class DiskWipe(BaseModel):
    """A disk to clear of old labels; its name typed out confirms it (its contents are lost)."""

    path: names.Device = Field(description="the disk's path as GET /api/storage/disks gives it")
    confirm: str = Field(max_length=200, description="the disk's name typed out: the last part of its path")
