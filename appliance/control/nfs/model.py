"""The export model shared by both NFS backends, and the rules every export set must keep.

ESXi needs read-write and no root squash; only the listed host addresses get that, everyone else gets
nothing. A datastore is exported over exactly one protocol: ESXi locks NFS 3 and 4.1 differently, so
mounting the same datastore over both from the same hosts corrupts data (VMware KB 2089342).
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field, computed_field, field_validator

from appliance.control import names
from appliance.control.errors import Conflict, InvalidName


class Protocol(StrEnum):
    """NFS version a datastore is exported over (ESXi mounts 3 or 4.1)."""

    v3 = "3"
    v41 = "4.1"


class Export(BaseModel):
    """One datastore export."""

    export_id: int = Field(ge=2, le=65535, description="ganesha Export_Id and knfsd fsid (0, 1: pseudo root)")
    dataset: names.ChildDataset = Field(description="the ZFS dataset exported")
    protocol: Protocol = Field(description="the one NFS version of this datastore")
    clients: list[names.Address] = Field(
        min_length=1, max_length=64, description="ESXi host addresses (read-write, no root squash)"
    )

    insecure_ports: bool = Field(
        False, description="accept client ports above 1023 (NAT in front of the hosts, as in the lab)"
    )

    @field_validator("clients")
    @classmethod
    def _clients(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise InvalidName("a client address is listed twice")
        return value

    @computed_field(description="its mount point, the path the hosts mount")  # type: ignore[prop-decorator]
    @property
    def path(self) -> str:
        # Where every arcvsa dataset mounts (a dataset at another mount point is refused before it is
        # exported), and never another folder: a dataset name has no empty, '.' or '..' component.
        return f"/{self.dataset}"

    @property
    def pseudo(self) -> str:
        """The NFSv4 pseudo path (the same as the path, so v3 and v4 clients use one name)."""
        return self.path


def check_set(exports: list[Export]) -> None:
    """Refuse duplicate ids and a dataset exported over two protocols to the same hosts."""
    ids = [e.export_id for e in exports]
    if len(set(ids)) != len(ids):
        raise Conflict("two exports share an export id")
    for i, first in enumerate(exports):
        for second in exports[i + 1 :]:
            if first.path != second.path:
                continue
            shared = set(first.clients) & set(second.clients)
            if first.protocol != second.protocol and shared:
                raise Conflict(f"{first.path} would be exported over NFS 3 and 4.1 to {sorted(shared)}")
            if shared:
                raise Conflict(f"{first.path} is exported twice to {sorted(shared)}")
