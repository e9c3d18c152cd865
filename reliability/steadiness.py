"""The soak's figures from what it recorded: latency per time window and its drift, the guest's memory
trend, the api load's percentiles (wrk), and the verdict. Pure functions over text and numbers."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

DIRECTIONS = {0: "read", 1: "write"}
USER_HZ = 100  # /proc/stat's unit (sysconf(_SC_CLK_TCK) on Linux)
WRK_PREFIX = "ARCVSA-WRK "


class Limits(BaseModel):
    """What the soak must stay within (the issue's targets and this file's reading of "stable")."""

    # p99 of the last third of the run over the first third's (after the warm-up); "stable latency".
    p99_drift: float = 1.5
    # Memory outside the ARC may not grow by more than this from the first sample after the warm-up.
    memory_growth_mib: float = 64.0
    api_p99_ms: float = 200.0


class Window(BaseModel):
    """One direction's latencies in one time window."""

    start_s: float
    ios: int
    p50_ms: float
    p99_ms: float
    max_ms: float


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile of ``values`` (not sorted in place); 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def read_lat_logs(paths: Iterable[Path]) -> dict[str, list[tuple[float, float]]]:
    """fio per-I/O latency logs (``time ms, latency ns, direction, ...``) as (seconds, ms) per direction."""
    out: dict[str, list[tuple[float, float]]] = {name: [] for name in DIRECTIONS.values()}
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                fields = line.split(",")
                if len(fields) < 3:
                    continue
                direction = DIRECTIONS.get(int(fields[2]))
                if direction is not None:
                    out[direction].append((int(fields[0]) / 1000, int(fields[1]) / 1e6))
    return out


