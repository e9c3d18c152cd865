"""Requests of the iSCSI routes; answers are appliance.control.iscsi's TargetInfo (no secret in it)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from appliance.control import names
from appliance.control.iscsi import Chap


class TargetCreate(BaseModel):
    """A target with one LUN on a zvol, for the listed initiators."""

    iqn: names.Iqn = Field(description="target IQN, lower case (iqn.yyyy-mm.reversed.domain:name)")
    zvol: names.ChildDataset = Field(description="the zvol behind the LUN (pool/name); it must exist")
    initiators: list[names.Iqn] = Field(
        min_length=1, max_length=64, description="initiator IQNs allowed in (ESXi software adapters)"
    )
    chap: Chap | None = Field(
        None, description="one-way CHAP for every initiator; the secret is never echoed"
    )


class TargetUpdate(BaseModel):
    """A target's initiators and CHAP, replacing the ones it has (an initiator left out loses its ACL)."""

    initiators: list[names.Iqn] = Field(
        min_length=1, max_length=64, description="initiator IQNs allowed in (ESXi software adapters)"
    )
    chap: Chap | None = Field(
        None, description="one-way CHAP for every initiator (none: ACLs only); the secret is never echoed"
    )
