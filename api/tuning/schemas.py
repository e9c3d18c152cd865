"""Requests and answers of the tuning routes (profiles and plans are zfs_tuning's own models)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

ParamValue = Annotated[int, Field(ge=0, le=(1 << 63) - 1)]


class Parameter(BaseModel):
    """A ZFS module parameter arcvsa tunes."""

    name: str = Field(description="module parameter, e.g. zfs_arc_max")
    value: int = Field(description="the value in effect now (/sys/module/zfs/parameters)")
    persisted: int | None = Field(
        description="the tuning plan's value, also set at every module load (modprobe.d), if the plan sets one"
    )


class Applied(BaseModel):
    """What a new tuning plan changed."""

    changed_live: dict[str, int] = Field(description="parameters written to sysfs (new value)")
    persisted: bool = Field(description="the modprobe.d file was (re)written")


class ParametersUpdate(BaseModel):
    """Module parameters to apply live and persist."""

    params: dict[str, ParamValue] = Field(
        min_length=1,
        max_length=64,
        description="name: value; the whole set to persist (parameters left out keep their live value "
        "but are no longer set at module load)",
    )
