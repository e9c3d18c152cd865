"""The fleet's figures from each appliance's metric points: over a window, per time bucket, summed.

An appliance's points are rates over its sampling intervals. Over a window (or a bucket of it) one
appliance's rates are their mean; the fleet's are the appliances' sums. Ratios are never averaged: an
offload is the summed client bytes over the summed LUN bytes, a latency is weighted by the operations it
timed and a hit ratio by the client reads, so a busy appliance counts for what it carries and an idle one
does not pull the fleet's figure toward its own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

RATES = (
    "client_read_bytes", "client_write_bytes", "client_read_ops", "client_write_ops",
    "lun_read_bytes", "lun_write_bytes", "lun_read_ops", "lun_write_ops",
)  # fmt: skip
#: each latency and the operations it is an average over
LATENCIES = {
    "client_latency_ms": ("client_read_ops", "client_write_ops"),
    "lun_read_latency_ms": ("lun_read_ops",),
    "lun_write_latency_ms": ("lun_write_ops",),
}
HIT_RATIOS = ("arc_hit_ratio", "l2_hit_ratio")
#: the most points a chart gets per appliance and for the fleet, whatever the window
MAX_BUCKETS = 60

Point = Mapping[str, Any]


def combine(points: Sequence[Point], *, summed: bool) -> dict[str, float | None]:
    """One set of figures for ``points``: rates are their mean (one appliance over time) or, ``summed``,
    their sum (appliances side by side); ratios come from those rates, latencies weighted by their
    operations, hit ratios by client reads, compression the mean of those known."""
    out: dict[str, float | None] = {}
    for key in RATES:
        total = sum(float(p.get(key) or 0.0) for p in points)
        out[key] = total if summed or not points else total / len(points)
    out["client_iops"] = _add(out["client_read_ops"], out["client_write_ops"])
    out["lun_iops"] = _add(out["lun_read_ops"], out["lun_write_ops"])
    out["read_offload"] = _ratio(out["client_read_bytes"], out["lun_read_bytes"])
    out["write_offload"] = _ratio(out["client_write_bytes"], out["lun_write_bytes"])
    for key, ops in LATENCIES.items():
        out[key] = _weighted(points, key, lambda p, ops=ops: sum(float(p.get(o) or 0.0) for o in ops))
    for key in HIT_RATIOS:
        out[key] = _weighted(points, key, lambda p: float(p.get("client_read_ops") or 0.0), fallback=True)
    known = [float(p["compressratio"]) for p in points if p.get("compressratio") is not None]
    out["compressratio"] = round(sum(known) / len(known), 2) if known else None
    return out


def bucket_seconds(minutes: int, interval_seconds: float) -> int:
    """A bucket's width: the sampling interval, or wider so that a window has at most MAX_BUCKETS."""
    return max(int(interval_seconds), -(-minutes * 60 // MAX_BUCKETS))


def buckets(points: Iterable[Point], width: int) -> list[dict[str, Any]]:
    """One appliance's points in buckets of ``width`` seconds (aligned to the epoch, so every
    appliance's buckets line up), each the mean of its points, oldest first."""
    grouped: dict[int, list[Point]] = defaultdict(list)
    for p in points:
        grouped[_slot(p["t"], width)].append(p)
    return [{"t": _time(slot), **combine(grouped[slot], summed=False)} for slot in sorted(grouped)]


def fleet_series(series: Iterable[Sequence[Point]]) -> list[dict[str, Any]]:
    """The fleet's points: per bucket time, the sum of the appliances' bucketed points at that time."""
    grouped: dict[datetime, list[Point]] = defaultdict(list)
    for points in series:
        for p in points:
            grouped[p["t"]].append(p)
    return [
        {"t": t, "appliances": len(grouped[t]), **combine(grouped[t], summed=True)} for t in sorted(grouped)
    ]


def _slot(t: datetime | str, width: int) -> int:
    when = datetime.fromisoformat(t) if isinstance(t, str) else t
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp()) // width * width


def _time(slot: int) -> datetime:
    return datetime.fromtimestamp(slot, UTC)


def _add(a: float | None, b: float | None) -> float:
    return (a or 0.0) + (b or 0.0)


def _ratio(client: float | None, lun: float | None) -> float | None:
    """client / LUN bytes; null when the LUN moved nothing (all from cache, or nothing moved at all)."""
    return round(client / lun, 2) if client is not None and lun else None


def _weighted(points: Sequence[Point], key: str, weight: Any, *, fallback: bool = False) -> float | None:
    """The mean of ``key`` over the points that have it, each weighted by ``weight(point)``; with
    ``fallback``, the plain mean when no point has any weight (a fleet that is idle still has a cache)."""
    known = [(float(p[key]), weight(p)) for p in points if p.get(key) is not None]
    total = sum(w for _, w in known)
    if total > 0:
        return round(sum(v * w for v, w in known) / total, 4)
    if fallback and known:
        return round(sum(v for v, _ in known) / len(known), 4)
    return None
