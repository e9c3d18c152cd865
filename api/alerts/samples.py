"""Alerts from the stored metric samples: an ARC hit ratio that collapsed, a LUN answering slowly.

The sampler stores cumulative counters; a rate is the difference of two samples. Both alerts look at a
window of the newest intervals and need enough I/O in it that the figure means something, so an idle
appliance (a handful of metadata lookups, one slow write an hour) raises nothing.
"""

from __future__ import annotations

from datetime import timedelta

from api.alerts.schemas import Alert
from api.metrics.schemas import LunCounters, Sample

# Six intervals (one minute at the default 10 s): long enough that one cold scan does not alert, short
# enough that the admin hears of it while it happens.
WINDOW = 6
# The ratio counts as collapsed below 50 %, and only after it was healthy (>= 80 %) in the lookback: a
# workload that never caches (a backup streaming once through) is low by nature, not an incident.
ARC_COLLAPSED = 0.50
ARC_HEALTHY = 0.80
ARC_LOOKBACK = timedelta(minutes=30)
ARC_MIN_LOOKUPS_PER_S = 100.0  # an idle pool does a few metadata lookups a second
# Average time per LUN operation: ESXi's NFS datastores feel 100 ms as a stall; a second is an outage.
LUN_WARN_MS = 100.0
LUN_CRITICAL_MS = 1000.0
LUN_MIN_OPS_PER_S = 5.0  # below this, one slow flush would make the average


def _seconds(a: Sample, b: Sample) -> float:
    return (b.t - a.t).total_seconds()


def _lookups(a: Sample, b: Sample) -> tuple[int, int] | None:
    """(hits, lookups) between two samples; None across a counter reset (a reboot)."""
    hits, misses = b.arc_hits - a.arc_hits, b.arc_misses - a.arc_misses
    if hits < 0 or misses < 0:
        return None
    return hits, hits + misses


def _window_ratio(window: list[Sample]) -> float | None:
    """Hit ratio over consecutive samples, None when too few lookups (or a reset) make it meaningless."""
    if len(window) < 2 or _seconds(window[0], window[-1]) <= 0:
        return None
    counted = _lookups(window[0], window[-1])
    if counted is None:
        return None
    hits, lookups = counted
    if lookups / _seconds(window[0], window[-1]) < ARC_MIN_LOOKUPS_PER_S:
        return None
    return hits / lookups


def arc_alert(samples: list[Sample]) -> Alert | None:
    """The ARC hit ratio over the newest WINDOW intervals below 50 % after a healthy window before."""
    if len(samples) < WINDOW + 1:
        return None
    recent = _window_ratio(samples[-(WINDOW + 1) :])
    if recent is None or recent >= ARC_COLLAPSED:
        return None
    start = samples[-1].t - ARC_LOOKBACK
    earlier = [s for s in samples[:-WINDOW] if s.t >= start]
    healthy = any(
        (ratio := _window_ratio(earlier[i : i + WINDOW + 1])) is not None and ratio >= ARC_HEALTHY
        for i in range(len(earlier) - WINDOW)
    )
    if not healthy:
        return None
    return Alert(
        key="arc/hit-ratio",
        severity="warning",
        subject="ARC",
        message=(
            f"the ARC hit ratio fell to {recent:.0%} (it was {ARC_HEALTHY:.0%} or more): reads now go to "
            "the LUNs. Look for a new workload scanning the datasets, or an ARC that shrank (memory "
            "pressure); add memory or an L2ARC device if it stays low"
        ),
    )


def _lun_latency(a: LunCounters, b: LunCounters, seconds: float) -> float | None:
    """Average ms per operation between two samples; None with too little I/O or across a reset."""
    ops = (b.read_ops - a.read_ops) + (b.write_ops - a.write_ops)
    spent = (b.read_ms - a.read_ms) + (b.write_ms - a.write_ms)
    if ops <= 0 or spent < 0 or ops / seconds < LUN_MIN_OPS_PER_S:
        return None
    return spent / ops


def lun_alerts(samples: list[Sample]) -> list[Alert]:
    """Every data LUN whose average operation took over 100 ms across the newest WINDOW intervals."""
    if len(samples) < 2:
        return []
    window = samples[-(WINDOW + 1) :]
    first, last = window[0], window[-1]
    seconds = _seconds(first, last)
    if seconds <= 0:
        return []
    out = []
    for name, now in sorted(last.luns.items()):
        before = first.luns.get(name)
        ms = _lun_latency(before, now, seconds) if before is not None else None
        if ms is None or ms < LUN_WARN_MS:
            continue
        pool, _, device = name.partition("/")
        out.append(
            Alert(
                key=f"pool/{pool}/device/{device}/latency",
                severity="critical" if ms >= LUN_CRITICAL_MS else "warning",
                subject=f"pool {pool}: LUN {device}",
                message=(
                    f"the LUN's operations took {ms:.0f} ms on average over the last {seconds:.0f} s: "
                    "check its array and SAN path (queue depth, a failing path "
                    "or disk, a saturated array)"
                ),
            )
        )
    return out
