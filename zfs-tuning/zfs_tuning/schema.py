"""The schema of a tuning profile: dataset properties and module-parameter defaults per pool type.

``sync`` cannot be ``disabled`` here by construction: ESXi writes NFS datastores synchronously and
an acknowledged write must survive a power cut (the SLOG makes that fast instead).
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

SIZE = re.compile(r"(\d+)([KMGT]?)", re.IGNORECASE)
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
COMPRESSION = {"off", "lz4", "lzjb", "zstd", "zstd-fast", *(f"zstd-{n}" for n in range(1, 20))}


class DesktopPoolType(StrEnum):
    """Desktop pool types of the wizard."""

    stateless_linked = "stateless-linked"
    persistent_linked = "persistent-linked"
    persistent_full = "persistent-full"
    stateless_full = "stateless-full"
    generic = "generic"


def parse_size(value: int | str) -> int:
    """Bytes from 131072, "128K", "1M", "4G"."""
    if isinstance(value, int):
        return value
    match = SIZE.fullmatch(str(value).strip())
    if not match:
        raise ValueError(f"not a size: {value!r}")
    return int(match.group(1)) * UNITS[match.group(2).upper()]


def format_size(value: int) -> str:
    """The shortest exact zfs size string: 131072 -> "128K"."""
    for unit in ("T", "G", "M", "K"):
        if value and value % UNITS[unit] == 0:
            return f"{value // UNITS[unit]}{unit}"
    return str(value)


class DatasetProperties(BaseModel):
    """ZFS properties a profile (or a caller) may set on a datastore dataset; None leaves a property alone."""

    model_config = ConfigDict(extra="forbid")

    compression: str | None = Field(None, description="lz4 (default), lzjb, zstd[-N] or off")
    recordsize: str | None = Field(None, description="power of two from 4K to 1M")
    atime: Literal["on", "off"] | None = Field(
        None, description="access-time updates (off: no write per read)"
    )
    xattr: Literal["sa", "on"] | None = Field(None, description="sa keeps xattrs in the dnode (fewer I/Os)")
    acltype: Literal["posix"] | None = Field(None, description="posix: nfs-ganesha 6.5 on FSAL_VFS needs it")
    logbias: Literal["latency", "throughput"] | None = Field(None, description="latency uses the SLOG")
    primarycache: Literal["all", "metadata", "none"] | None = Field(None, description="what the ARC keeps")
    secondarycache: Literal["all", "metadata", "none"] | None = Field(None, description="what L2ARC keeps")
    sync: Literal["standard", "always"] | None = Field(None, description="never disabled (see module doc)")
    dedup: Literal["off", "on", "sha256", "blake3", "skein"] | None = Field(
        None, description="costs RAM per unique block; see calculator.dedup_table_bytes"
    )
    redundant_metadata: Literal["all", "most", "some", "none"] | None = Field(
        None, description="extra metadata copies (most: fewer small writes)"
    )
    quota: str | None = Field(None, description="size or none")
    reservation: str | None = Field(None, description="size or none")
    refquota: str | None = Field(None, description="size or none")
    refreservation: str | None = Field(None, description="size or none")

    @field_validator("compression")
    @classmethod
    def _compression(cls, value: str | None) -> str | None:
        if value is not None and value not in COMPRESSION:
            raise ValueError(f"compression must be one of lz4, lzjb, zstd[-1..19], off: {value!r}")
        return value

    @field_validator("recordsize", mode="before")
    @classmethod
    def _recordsize(cls, value: int | str | None) -> str | None:
        if value is None:
            return None
        size = parse_size(value)
        if size < 4096 or size > 1 << 20 or size & (size - 1):
            raise ValueError(f"recordsize must be a power of two from 4K to 1M: {value!r}")
        return format_size(size)

    @field_validator("quota", "reservation", "refquota", "refreservation", mode="before")
    @classmethod
    def _size_or_none(cls, value: int | str | None) -> str | None:
        if value is None or value == "none":
            return value
        return str(parse_size(value))

    def as_zfs(self) -> dict[str, str]:
        """{property: value} of the fields that are set, in declaration order."""
        return {k: str(v) for k, v in self.model_dump(exclude_none=True).items()}


class ModuleDefaults(BaseModel):
    """Module-parameter choices a profile makes; sizes (ARC, L2ARC feed) come from the calculator."""

    model_config = ConfigDict(extra="forbid")

    zfs_prefetch_disable: Literal[0, 1] = Field(0, description="1 turns off file-level prefetch")
    l2arc_noprefetch: Literal[0, 1] = Field(1, description="0 lets prefetched (sequential) reads into L2ARC")
    zfs_txg_timeout: int = Field(5, ge=1, le=30, description="seconds between transaction group commits")


class Workload(BaseModel):
    """What the calculator assumes of this pool type's I/O."""

    model_config = ConfigDict(extra="forbid")

    shared_golden: bool = Field(description="desktops read one golden replica (linked clones)")
    hot_fraction: float = Field(
        gt=0, le=1, description="share of each desktop's own bytes read again and again"
    )


class Profile(BaseModel):
    """One tuning profile (profiles/<pool type>.yaml)."""

    model_config = ConfigDict(extra="forbid")

    name: DesktopPoolType = Field(description="the pool type it is for (also the file name)")
    description: str = Field(description="one line for the UI")
    dataset: DatasetProperties = Field(description="properties of the datastore dataset")
    module: ModuleDefaults = Field(description="module-parameter choices")
    workload: Workload = Field(description="assumptions for sizing")
    why: dict[str, str] = Field(description="one line per dataset property or module choice: why this value")
