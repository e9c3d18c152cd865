"""The pool's txgs placed on a phase's clock (bench.txgs) and the write bound counted over them
(bench.metrics.dirtied): a txg closed early by dirty data counts its records again."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from bench import metrics, report, txgs
from bench.runner import Golden
from bench.stack import ApplianceStack, Counters, StackError, WriteModel
from bench.workload import load_workload
from lab.guest_clock import Offset

# Read from a lab appliance's pool during the steady state at 30 s txgs and 5 % dirty (cat, 2026-11-26).
RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "bench" / "txgs.txt"


def test_a_recorded_history_parses_to_births_seconds_apart() -> None:
    born = txgs.births(RECORDED.read_text(encoding="ascii"))
    assert len(born) >= 10 and born == sorted(born)
    gaps = [b - a for a, b in itertools.pairwise(born)]
    assert all(0 < gap < 60e9 for gap in gaps)  # txgs seconds apart, not a column misread


@pytest.mark.parametrize(
    "text",
    [
        "",
        "name type data\nhits 4 12\n",  # a named kstat, not the txg history
        "txg birth state\n5 abc O\n",
        "txg birth state\n5\n",
    ],
)
def test_what_is_not_a_txg_history_is_refused(text: str) -> None:
    with pytest.raises(txgs.TxgHistoryError):
        txgs.births(text)


def test_births_land_on_the_phases_clock_from_the_txg_open_when_it_began() -> None:
    s = 1_000_000_000
    born = [70 * s, 75 * s, 78 * s, 80 * s, 90 * s]
    clock = Offset(seconds=-900.0, error=0.01)  # guest RAW 70 s is host 970 s
    assert txgs.starts(born, clock, began=976.0) == (-1.0, 2.0, 4.0, 14.0)
    assert txgs.starts(born, clock, began=975.0) == (0.0, 3.0, 5.0, 15.0)
    assert txgs.starts(born, clock, began=960.0) is None  # history too short


def test_txgs_closed_early_count_their_records_again() -> None:
    kib = 1024
    writes = [[(0.5, 0, 4 * kib), (1.5, 0, 4 * kib), (2.5, 0, 4 * kib), (3.5, 16 * kib, 4 * kib)]]
    # 5 s windows: record 0 once, record 1 once
    assert metrics.dirtied(writes, 16 * kib, 5.0) == 2 * 16 * kib
    # the pool opened txgs at -0.2, 1.0 and 2.0 s: record 0 in all three, record 1 in the last
    assert metrics.dirtied(writes, 16 * kib, 5.0, (-0.2, 1.0, 2.0)) == 4 * 16 * kib


def test_a_phase_reports_the_txgs_its_writes_fell_in() -> None:
    kib = 1024
    extents = [[(0.5, 0, 4 * kib), (1.5, 0, 4 * kib), (2.5, 0, 4 * kib), (3.5, 16 * kib, 4 * kib)]]
    spec = load_workload("steady-state").phases[0]
    zero = {"rd_bytes": 0, "wr_bytes": 0, "rd_ops": 0, "wr_ops": 0}
    after = Counters(4.0, {**zero, "wr_bytes": 96 * kib, "wr_ops": 3}, {}, {})
    fio: dict[str, Any] = {"jobs": [{d: {"io_bytes": 0, "total_ios": 0} for d in ("read", "write")}]}
    writes = {"writes": "FILE_SYNC", "write_ios": 4, "write_bytes": 16 * kib, "write_lat_ms": {}}
    model = WriteModel(16 * kib, 30.0, txg_starts=(-0.2, 1.0, 2.0, 9.0), clock_error_s=0.04)
    row = metrics.phase(
        spec, ApplianceStack.__new__(ApplianceStack), Counters(0.0, zero, {}, {}), after, fio,
        Golden(Path("replica"), 1 << 30, [], []), compression=1.0,
        writes={**writes, "extents": extents}, model=model,
    )  # fmt: skip
    assert row["write_model"] == {
        "record_bytes": 16 * kib,
        "txg_seconds": 30.0,
        "txgs": 3,
        "clock_error_s": 0.04,
    }
    assert row["dirtied_bytes"] == 4 * 16 * kib and row["write_bound"] == 0.25


def test_the_report_says_where_the_txgs_came_from() -> None:
    row = {
        "phase": "work",
        "write_model": {"record_bytes": 16384, "txg_seconds": 30.0, "txgs": 41, "clock_error_s": 0.3},
        "dirtied_bytes": 8 << 20,
        "san": {"write_bytes": 10 << 20},
        "write_offload": 0.5,
        "write_bound": 0.6,
    }
    line = report.write_bounds({"arcvsa": {"phases": [row]}})
    assert "41 txgs as the pool opened them" in line[0] and "30 s txgs" not in line[0]


def test_a_pool_without_a_txg_history_fails_the_phase_not_the_run() -> None:
    stack = ApplianceStack.__new__(ApplianceStack)
    stack.name = "arcvsa"
    answers = iter(["16384\n", "5\n", "name type data\n"])
    stack.ssh = lambda argv, timeout=300: next(answers)  # type: ignore[method-assign]
    with pytest.raises(StackError, match="arcvsa: not a txgs kstat"):
        stack.write_model(began=0.0)
