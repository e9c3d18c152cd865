"""The soak A/B's turns and its side-by-side figures (reliability.soak_ab); the run itself is a lab run
(`make soak-ab`)."""

from __future__ import annotations

from typing import Any

import pytest

from reliability import soak_ab


def test_the_turns_alternate_a_b_b_a_and_each_side_gets_its_count() -> None:
    assert list(soak_ab.order(1)) == ["A", "B"]
    assert list(soak_ab.order(4)) == ["A", "B", "B", "A", "A", "B", "B", "A"]
    assert list(soak_ab.order(3)).count("B") == 3
    with pytest.raises(ValueError, match="at least one phase"):
        list(soak_ab.order(0))


def phase(side: str, p99: float, requests: int, api_cpu_s: float, *, p50: float = 10.0) -> dict[str, Any]:
    return {
        "side": side,
        "seconds": 100.0,
        "fio_ios": 30_000,
        "io_errors": 0,
        "api": {"requests": requests, "errors": 0, "p50_ms": p50, "p99_ms": p99},
        "api_quota": {"cpu_s": api_cpu_s},
        "poller_quota": {"cpu_s": 5.0},
        "guest_cpu": {"busy_pct": 90.0},
        "latency": {"write": {"p99_ms": 40.0}},
    }


def test_a_side_s_summary_takes_the_worst_phase_and_cpu_over_all_its_requests() -> None:
    got = soak_ab.summary(
        [phase("A", 300.0, 1000, 2.0), phase("A", 100.0, 3000, 4.0), phase("A", 150.0, 1000, 0.0)]
    )
    assert got["p99_ms_worst"] == 300.0
    assert got["p99_ms_median"] == 150.0
    assert got["requests"] == 5000
    assert got["api_cpu_ms_per_request"] == 1.2  # 6 s over 5,000 requests, not the mean of each phase's
    assert got["poller_cpu_pct_of_one"] == 5.0
    assert got["ios_per_s"] == 300.0
    assert got["write_p99_ms_median"] == 40.0 and "read_p99_ms_median" not in got


def test_a_phase_without_api_figures_counts_as_unmeasured_but_its_io_errors_count() -> None:
    lost = {"side": "B", "seconds": 100.0, "api_error": "wrk printed no line", "io_errors": 3}
    got = soak_ab.summary([phase("B", 120.0, 100, 1.0), lost])
    assert (got["phases"], got["measured"], got["io_errors"]) == (2, 1, 3)
    assert soak_ab.summary([lost]) == {"phases": 1, "measured": 0}


def test_the_table_gives_b_over_a_only_where_both_are_numbers() -> None:
    figures = {
        "revs": {"A": "35dab90", "B": "7abe4e9"},
        "summary": {
            "A": soak_ab.summary([phase("A", 400.0, 1000, 10.0)]),
            "B": {**soak_ab.summary([phase("B", 100.0, 1000, 2.0)]), "errors": 0},
        },
    }
    lines = soak_ab.report(figures).splitlines()
    assert lines[0].split() == ["figure", "A", "35dab90", "B", "7abe4e9", "B", "/", "A"]
    worst = next(line for line in lines if line.startswith("api p99, worst phase"))
    assert worst.split()[-3:] == ["400.0", "100.0", "0.25"]
    per_request = next(line for line in lines if line.startswith("api CPU per request"))
    assert per_request.split()[-3:] == ["10.0", "2.0", "0.20"]
    errors = next(line for line in lines if line.startswith("api errors"))
    assert errors.split()[-2:] == ["0", "0"]  # 0 over 0: no ratio
