"""Alerts on how full each pool is, from the ``zpool list`` (pools.space) the alert pass runs for the names."""

from __future__ import annotations

from api.alerts.schemas import Alert
from appliance.control.pools import ZfsPoolSpace

# ZFS slows down as free space fragments: past ~80 % the allocator hunts for free segments and writes
# get slower; past ~90 % it is clearly felt and near 100 % even deletes can fail (copy-on-write).
WARN_PERCENT = 80.0
CRITICAL_PERCENT = 90.0


def capacity_alert(space: ZfsPoolSpace) -> Alert | None:
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
