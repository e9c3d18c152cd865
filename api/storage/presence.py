"""Whether this api has storage of its own: an appliance does; the fleet manager and a developer's
machine (``make demo`` runs the manager there) do not, and say so instead of a missing tool's error.

The role is first boot's (appliance.json). A machine without one is an appliance only if the tools the
api runs are there: OpenZFS on this machine, or a gateway whose tools are elsewhere (a recording's
replay, the lab VM's over SSH).
"""

from __future__ import annotations

import shutil
from typing import Literal

from pydantic import BaseModel, Field

from api.appliance import config as appliance_json
from api.settings import Settings
from appliance.control.gateway import Gateway, SubprocessRunner

MANAGER = (
    "This is the fleet manager: it has no disks or pools of its own. Storage lives on the appliances it "
    "deploys; each one's own pages are at its address (Appliances lists them)."
)
NOT_AN_APPLIANCE = (
    "This machine is not an arcvsa appliance (OpenZFS is not installed here), so it has no disks or pools "
    "of its own: it manages the appliances it deploys, whose own pages are at their addresses (Appliances "
    "lists them)."
)


class StoragePresence(BaseModel):
    """What this api can show of its own storage."""

    present: bool = Field(description="this machine has disks and pools the storage pages can show")
    role: Literal["manager", "storage"] | None = Field(
        description="first boot's role (appliance.json); none on a machine that is not an appliance"
    )
    reason: str | None = Field(description="why there is no storage here, in words; none when there is")


def role(settings: Settings) -> str | None:
    """First boot's role, or None where no appliance.json is (a developer's machine, the tests)."""
    value = appliance_json.read(settings).get("role")
    return value if value in ("manager", "storage") else None


def detect(settings: Settings, gateway: Gateway) -> StoragePresence:
    """See the module's docstring."""
    found = role(settings)
    if found == "manager":
        return StoragePresence(present=False, role="manager", reason=MANAGER)
    if found is None and isinstance(gateway.runner, SubprocessRunner) and shutil.which("zpool") is None:
        return StoragePresence(present=False, role=None, reason=NOT_AN_APPLIANCE)
    return StoragePresence(present=True, role="storage" if found == "storage" else None, reason=None)
