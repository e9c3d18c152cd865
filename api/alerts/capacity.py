"""Alerts on how full each pool is, from the ``zpool list`` the alert pass already runs for the names."""

from __future__ import annotations

from pydantic import BaseModel, Field

from api.alerts.schemas import Alert
from appliance.control import pools, zjson
from appliance.control.gateway import Gateway

# ZFS slows down as free space fragments: past ~80 % the allocator hunts for free segments and writes
# get slower; past ~90 % it is clearly felt and near 100 % even deletes can fail (copy-on-write).
WARN_PERCENT = 80.0
CRITICAL_PERCENT = 90.0


class PoolSpace(BaseModel):
    """One pool's size and allocation as ``zpool list -j --json-int`` prints them."""

    name: str = Field(description="pool name")
    size: int = Field(description="bytes in the pool")
    allocated: int = Field(description="bytes allocated")

    @property
    def percent(self) -> float:
        return 100.0 * self.allocated / self.size if self.size else 0.0


def listing(gw: Gateway) -> list[PoolSpace]:
    """Every imported pool with its space, sorted by name."""
    stdout = gw.run(["zpool", "list", "-j", "--json-int"], rules=pools.RULES).stdout
    if not stdout.strip():
        return []  # 2.3.9 prints nothing at all when no pool is imported (as pools.list_names knows)
    found = zjson.load(stdout, "zpool list").get("pools", {})
    return [
        PoolSpace(
            name=name,
            size=_int(raw, "size"),
            allocated=_int(raw, "allocated"),
        )
        for name, raw in sorted(found.items())
    ]


def _int(raw: dict[str, object], prop: str) -> int:
    """A numeric property; 0 when the pool cannot say (a faulted pool prints '-')."""
    props = raw.get("properties")
    value = props.get(prop, {}).get("value") if isinstance(props, dict) else None
    return value if isinstance(value, int) else 0


def capacity_alert(space: PoolSpace) -> Alert | None:
    """Warning over 80 % allocated, critical over 90 %."""
    percent = space.percent
    if percent < WARN_PERCENT:
        return None
    critical = percent >= CRITICAL_PERCENT
    return Alert(
        key=f"pool/{space.name}/capacity",
        severity="critical" if critical else "warning",
        subject=f"pool {space.name}",
        message=(
            f"the pool is {percent:.0f} % full"
            + (": writes are slowing down and may soon fail" if critical else ": writes slow down from here")
            + "; delete snapshots or data, or add a LUN to the pool"
        ),
    )
