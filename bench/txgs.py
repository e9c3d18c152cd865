"""When a pool's transaction groups opened during a phase, from /proc/spl/kstat/zfs/<pool>/txgs.

The write bound (bench.metrics.dirtied) counts each record the writes dirtied once per txg. A txg is
open for zfs_txg_timeout seconds only while its dirty data stays under zfs_dirty_data_sync_percent;
past that it closes early, and windows of the parameter's length would count too few txgs and make
the bound too generous. The kstat keeps the last zfs_txg_history txgs,
a row each under a line of column names, with each one's birth on the guest's gethrtime() clock
(CLOCK_MONOTONIC_RAW, ns), which lab.guest_clock places on the host's.
"""

from __future__ import annotations

from lab.guest_clock import Offset


class TxgHistoryError(ValueError):
    """The kstat did not read as a txg history."""


def births(text: str) -> list[int]:
    """Each txg's birth (guest ns), ascending."""
    lines = [line.split() for line in text.splitlines() if line.strip()]
    if not lines or lines[0][:2] != ["txg", "birth"]:
        raise TxgHistoryError(f"not a txgs kstat: {text[:200]!r}")
    try:
        return sorted(int(row[1]) for row in lines[1:])
    except (ValueError, IndexError) as err:
        raise TxgHistoryError(f"txgs kstat: {err}") from err


def starts(born: list[int], clock: Offset, began: float) -> tuple[float, ...] | None:
    """Each txg's opening in seconds after ``began`` (the host's time.monotonic() when the phase's writes
    began): the txg already open at ``began`` first (at or before 0). None when the history does not
    reach back that far (more txgs since than zfs_txg_history keeps)."""
    times = [clock.to_host(ns) - began for ns in born]
    opened = [i for i, t in enumerate(times) if t <= 0]
    if not opened:
        return None
    return tuple(times[opened[-1] :])
