"""Rates, offload, aggregation and latency from pairs of samples: pure functions, no I/O.

A counter that went down was reset (ganesha restarted, a pool re-imported onto a new device, the
machine rebooted): its new value is what was counted since, so that is the delta (as Prometheus does).
Counters present in only the later sample started at zero in between; ones only in the earlier are gone.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from api.metrics.schemas import Counters, ExportCard, MetricPoint, Sample, Summary

FIELDS = ("read_ops", "read_bytes", "write_ops", "write_bytes")
LUN_FIELDS = (*FIELDS, "read_ms", "write_ms")
CLIENT_FIELDS = (*FIELDS, "latency_ns")


def delta(before: int, after: int) -> int:
    """How much a cumulative counter grew (a reset counts from zero)."""
    return after - before if after >= before else after


def _deltas(
    before: Mapping[str, Counters], after: Mapping[str, Counters], fields: tuple[str, ...]
) -> dict[str, int]:
    """Summed growth of every counter in ``fields`` over the keys of ``after``."""
    out = dict.fromkeys(fields, 0)
    for key, now in after.items():
        was = before.get(key)
        # One counter set restarts together (an export re-added): if any of its counters went down,
        # all restarted, even one that happens to have counted back to its old value.
        if was is not None and any(getattr(now, f) < getattr(was, f) for f in type(now).model_fields):
            was = None
        for field in fields:
            out[field] += delta(getattr(was, field) if was else 0, getattr(now, field))
    return out


def ratio(num: float, den: float) -> float | None:
    """num / den, None when den is 0."""
    return num / den if den else None


def compressratio(sample: Sample) -> float | None:
    """Logical / physical bytes over the pools' root datasets (each root covers its whole pool)."""
    roots = [d for d in sample.datasets if d.name in sample.pool_roots]
    physical = sum(d.logical_used / d.compressratio for d in roots if d.compressratio)
    return ratio(sum(d.logical_used for d in roots), physical)


def point(before: Sample, after: Sample) -> MetricPoint | None:
    """The rates between two samples; None when they are not in time order."""
    seconds = (after.t - before.t).total_seconds()
    if seconds <= 0:
        return None
    client = _deltas(before.clients, after.clients, CLIENT_FIELDS)
    lun = _deltas(before.luns, after.luns, LUN_FIELDS)
    arc_hits = delta(before.arc_hits, after.arc_hits)
    arc_misses = delta(before.arc_misses, after.arc_misses)
    l2_hits = delta(before.l2_hits, after.l2_hits)
    l2_misses = delta(before.l2_misses, after.l2_misses)
    client_write_size = ratio(client["write_bytes"], client["write_ops"])
    lun_write_size = ratio(lun["write_bytes"], lun["write_ops"])
    return MetricPoint(
        t=after.t,
        arc_hit_ratio=ratio(arc_hits, arc_hits + arc_misses),
        l2_hit_ratio=ratio(l2_hits, l2_hits + l2_misses),
        arc_size=after.arc_size,
        l2_size=after.l2_size,
        client_read_bytes=client["read_bytes"] / seconds,
        client_write_bytes=client["write_bytes"] / seconds,
        client_read_ops=client["read_ops"] / seconds,
        client_write_ops=client["write_ops"] / seconds,
        lun_read_bytes=lun["read_bytes"] / seconds,
        lun_write_bytes=lun["write_bytes"] / seconds,
        lun_read_ops=lun["read_ops"] / seconds,
        lun_write_ops=lun["write_ops"] / seconds,
        read_offload=ratio(client["read_bytes"], lun["read_bytes"]),
        write_offload=ratio(client["write_bytes"], lun["write_bytes"]),
        write_aggregation=(
            ratio(lun_write_size, client_write_size) if lun_write_size and client_write_size else None
        ),
        compressratio=compressratio(after),
        # ganesha times every operation; knfsd keeps no such counter
        client_latency_ms=(
            ratio(client["latency_ns"] / 1e6, client["read_ops"] + client["write_ops"])
            if after.backend == "ganesha"
            else None
        ),
        lun_read_latency_ms=ratio(lun["read_ms"], lun["read_ops"]),
        lun_write_latency_ms=ratio(lun["write_ms"], lun["write_ops"]),
    )


def points(samples: list[Sample]) -> list[MetricPoint]:
    """One point per pair of consecutive samples (oldest first)."""
    out = []
    for before, after in itertools.pairwise(samples):
        found = point(before, after)
        if found is not None:
            out.append(found)
    return out


def summary(samples: list[Sample]) -> Summary:
    """Cards for the exports of the latest sample, with rates over the interval before it."""
    if not samples:
        return Summary(
            t=None,
            backend=None,
            exports=[],
            arc_size=None,
            arc_max=None,
            l2_size=None,
            arc_hit_ratio=None,
            l2_hit_ratio=None,
            compressratio=None,
        )
    last = samples[-1]
    prev = samples[-2] if len(samples) > 1 else None
    rates = point(prev, last) if prev else None
    seconds = (last.t - prev.t).total_seconds() if prev else 0.0
    space = {d.name: d for d in last.datasets}
    cards = []
    for export in last.exports:
        key = f"export:{export.export_id}"
        counted = key in last.clients and seconds > 0 and prev is not None
        was = prev.clients.get(key) if prev else None
        ds = space.get(export.dataset) if export.dataset else None
        cards.append(
            ExportCard(
                export_id=export.export_id,
                dataset=export.dataset,
                path=export.path,
                compressratio=ds.compressratio if ds else None,
                used=ds.used if ds else None,
                logical_used=ds.logical_used if ds else None,
                client_read_bytes=(
                    delta(was.read_bytes if was else 0, export.read_bytes) / seconds if counted else None
                ),
                client_write_bytes=(
                    delta(was.write_bytes if was else 0, export.write_bytes) / seconds if counted else None
                ),
            )
        )
    return Summary(
        t=last.t,
        backend=last.backend,
        exports=cards,
        arc_size=last.arc_size,
        arc_max=last.arc_max,
        l2_size=last.l2_size,
        arc_hit_ratio=rates.arc_hit_ratio if rates else None,
        l2_hit_ratio=rates.l2_hit_ratio if rates else None,
        compressratio=compressratio(last),
    )
