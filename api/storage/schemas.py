"""Requests of the storage routes; answers are appliance.control's own models."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from zfs_tuning.schema import PoolType


class DatasetCreate(BaseModel):
    """A dataset for a desktop pool's datastore, tuned by the profile of its pool type."""

    name: str = Field(description="pool/child, e.g. tank/vdi-linked")
    profile: PoolType = Field(description="tuning profile (pool type) whose dataset properties apply")
    properties: dict[str, Any] = Field(
        default_factory=dict,
        description="overrides of the profile's properties (validated; never sync=disabled)",
    )
