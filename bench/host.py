"""What the lab host itself was going through while a phase ran: its disk's latency, stalls, CPU steal.

The bench's figures are ratios of stacks run one after the other on one host. A phase that ran while
the host's disk was slow (the LUN files are O_DIRECT on it, so every LUN I/O is one of its I/Os) or its
vCPUs were taken by the hypervisor is slower for a reason outside the stacks: the constrained array's
bare LUN gave 0.6 ms reads at p95 in one run and 388 ms in the next with nothing changed. Each measured
phase's row carries the disk's mean time per read and per write (``/sys/dev/block/M:m/stat``, the
device holding the LUN files), the share of time stalled (the kernel's PSI, ``/proc/pressure``) and
stolen (``/proc/stat``), and the report names the phases that ran on a slow disk or a robbed CPU.
PSI's io share is kept but not judged: with the host otherwise idle, the bare LUN's own I/O at 0.5 ms
makes a ``full`` stall of 12 % at 250 IOPS, which is activity, not trouble.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PRESSURE = Path("/proc/pressure")
STAT = Path("/proc/stat")
RESOURCES = ("cpu", "io", "memory")
# Above this share of the phase (steal, memory reclaim stalls), the report names the phase.
STALLED_PCT = 10.0
# Above this mean time per I/O the host's disk is slow: an SSD-backed volume answers in well under 1 ms.
SLOW_DISK_MS = 2.0


@dataclass(frozen=True)
class Sample:
    """Cumulative counters at one moment: PSI totals in µs (``io.some``…), CPU jiffies, and the disk's
    reads, ms reading, writes, ms writing, ms busy."""

    when: float
    stalls: dict[str, int]
    steal: int | None
    jiffies: int | None
    disk: tuple[int, int, int, int, int] | None = None


def device_stat(path: Path) -> Path | None:
    """The block device statistics file of the disk holding ``path`` (None: not a block device's)."""
    dev = os.stat(path).st_dev
    found = Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}/stat")
    return found if found.exists() else None


def _disk(stat: Path | None) -> tuple[int, int, int, int, int] | None:
    if stat is None:
        return None
    try:
        fields = [int(v) for v in stat.read_text(encoding="ascii").split()]
    except (OSError, ValueError):
        return None
    if len(fields) < 10:
        return None
    # reads, merged, sectors, ms reading, writes, merged, sectors, ms writing, in flight, ms busy
    return fields[0], fields[3], fields[4], fields[7], fields[9]


def _stalls(root: Path) -> dict[str, int]:
    found: dict[str, int] = {}
    for resource in RESOURCES:
        try:
            text = (root / resource).read_text(encoding="ascii")
        except OSError:
            continue  # no PSI (kernel without it, or psi=0): the row says nothing rather than 0
        for line in text.splitlines():
            kind, *fields = line.split()
            total = next((f for f in fields if f.startswith("total=")), None)
            if total is not None:
                found[f"{resource}.{kind}"] = int(total.removeprefix("total="))
    return found


def _cpu(stat: Path) -> tuple[int | None, int | None]:
    try:
        first = stat.read_text(encoding="ascii").splitlines()[0].split()
    except (OSError, IndexError):
        return None, None
    if first[0] != "cpu" or len(first) < 9:
        return None, None
    # user nice system idle iowait irq softirq steal [guest guest_nice: already in user/nice]
    ticks = [int(v) for v in first[1:9]]
    return ticks[7], sum(ticks)


def sample(disk: Path | None = None, *, pressure: Path = PRESSURE, stat: Path = STAT) -> Sample:
    """The counters now; ``disk``: a :func:`device_stat` file."""
    steal, jiffies = _cpu(stat)
    return Sample(time.monotonic(), _stalls(pressure), steal, jiffies, _disk(disk))


def since(before: Sample, after: Sample) -> dict[str, Any]:
    """The share of the wall time between two samples (%) each stall and the steal took, and the
    disk's I/Os, mean ms per read and per write, and busy share."""
    seconds = after.when - before.when
    shares: dict[str, Any] = {}
    if seconds > 0:
        for key, total in after.stalls.items():
            if key in before.stalls:
                share = (total - before.stalls[key]) / (seconds * 1e6) * 100
                shares[f"{key.replace('.', '_')}_pct"] = round(min(max(share, 0.0), 100.0), 1)
    if None not in (before.steal, after.steal, before.jiffies, after.jiffies):
        ticks = after.jiffies - before.jiffies  # type: ignore[operator]
        if ticks > 0:
            shares["steal_pct"] = round((after.steal - before.steal) / ticks * 100, 1)  # type: ignore[operator]
    if before.disk and after.disk and seconds > 0:
        reads, read_ms, writes, write_ms, busy = (a - b for a, b in zip(after.disk, before.disk, strict=True))
        shares["disk_reads"], shares["disk_writes"] = reads, writes
        shares["disk_read_ms"] = round(read_ms / reads, 2) if reads else None
        shares["disk_write_ms"] = round(write_ms / writes, 2) if writes else None
        shares["disk_busy_pct"] = round(min(busy / (seconds * 1e3) * 100, 100.0), 1)
    return shares


def stalled(row: dict[str, Any]) -> list[str]:
    """What of a phase row's host figures passed :data:`SLOW_DISK_MS` or :data:`STALLED_PCT`, as parts
    like ``disk 8.10 ms a read``; only for a phase that times something (a calibration, or a client's
    latency): a copy's figures are bytes, and its reading of the golden image is what slows the disk."""
    client = row.get("client") or {}
    timed = row.get("kind") == "calibrate" or any(
        (client.get(f"{d}_lat_ms") or {}).get("p95") is not None for d in ("read", "write")
    )
    if not timed:
        return []
    figures = row.get("host") or {}
    parts = []
    for key, what in (("disk_read_ms", "a read"), ("disk_write_ms", "a write")):
        value = figures.get(key)
        if value is not None and value >= SLOW_DISK_MS:
            parts.append(f"disk {value:.2f} ms {what}")
    for key in ("memory_some_pct", "steal_pct"):
        value = figures.get(key)
        if value is not None and value >= STALLED_PCT:
            parts.append(f"{key.removesuffix('_pct').replace('_', ' ')} {value:.1f} %")
    return parts