def windows(samples: list[tuple[float, float]], width_s: float) -> list[Window]:
    """Latencies grouped into consecutive windows of ``width_s`` seconds (empty windows left out)."""
    buckets: dict[int, list[float]] = {}
    for at, ms in samples:
        buckets.setdefault(int(at // width_s), []).append(ms)
    return [
        Window(
            start_s=index * width_s,
            ios=len(values),
            p50_ms=round(percentile(values, 50), 2),
            p99_ms=round(percentile(values, 99), 2),
            max_ms=round(max(values), 2),
        )
        for index, values in sorted(buckets.items())
    ]


def drift(samples: list[tuple[float, float]], warmup_s: float, end_s: float) -> dict[str, float]:
    """p50 and p99 of the first and last third of the measured span (after the warm-up), and their
    ratios: latency that creeps up over the run shows as a ratio above 1."""
    span = (end_s - warmup_s) / 3
    first = [ms for at, ms in samples if warmup_s <= at < warmup_s + span]
    last = [ms for at, ms in samples if end_s - span <= at <= end_s]
    out = {
        "first_p50_ms": percentile(first, 50),
        "first_p99_ms": percentile(first, 99),
        "last_p50_ms": percentile(last, 50),
        "last_p99_ms": percentile(last, 99),
    }
    out["p50_ratio"] = out["last_p50_ms"] / out["first_p50_ms"] if out["first_p50_ms"] else 0.0
    out["p99_ratio"] = out["last_p99_ms"] / out["first_p99_ms"] if out["first_p99_ms"] else 0.0
    return {key: round(value, 3) for key, value in out.items()}


def parse_keyed(text: str) -> dict[str, int]:
    """``/proc/meminfo`` (kB → bytes), ``arcstats`` (name, type, bytes) and ``cpu.stat`` (name, count)
    lines as one dict."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        fields = line.replace(":", " ").split()
        if len(fields) == 3 and fields[2] == "kB" and fields[1].isdigit():
            out[fields[0]] = int(fields[1]) * 1024
        elif len(fields) == 3 and fields[1].isdigit() and fields[2].isdigit():
            out[fields[0]] = int(fields[2])
        elif len(fields) == 2 and fields[1].isdigit():
            out[fields[0]] = int(fields[1])
    return out


def parse_rss(text: str) -> dict[str, int]:
    """``ps -eo rss=,comm=`` as bytes per command name (processes of one name summed)."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        rss, _, comm = line.strip().partition(" ")
        if rss.isdigit():
            out[comm.strip()] = out.get(comm.strip(), 0) + int(rss) * 1024
    return out


def established(text: str, port: int) -> int:
    """Connections established to local ``port`` in ``/proc/net/tcp`` and ``tcp6`` text (state 01); other
    lines (meminfo's, arcstats') are skipped, so one ``cat`` reads them all."""
    local = f":{port:04X}"
    return sum(
        1
        for fields in (line.split() for line in text.splitlines())
        if len(fields) > 3 and fields[0].endswith(":") and fields[1].endswith(local) and fields[3] == "01"
    )


def memory_sample(
    at_s: float, meminfo_arcstats: str, ps: str, nfs_connections: int | None = None
) -> dict[str, Any]:
    """One sample of the guest's memory: totals, the ARC, memory used outside it, the largest processes,
    and the NFS connections open then (each holds memory in the NFS server)."""
    keyed = parse_keyed(meminfo_arcstats)
    used = keyed["MemTotal"] - keyed["MemAvailable"]
    rss = parse_rss(ps)
    top = dict(sorted(rss.items(), key=lambda item: -item[1])[:5])
    return {
        "at_s": round(at_s, 1),
        "mem_total": keyed["MemTotal"],
        "mem_available": keyed["MemAvailable"],
        "arc_size": keyed["size"],
        "arc_c_max": keyed["c_max"],
        "used_outside_arc": used - keyed["size"],
        "rss_top": top,
        "nfs_connections": nfs_connections,
    }


def cpu_sample(proc_stat: str, ps_times: str) -> dict[str, Any]:
    """The guest's CPU counters: /proc/stat's busy and total jiffies (all CPUs), and ``ps -eo times=,comm=``
    as CPU seconds per command (kernel threads' ``name/N`` summed under ``name``)."""
    cpus, busy, total = 0, 0, 0
    for line in proc_stat.splitlines():
        words = line.split()
        if words and words[0] == "cpu":
            ticks = [int(w) for w in words[1:9]]  # user nice system idle iowait irq softirq steal
            total, busy = sum(ticks), sum(ticks) - ticks[3] - ticks[4]
        elif words and words[0].startswith("cpu"):
            cpus += 1
    seconds: dict[str, int] = {}
    for line in ps_times.splitlines():
        used, _, comm = line.strip().partition(" ")
        if used.isdigit():
            name = comm.strip().split("/")[0]
            seconds[name] = seconds.get(name, 0) + int(used)
    return {"cpus": cpus, "busy_jiffies": busy, "total_jiffies": total, "seconds": seconds}


def cpu_use(samples: list[dict[str, Any]], warmup_s: float, key: str = "cpu") -> dict[str, Any]:
    """Where the CPU went from the first sample after the warm-up to the last, in percent of all its CPUs:
    busy, the busiest commands, and processes too short-lived for ps to see (zpool, zfs, ...). ``key``:
    "cpu" is the guest's, "host_cpu" the lab host's (qemu, fio, wrk share its CPUs)."""
    measured = [s for s in samples if s["at_s"] >= warmup_s and key in s]
    if len(measured) < 2:
        return {}
    return cpu_between(measured[0][key], measured[-1][key])


def cpu_between(first: dict[str, Any], last: dict[str, Any], top_n: int = 8) -> dict[str, Any]:
    span_s = (last["total_jiffies"] - first["total_jiffies"]) / USER_HZ / max(1, last["cpus"])
    if span_s <= 0:
        return {}
    all_cpu_s = span_s * max(1, last["cpus"])
    busy = (last["busy_jiffies"] - first["busy_jiffies"]) / USER_HZ
    used = {n: s - first["seconds"].get(n, 0) for n, s in last["seconds"].items()}
    top = sorted(used.items(), key=lambda item: -item[1])[:top_n]
    return {
        "cpus": last["cpus"],
        "seconds": round(span_s),
        "busy_pct": round(100 * busy / all_cpu_s, 1),
        "by_command_pct": {n: round(100 * s / all_cpu_s, 1) for n, s in top if s > 0},
        "short_lived_pct": round(100 * max(0.0, busy - sum(max(0, s) for s in used.values())) / all_cpu_s, 1),
    }


def thirds(samples: list[dict[str, Any]], warmup_s: float, end_s: float) -> dict[str, Any]:
    """What else changed between the two thirds drift() compares, each from its first sample to its
    last: the guest's and the host's CPU (busy and the three busiest commands, %) and the SAN's I/O
    (both LUNs, MiB/s and writes/s). A latency drift that comes with a busier host is the lab's."""
    span = (end_s - warmup_s) / 3
    out: dict[str, Any] = {}
    for name, (low, high) in (("first", (warmup_s, warmup_s + span)), ("last", (end_s - span, end_s))):
        inside = [s for s in samples if low <= s["at_s"] <= high]
        if len(inside) < 2:
            continue
        a, b = inside[0], inside[-1]
        third: dict[str, Any] = {}
        for key in ("cpu", "host_cpu"):
            if key in a and key in b and (use := cpu_between(a[key], b[key], top_n=3)):
                third[key] = {"busy_pct": use["busy_pct"], "by_command_pct": use["by_command_pct"]}
        seconds = b["at_s"] - a["at_s"]
        if "san" in a and "san" in b and seconds > 0:
            third["san"] = {
                "write_mib_s": round((b["san"]["wr_bytes"] - a["san"]["wr_bytes"]) / seconds / (1 << 20), 2),
                "read_mib_s": round((b["san"]["rd_bytes"] - a["san"]["rd_bytes"]) / seconds / (1 << 20), 2),
                "writes_per_s": round((b["san"]["wr_ops"] - a["san"]["wr_ops"]) / seconds, 1),
            }
        out[name] = third
    return out


def san_sample(blockstats: dict[str, dict[str, Any]]) -> dict[str, int]:
    """The LUNs' counters (query-blockstats of every disk named lun*) summed: what the pool asked of the SAN."""
    luns = [stats for name, stats in blockstats.items() if name.startswith("lun")]
    return {
        "rd_bytes": sum(int(s["rd_bytes"]) for s in luns),
        "wr_bytes": sum(int(s["wr_bytes"]) for s in luns),
        "wr_ops": sum(int(s["wr_operations"]) for s in luns),
    }


def pool_space(zpool_list: str) -> dict[str, int]:
    """``zpool list -Hp -o size,allocated,fragmentation,capacity POOL``: bytes, and percent for the last two."""
    size, allocated, fragmentation, capacity = zpool_list.split()[:4]
    return {
        "size": int(size),
        "allocated": int(allocated),
        "fragmentation_pct": int(fragmentation) if fragmentation.isdigit() else -1,
        "capacity_pct": int(capacity),
    }


def quota_use(before: str, after: str, seconds: float) -> dict[str, Any]:
    """What a cgroup's ``cpu.stat`` says between two reads: CPU used and how often its quota throttled it."""
    a, b = parse_keyed(before), parse_keyed(after)
    used, periods = b["usage_usec"] - a["usage_usec"], b.get("nr_periods", 0) - a.get("nr_periods", 0)
    throttled = b.get("nr_throttled", 0) - a.get("nr_throttled", 0)
    waited = b.get("throttled_usec", 0) - a.get("throttled_usec", 0)
    return {
        "cpu_s": round(used / 1e6, 1),
        "cpu_pct_of_one": round(100 * used / 1e6 / seconds, 1) if seconds > 0 else 0.0,
        "periods": periods,
        "throttled": throttled,
        "throttled_s": round(waited / 1e6, 1),
        "throttled_ms_each": round(waited / 1e3 / throttled, 1) if throttled else 0.0,
    }


def arc_overflow_allowed(c_max: int) -> int:
    """How far past its target OpenZFS lets the ARC run before allocations wait for eviction: 1.5 x
    max(16 MiB, c / 2^zfs_arc_overflow_shift (8)), arc_is_overflowing()'s severe level (2.3). A pinned
    ARC sits at its cap and within this; more would mean the cap is not holding."""
    return (3 * max(16 << 20, c_max >> 8)) // 2


def memory_trend(samples: list[dict[str, Any]], warmup_s: float) -> dict[str, Any]:
    """Growth of memory used outside the ARC under the full load (from the first sample after the
    warm-up with every client connected to the mean of the last three), of each large process's RSS,
    and how far the ARC ever went past its maximum.

    A leak grows under a steady load. The NFS server holds memory for each connection (a thread, its
    buffers, and what the C library keeps of them after), so the desktops still connecting at the end of
    a time-based warm-up, on a slow host, would be counted as growth."""
    measured = [s for s in samples if s["at_s"] >= warmup_s] or samples
    if not measured:
        return {"samples": 0}
    connected = [s["nfs_connections"] for s in measured if s.get("nfs_connections") is not None]
    if connected:
        full = next(i for i, s in enumerate(measured) if s.get("nfs_connections") == max(connected))
        measured = measured[full:]
    first, tail = measured[0], measured[-3:]
    mib = 1 << 20
    growth = statistics.fmean(s["used_outside_arc"] for s in tail) - first["used_outside_arc"]
    rss_growth = {
        name: round((statistics.fmean(s["rss_top"].get(name, 0) for s in tail) - rss) / mib, 1)
        for name, rss in first["rss_top"].items()
    }
    return {
        "samples": len(samples),
        "steady_from_s": first["at_s"],
        "nfs_connections": max(connected, default=None),
        "outside_arc_first_mib": round(first["used_outside_arc"] / mib, 1),
        "outside_arc_growth_mib": round(growth / mib, 1),
        "rss_growth_mib": rss_growth,
        "arc_max_mib": round(max(s["arc_size"] for s in samples) / mib, 1),
        "arc_c_max_mib": round(first["arc_c_max"] / mib, 1),
        "arc_over_max_mib": round(max(s["arc_size"] - s["arc_c_max"] for s in samples) / mib, 1),
        "arc_overflow_allowed_mib": round(arc_overflow_allowed(first["arc_c_max"]) / mib, 1),
    }


def parse_wrk(stdout: str) -> dict[str, Any]:
    """The JSON line reliability/wrk_api.lua's done() prints; ValueError when wrk printed none."""
    for line in stdout.splitlines():
        if line.startswith(WRK_PREFIX):
            data: dict[str, Any] = json.loads(line[len(WRK_PREFIX) :])
            for key in [k for k in data if k.endswith("_us")]:
                data[key.removesuffix("_us") + "_ms"] = round(data.pop(key) / 1000, 2)
            data["errors"] = sum(data[k] for k in ("connect", "read", "write", "status", "timeout"))
            return data
    raise ValueError(f"wrk printed no {WRK_PREFIX.strip()} line: {stdout[-500:]!r}")


def api_figures(per_path: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One wrk per path: totals, and the worst path's percentiles (at least the mix's own)."""
    return {
        "paths": per_path,
        "requests": sum(p["requests"] for p in per_path.values()),
        "errors": sum(p["errors"] for p in per_path.values()),
        "p50_ms": max(p["p50_ms"] for p in per_path.values()),
        "p90_ms": max(p["p90_ms"] for p in per_path.values()),
        "p99_ms": max(p["p99_ms"] for p in per_path.values()),
    }


def verdict(figures: dict[str, Any], limits: Limits) -> list[str]:
    """What the soak failed (empty when it passed)."""
    failed: list[str] = []
    if figures.get("guest_panic"):
        failed.append(f"the appliance's kernel panicked: {figures['guest_panic'].splitlines()[0]}")
    elif figures.get("guest_dead"):
        failed.append(f"the appliance's VM ended: {figures['guest_dead'].splitlines()[0]}")
    if figures.get("fio_error"):
        failed.append(f"fio: {figures['fio_error']}")
    if figures.get("io_errors"):
        failed.append(f"{figures['io_errors']} I/O errors")
    for direction, d in figures.get("drift", {}).items():
        if d["p99_ratio"] > limits.p99_drift:
            failed.append(f"{direction} p99 drifted x{d['p99_ratio']} (limit x{limits.p99_drift})")
    memory = figures.get("memory", {})
    if not memory.get("samples"):
        failed.append("no memory samples")
    else:
        if memory["arc_over_max_mib"] > memory["arc_overflow_allowed_mib"]:
            failed.append(
                f"the ARC went {memory['arc_over_max_mib']} MiB past its maximum "
                f"(OpenZFS allows {memory['arc_overflow_allowed_mib']} MiB)"
            )
        if memory["outside_arc_growth_mib"] > limits.memory_growth_mib:
            failed.append(f"memory outside the ARC grew {memory['outside_arc_growth_mib']} MiB")
    api = figures.get("api") or {}
    if not api:
        failed.append("no api load figures")
    else:
        if api["errors"]:
            failed.append(f"{api['errors']} api errors under load")
        if api["p99_ms"] >= limits.api_p99_ms:
            failed.append(f"api p99 {api['p99_ms']} ms (limit {limits.api_p99_ms} ms)")
    sync = figures.get("sync_writer") or {}
    if sync.get("read_back_error"):
        failed.append(
            f"sync writer: {sync['acked']} acknowledged writes unverified: {sync['read_back_error']}"
        )
    if sync.get("lost") or sync.get("errors"):
        failed.append(f"sync writer: lost {sync.get('lost')}, errors {sync.get('errors')}")
    if figures.get("pool_state", "ONLINE") != "ONLINE":
        failed.append(f"pool {figures['pool_state']} after the soak")
    return failed
