"""What the lab host itself was going through while a phase ran: pressure stalls and CPU steal.

The bench's figures are ratios of stacks run one after the other on one host. A phase that ran while
the host's disk stalled (the LUN files are O_DIRECT on it) or its vCPUs were taken by the hypervisor
is slower for a reason outside the stacks: the constrained array's bare LUN gave 0.6 ms reads at p95
in one run and 388 ms in the next with nothing changed. Each measured phase's row carries the host's
share of time stalled (the kernel's PSI, ``/proc/pressure``) and stolen (``/proc/stat``), so a reader
can tell a stack's figure from the host's, and the report names the phases that ran on a stalled host.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PRESSURE = Path("/proc/pressure")
STAT = Path("/proc/stat")
RESOURCES = ("cpu", "io", "memory")
# Above this share of the phase, the report names it: a host stalled on I/O this long moves latency.
STALLED_PCT = 10.0


@dataclass(frozen=True)
class Sample:
    """Cumulative counters at one moment: PSI totals in µs (``io.some``…), CPU jiffies."""

    when: float
    stalls: dict[str, int]
    steal: int | None
    jiffies: int | None


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


def sample(pressure: Path = PRESSURE, stat: Path = STAT) -> Sample:
    steal, jiffies = _cpu(stat)
    return Sample(time.monotonic(), _stalls(pressure), steal, jiffies)


def since(before: Sample, after: Sample | None = None) -> dict[str, Any]:
    """The share of the wall time between two samples (%) each stall and the steal took."""
    after = after or sample()
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
    return shares


def stalled(host: dict[str, Any]) -> list[str]:
    """What of a phase's host figures passed :data:`STALLED_PCT`, as ``io some 34.0 %`` parts."""
    parts = []
    for key in ("io_some_pct", "io_full_pct", "memory_some_pct", "steal_pct"):
        value = host.get(key)
        if value is not None and value >= STALLED_PCT:
            parts.append(f"{key.removesuffix('_pct').replace('_', ' ')} {value:.1f} %")
    return parts
