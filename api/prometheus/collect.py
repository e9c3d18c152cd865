"""The metric families one scrape shows, from four sources read per scrape.

- arc: /proc/spl/kstat/zfs/arcstats, read live (a file; cheap).
- sample: the sampler's newest row (api.metrics): LUN and NFS counters and dataset space. Those need
  DBus, realpath and zfs calls that the sampler already pays for every interval; a scrape reads the row.
- pools: space and health of every pool, and
- alerts: the same list /api/alerts answers, both from the appliance's published state (api.state):
  a scrape never starts a tool.

Counters are the cumulative ones the kernel and ganesha keep: Prometheus handles their resets, and
ratios (ARC hit ratio, offload) are PromQL over rates, never computed here. A source that fails (a
tool missing, zfs not loaded) is left out and shown as arcvsa_collector_success 0: the scrape keeps the
rest. Only the control package's typed errors count as failing; anything else is a bug and a 500.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from sqlalchemy.orm import Session

from api.alerts import service as alerts
from api.alerts.schemas import Alert
from api.metrics import store
from api.metrics.schemas import Sample
from api.prometheus.exposition import Family
from api.state.snapshot import Published
from appliance.control import metrics, pools
from appliance.control.errors import ControlError, SystemFault
from appliance.control.files import Files
from appliance.control.metrics import Arc
from appliance.control.observed import Part

log = logging.getLogger(__name__)

# Every state a pool can be in (zpool's health, SUSPENDED for a pool whose I/O failed): one-hot, so a
# panel can show each and PromQL can ask `arcvsa_pool_health{state!="ONLINE"} == 1`.
POOL_STATES = ("ONLINE", "DEGRADED", "FAULTED", "OFFLINE", "UNAVAIL", "REMOVED", "SUSPENDED")
SEVERITIES = ("critical", "warning")


def arc_families(arc: Arc) -> list[Family]:
    return [
        Family("arcvsa_arc_hits_total", "counter", "ARC hits (arcstats hits)").add(arc.hits),
        Family("arcvsa_arc_misses_total", "counter", "ARC misses (arcstats misses)").add(arc.misses),
        Family("arcvsa_arc_size_bytes", "gauge", "Bytes the ARC holds now").add(arc.size),
        Family("arcvsa_arc_target_size_bytes", "gauge", "The ARC's target size (c)").add(arc.target),
        Family("arcvsa_arc_max_size_bytes", "gauge", "The ARC's maximum size (c_max)").add(arc.max),
        Family("arcvsa_l2arc_hits_total", "counter", "L2ARC hits").add(arc.l2_hits),
        Family("arcvsa_l2arc_misses_total", "counter", "L2ARC misses").add(arc.l2_misses),
        Family("arcvsa_l2arc_size_bytes", "gauge", "Logical bytes the L2ARC holds").add(arc.l2_size),
        Family("arcvsa_l2arc_allocated_bytes", "gauge", "Bytes the L2ARC takes on its SSD").add(arc.l2_asize),
        Family("arcvsa_l2arc_read_bytes_total", "counter", "Bytes read from the L2ARC").add(
            arc.l2_read_bytes
        ),
        Family("arcvsa_l2arc_written_bytes_total", "counter", "Bytes written to the L2ARC").add(
            arc.l2_write_bytes
        ),
    ]


def sample_families(sample: Sample) -> list[Family]:
    """LUN, NFS and dataset families from one stored sample."""
    lun = "a data vdev (a SAN LUN; SLOG and L2ARC devices left out), from /proc/diskstats"
    reads = Family("arcvsa_lun_reads_total", "counter", f"Reads completed by {lun}")
    writes = Family("arcvsa_lun_writes_total", "counter", f"Writes completed by {lun}")
    read_bytes = Family("arcvsa_lun_read_bytes_total", "counter", f"Bytes read from {lun}")
    written = Family("arcvsa_lun_written_bytes_total", "counter", f"Bytes written to {lun}")
    # rate(time) / rate(operations) is the average latency of an operation
    read_time = Family(
        "arcvsa_lun_read_time_seconds_total", "counter", f"Seconds spent on the reads of {lun}"
    )
    write_time = Family(
        "arcvsa_lun_write_time_seconds_total", "counter", f"Seconds spent on the writes to {lun}"
    )
    for key, c in sorted(sample.luns.items()):
        pool, _, device = key.partition("/")
        reads.add(c.read_ops, pool=pool, device=device)
        writes.add(c.write_ops, pool=pool, device=device)
        read_bytes.add(c.read_bytes, pool=pool, device=device)
        written.add(c.write_bytes, pool=pool, device=device)
        read_time.add(c.read_ms / 1000, pool=pool, device=device)
        write_time.add(c.write_ms / 1000, pool=pool, device=device)
    return [reads, writes, read_bytes, written, read_time, write_time, *_nfs(sample), *_datasets(sample)]


def _nfs(sample: Sample) -> list[Family]:
    # ganesha counts per export; knfsd only per server: one series without export labels then.
    scope = "NFS clients, per export under ganesha, one server-wide series under knfsd"
    reads = Family("arcvsa_nfs_reads_total", "counter", f"Read operations of {scope}")
    writes = Family("arcvsa_nfs_writes_total", "counter", f"Write operations of {scope}")
    read_bytes = Family("arcvsa_nfs_read_bytes_total", "counter", f"Bytes read by {scope}")
    written = Family("arcvsa_nfs_written_bytes_total", "counter", f"Bytes written by {scope}")
    io_time = Family(
        "arcvsa_nfs_io_time_seconds_total",
        "counter",
        "Seconds ganesha spent on the reads and writes of an export, summed (knfsd does not count it)",
    )
    info = Family("arcvsa_nfs_export_info", "gauge", "1 for every export served, with its path and dataset")
    backend = sample.backend or "none"
    for export in sample.exports:
        info.add(
            1,
            backend=backend,
            export_id=str(export.export_id),
            path=export.path,
            dataset=export.dataset or "",
        )
    if sample.backend == "ganesha":
        for export in sample.exports:  # the sampler keeps only exports whose counters it read
            labels = {"backend": backend, "export_id": str(export.export_id), "path": export.path}
            reads.add(export.read_ops, **labels)
            writes.add(export.write_ops, **labels)
            read_bytes.add(export.read_bytes, **labels)
            written.add(export.write_bytes, **labels)
            io_time.add(export.latency_ns / 1e9, **labels)
    elif (server := sample.clients.get("server")) is not None:
        reads.add(server.read_ops, backend=backend)
        writes.add(server.write_ops, backend=backend)
        read_bytes.add(server.read_bytes, backend=backend)
        written.add(server.write_bytes, backend=backend)
    return [reads, writes, read_bytes, written, io_time, info]


def _datasets(sample: Sample) -> list[Family]:
    which = "pool roots and exported datasets"
    used = Family("arcvsa_dataset_used_bytes", "gauge", f"Bytes used, of {which}")
    logical = Family(
        "arcvsa_dataset_logical_used_bytes", "gauge", f"Bytes used before compression, of {which}"
    )
    ratio = Family(
        "arcvsa_dataset_compress_ratio", "gauge", f"Compression ratio (zfs compressratio), of {which}"
    )
    for d in sample.datasets:
        used.add(d.used, dataset=d.name)
        logical.add(d.logical_used, dataset=d.name)
        ratio.add(d.compressratio, dataset=d.name)
    return [used, logical, ratio]


def pool_families(found: list[pools.ZfsPoolSpace]) -> list[Family]:
    size = Family("arcvsa_pool_size_bytes", "gauge", "A pool's size (zpool list size)")
    allocated = Family("arcvsa_pool_allocated_bytes", "gauge", "Bytes allocated in a pool")
    free = Family("arcvsa_pool_free_bytes", "gauge", "Bytes free in a pool")
    health = Family("arcvsa_pool_health", "gauge", "1 for the state a pool is in, 0 for the others")
    for p in found:
        size.add(p.size, pool=p.name)
        allocated.add(p.allocated, pool=p.name)
        free.add(p.free, pool=p.name)
        states = POOL_STATES if p.health in POOL_STATES else (*POOL_STATES, p.health)
        for state in states:
            health.add(int(state == p.health), pool=p.name, state=state)
    return [size, allocated, free, health]


def alert_families(found: list[Alert]) -> list[Family]:
    active = Family(
        "arcvsa_alert_active",
        "gauge",
        "1 for every alert raised now (as /api/alerts lists them); gone once cleared",
    )
    counts = Family("arcvsa_alerts_active", "gauge", "How many alerts are raised now, by severity")
    for alert in found:
        active.add(1, key=alert.key, severity=alert.severity, subject=alert.subject)
    for severity in SEVERITIES:
        counts.add(sum(a.severity == severity for a in found), severity=severity)
    return [active, counts]


def collect(
    files: Files,
    db: Session,
    version: str,
    published: Published | None,
    data_dir: Path,
    interval: float,
) -> list[Family]:
    """Every family of one scrape (see the module docstring); the alerts are those /api/alerts serves
    (``data_dir``: the certificate's; ``interval``: the state poller's, for the stale state's)."""
    success = Family(
        "arcvsa_collector_success",
        "gauge",
        "1 when a source was read in this scrape, 0 when it failed or had nothing",
    )
    build = Family("arcvsa_build_info", "gauge", "The arcvsa version serving the metrics").add(
        1, version=version
    )
    out = [build, success]
    latest = store.latest(db, 1)
    sample = latest[-1] if latest else None

    def read_pools() -> list[Family]:
        if published is None:
            raise SystemFault("the appliance's state is not published yet")
        observed = published.observed
        return pool_families(observed.part(Part.pools, observed.spaces))

    def read_alerts() -> list[Family]:
        if published is None:
            raise SystemFault("the appliance's state is not published yet")
        return alert_families(alerts.served(published, data_dir, interval))

    sources: list[tuple[str, Callable[[], list[Family]]]] = [
        ("arc", lambda: arc_families(metrics.arc(files))),
        ("pools", read_pools),
        ("alerts", read_alerts),
    ]
    for name, read in sources:
        try:
            out += read()
        except ControlError as exc:  # the message names the tool and what it said; never a secret
            log.debug("prometheus: %s not read: %s", name, exc)
            success.add(0, collector=name)
        else:
            success.add(1, collector=name)
    success.add(int(sample is not None), collector="sample")
    if sample is not None:
        out += sample_families(sample)
        out.append(
            Family(
                "arcvsa_sample_timestamp_seconds",
                "gauge",
                "When the sample the LUN, NFS and dataset figures come from was taken (Unix time)",
            ).add(sample.t.timestamp())
        )
    return out
