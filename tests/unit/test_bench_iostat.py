"""The pool's writes to the LUN by size (bench.iostat), from a real ``zpool iostat -r -v -p -H``, into
a phase's row (bench.metrics) and the report's line (bench.report)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench import iostat, metrics, report
from bench.runner import Golden
from bench.stack import ApplianceStack, Counters, StackError
from bench.workload import load_workload

# Read from the bench's arcvsa VM after the steady state's work phase (OpenZFS 2.3.9, 2026-11-28).
RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "bench" / "zpool-iostat-r.txt"


def test_the_recorded_histograms_give_the_luns_writes_alone_and_merged() -> None:
    sizes = iostat.write_sizes(RECORDED.read_text(encoding="ascii"), "virtio-lun0")
    assert sorted(sizes) == [512 << i for i in range(16)]  # 512 B to 16 MiB, a row each
    # the 4K row: sync_write 152 + async_write 901 alone; none merged (a merge is bigger than a block)
    assert sizes[4096] == (1053, 0)
    assert sizes[8192] == (3 + 941, 0 + 355)
    assert sum(a for a, _ in sizes.values()) == 2271 and sum(m for _, m in sizes.values()) == 1968
    # reads, scrub and trim columns are not writes: the 32K row's 455 trims are not counted
    assert sizes[32768] == (0, 183)


def test_each_vdev_has_its_own_section() -> None:
    slog = iostat.write_sizes(RECORDED.read_text(encoding="ascii"), "virtio-ssd-slog")
    assert sum(a for a, _ in slog.values()) == 12770 and sum(m for _, m in slog.values()) == 69


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no histograms for 'virtio-lun0'"),
        ("\ntank\n512\t0\t0\n", "no histograms for 'virtio-lun0'"),
        ("\nvirtio-lun0\n\n", "no histogram rows"),
        ("\nvirtio-lun0\n512\t0\t0\t0\n", "a histogram row of 4 fields"),
        ("\nvirtio-lun0\n512" + "\tx" * 14 + "\n", "invalid literal"),
    ],
)
def test_what_is_not_a_histogram_is_refused(text: str, message: str) -> None:
    with pytest.raises(iostat.IostatError, match=message):
        iostat.write_sizes(text, "virtio-lun0")


def test_since_keeps_the_buckets_that_moved_and_starts_again_after_an_import() -> None:
    before = {4096: (10, 0), 8192: (5, 2), 16384: (0, 0)}
    after = {4096: (14, 0), 8192: (5, 2), 16384: (1, 3)}
    assert iostat.since(after, before) == {4096: (4, 0), 16384: (1, 3)}
    # the pool was imported between the readings (a reboot): its counts began again
    assert iostat.since({4096: (2, 0), 8192: (0, 1)}, before) == {4096: (2, 0), 8192: (0, 1)}


def stack_answering(text: str) -> ApplianceStack:
    stack = ApplianceStack.__new__(ApplianceStack)
    stack.name = "arcvsa"
    stack.ssh = lambda argv, timeout=300: text  # type: ignore[method-assign]
    return stack


def test_a_stack_reads_its_data_luns_histogram_and_says_when_it_cannot() -> None:
    assert stack_answering(RECORDED.read_text(encoding="ascii")).lun_writes()[4096] == (1053, 0)
    with pytest.raises(StackError, match="arcvsa: no histograms for 'virtio-lun0'"):
        stack_answering("cannot open 'tank': no such pool\n").lun_writes()


def test_a_phase_keeps_the_writes_it_caused_and_the_report_sums_them() -> None:
    spec = load_workload("steady-state").phases[0]
    zero = {"rd_bytes": 0, "wr_bytes": 0, "rd_ops": 0, "wr_ops": 0}
    before = Counters(0.0, zero, lun_writes={4096: (100, 0), 262144: (0, 7)})
    after = Counters(
        90.0,
        {**zero, "wr_bytes": 40 << 20, "wr_ops": 100},
        lun_writes={4096: (150, 0), 8192: (10, 0), 65536: (0, 20), 262144: (0, 27), 1048576: (0, 0)},
    )
    fio: dict[str, Any] = {"jobs": [{d: {"io_bytes": 0, "total_ios": 0} for d in ("read", "write")}]}
    writes = {"writes": "FILE_SYNC", "write_ios": 1000, "write_bytes": 6 << 20, "write_lat_ms": {}}
    row = metrics.phase(
        spec, ApplianceStack.__new__(ApplianceStack), before, after, fio,
        Golden(Path("replica"), 1 << 30, [], []), compression=1.7, writes=writes,
    )  # fmt: skip
    assert row["lun_write_sizes"] == {"4096": [50, 0], "8192": [10, 0], "65536": [0, 20], "262144": [0, 20]}
    lines = report.lun_writes({"arcvsa": {"phases": [row]}})
    assert lines == [
        "  arcvsa (tuned) work: the pool's 100 writes to the LUN (zpool iostat -r): 60 % under 16K,"
        " 20 % 16K-128K, 20 % 128K and over; 40 % merged from adjacent blocks"
    ]


def test_a_stack_without_histograms_adds_no_line() -> None:
    row = {"phase": "work", "write_aggregation": 1.0}
    assert report.lun_writes({"nas-xfs": {"phases": [row]}}) == []
