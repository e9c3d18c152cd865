"""What one phase did, at the client (fio) and at the SAN (qemu's counters of the data LUN).

DESIGN.md section 6: read offload = client bytes read / SAN bytes read; write offload = client bytes
written / SAN bytes written; write aggregation = mean SAN write size / mean client write size. The
compulsory bound: at best the SAN serves each unique byte the clients touch once, compressed. Its
twin for writes, the write bound: at best a copy-on-write pool writes each record the writes dirtied once
per transaction group, compressed, and nothing else (no metadata).
A ZFS stack's row also keeps the sizes of the writes the pool issued to the LUN, alone or merged
from adjacent blocks (``zpool iostat -r``, bench.iostat): what its aggregation is made of.
On the bare LUN the client's I/O *is* the SAN's (nbd straight onto the throttled LUN, no cache), so
its SAN figures are the client's own and every ratio is 1.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING, Any

from bench import cpu, iostat
from bench.stack import ApplianceStack, Counters, Stack, WriteModel
from bench.workload import Phase

if TYPE_CHECKING:
    from bench.runner import Golden

PERCENTILES = {"p50": "50.000000", "p95": "95.000000", "p99": "99.000000"}


def ratio(num: float, den: float) -> float | None:
    return round(num / den, 2) if den > 0 else None


def offload(client_bytes: int, san_bytes: int) -> float | None:
    """client / SAN bytes. When the SAN saw nothing, the ratio is at least client / one 4 KiB block:
    that floor is reported (the table marks it >=), never an infinite or made-up figure. A client that
    moved nothing has nothing offloaded: no ratio (the SAN's own metadata I/O is not a 0x offload)."""
    if not client_bytes:
        return None
    if not san_bytes:
        return round(client_bytes / 4096, 1)
    return ratio(client_bytes, san_bytes)


def latency_ms(direction: dict[str, Any]) -> dict[str, float | None]:
    """Completion latency percentiles of one direction of a fio job, in ms."""
    found = direction.get("clat_ns", {}).get("percentile", {})
    return {key: (round(found[p] / 1e6, 2) if p in found else None) for key, p in PERCENTILES.items()}


def client(fio_out: dict[str, Any]) -> dict[str, Any]:
    """Bytes, operations and latency summed over the run's jobs (one group with group_reporting)."""
    jobs = fio_out.get("jobs", [])
    figures: dict[str, Any] = {}
    for direction in ("read", "write"):
        io_bytes = sum(int(j[direction]["io_bytes"]) for j in jobs)
        ios = sum(int(j[direction]["total_ios"]) for j in jobs)
        figures[f"{direction}_bytes"] = io_bytes
        figures[f"{direction}_ios"] = ios
        figures[f"{direction}_lat_ms"] = latency_ms(jobs[0][direction]) if jobs and ios else {}
    return figures


#: kinds whose jobs are time-based: each runs exactly the phase's seconds once fio has started them all
TIME_BASED = ("mix", "sweep")


def rates(row: dict[str, Any]) -> None:
    """Client and SAN IOPS over the seconds the load ran: a time-based phase's own seconds (its wall
    time adds fio's start of dozens of libnfs jobs, which varied 116-232 IOPS for one job across runs),
    else its wall time (fio's job_runtime is a sum over the group's jobs, not a duration)."""
    seconds = float(row.get("load_seconds") or row["wall_seconds"])
    seen, san = row["client"], row["san"]
    seen["seconds"] = seconds
    seen["iops"] = round((seen["read_ios"] + seen["write_ios"]) / seconds, 1) if seconds else None
    row["san_iops"] = round((san["read_ops"] + san["write_ops"]) / seconds, 1) if seconds else None


def delta(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {key: after.get(key, 0) - before.get(key, 0) for key in after}


def phase(
    spec: Phase,
    stack: Stack,
    before: Counters,
    after: Counters,
    fio_out: dict[str, Any] | None,
    gold: Golden,
    *,
    compression: float | None,
    writes: dict[str, Any] | None = None,
    model: WriteModel | None = None,
    clones: dict[str, Any] | None = None,
    middle: Counters | None = None,
) -> dict[str, Any]:
    """``writes``: the FILE_SYNC writers' own figures (bench.syncwrite), in place of fio's writes;
    ``model``: the pool's record size and txg interval, for the write bound of those writes;
    ``clones``: a boot's figures from bench.replay, in place of fio's; ``middle``: a recompose's
    counters between its replica copy and its clones' boot."""
    seconds = round(after.at - before.at, 1)
    if clones is not None:
        keep = ("read_bytes", "read_ios", "read_lat_ms", "write_bytes", "write_ios", "write_lat_ms", "writes")
        seen = {k: clones[k] for k in keep}
    elif fio_out is not None:
        seen = client(fio_out)
        if writes is not None:
            seen.update({k: writes[k] for k in ("write_bytes", "write_ios", "write_lat_ms", "writes")})
    elif spec.kind == "copy":
        seen = {"write_bytes": gold.replica_bytes, "read_bytes": 0, "read_ios": 0, "write_ios": 0}
    else:
        seen = {"read_bytes": 0, "write_bytes": 0, "read_ios": 0, "write_ios": 0}
    booted = dict(seen)  # a recompose's clones alone, before its copy is added
    if spec.kind == "recompose":
        # the new replica's bytes are the clients' too (nfs-cp's writes, not counted as operations)
        seen["copied_bytes"] = gold.replica_bytes
        seen["write_bytes"] += gold.replica_bytes
    san = _san(stack, before, after, seen)
    out: dict[str, Any] = {
        "phase": spec.name,
        "kind": spec.kind,
        "wall_seconds": seconds,
        "client": seen,
        "san": san,
        "read_offload": offload(seen["read_bytes"], san["read_bytes"]),
        "write_offload": offload(seen["write_bytes"], san["write_bytes"]),
        "compression": compression,
    }
    if fio_out is not None and spec.kind in TIME_BASED:
        out["load_seconds"] = min(seconds, float(spec.seconds))
    elif clones is not None and middle is not None:
        out["load_seconds"] = clones["seconds"]  # the clients' rates are the boot's, not the copy's
    # a recompose's aggregation is its clones' writes against the LUN's while they booted
    lun = san if middle is None else _san(stack, middle, after, booted)
    if booted["write_ios"] and lun["write_ops"]:
        client_size = booted["write_bytes"] / booted["write_ios"]
        out["write_aggregation"] = ratio(lun["write_bytes"] / lun["write_ops"], client_size)
        out["client_write_kib"] = round(client_size / 1024, 1)
        out["san_write_kib"] = round(lun["write_bytes"] / lun["write_ops"] / 1024, 1)
    rates(out)
    out["floors"] = [
        k
        for k, c, s in (
            ("read_offload", "read_bytes", "read_bytes"),
            ("write_offload", "write_bytes", "write_bytes"),
        )
        if seen[c] and not san[s]
    ]
    if spec.kind == "trace" and seen["read_bytes"]:
        unique = gold.unique_read_bytes()
        out["unique_read_bytes"] = unique
        # Compulsory misses: every unique byte once, as stored (compressed) on the LUN.
        out["compulsory_bound"] = ratio(seen["read_bytes"] * (compression or 1.0), unique)
    if writes is not None and model is not None and seen["write_bytes"]:
        dirty = dirtied(writes["extents"], model.record_bytes, model.txg_seconds, model.txg_starts)
        out["write_model"] = {"record_bytes": model.record_bytes, "txg_seconds": model.txg_seconds}
        if model.txg_starts:
            last = max((at for desktop in writes["extents"] for at, _, _ in desktop), default=0.0)
            out["write_model"]["txgs"] = bisect_right(model.txg_starts, last)
            out["write_model"]["clock_error_s"] = model.clock_error_s
        out["dirtied_bytes"] = dirty
        out["write_bound"] = ratio(seen["write_bytes"] * (compression or 1.0), dirty)
    if after.arc:
        arc = delta(after.arc, before.arc)
        out["arc_hit_pct"] = _pct(arc.get("hits", 0), arc.get("misses", 0))
        out["l2arc_hit_pct"] = _pct(arc.get("l2_hits", 0), arc.get("l2_misses", 0))
        out["arc_bytes"] = after.arc.get("size")
        out["l2arc_bytes"] = after.arc.get("l2_size")
    if after.lun_writes:
        issued = iostat.since(after.lun_writes, before.lun_writes)
        out["lun_write_sizes"] = {str(bucket): list(pair) for bucket, pair in sorted(issued.items())}
    if after.ssd:
        out["ssd"] = {name: delta(after.ssd[name], before.ssd.get(name, {})) for name in after.ssd}
    if before.cpu and after.cpu:
        out["cpu"] = cpu.per_io(before.cpu, after.cpu, seen)
    return out


def _san(stack: Stack, before: Counters, after: Counters, seen: dict[str, Any]) -> dict[str, int]:
    """What the data LUN saw between two moments: its counters' difference, or on the bare LUN the
    client's own I/O."""
    if isinstance(stack, ApplianceStack):
        moved = delta(after.san, before.san)
        return {
            "read_bytes": moved["rd_bytes"],
            "write_bytes": moved["wr_bytes"],
            "read_ops": moved["rd_ops"],
            "write_ops": moved["wr_ops"],
        }
    return {
        "read_bytes": seen["read_bytes"],
        "write_bytes": seen["write_bytes"],
        "read_ops": seen["read_ios"],
        "write_ops": seen["write_ios"],
    }


def dirtied(
    extents: list[list[tuple[float, int, int]]], record: int, interval: float, starts: tuple[float, ...] = ()
) -> int:
    """Bytes of the records a copy-on-write pool must write for these writes (per file: seconds in,
    offset, size): each record a write touches, once per transaction group. The txgs open at ``starts``
    (seconds in, ascending, the first at or before 0: bench.txgs) where the pool's history gave them,
    else every ``interval`` seconds from the phase's start."""

    def txg(at: float) -> int:
        return bisect_right(starts, at) if starts else int(at // interval)

    total = 0
    for writes in extents:
        records = {
            (txg(at), r)
            for at, offset, size in writes
            for r in range(offset // record, (offset + size - 1) // record + 1)
        }
        total += len(records) * record
    return total


def _pct(hits: int, misses: int) -> float | None:
    return round(100 * hits / (hits + misses), 1) if hits + misses else None
