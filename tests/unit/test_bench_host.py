"""bench.host: the host's stalls and steal over a phase, from /proc files as the kernel writes them."""

from __future__ import annotations

import os
from pathlib import Path

from bench import host, report

PSI = "some avg10=1.81 avg60=6.81 avg300=5.48 total={some}\nfull avg10=0.00 avg60=0.00 avg300=0.00 total={full}\n"
STAT = "cpu  {user} 3522 373473 2081905 129069 0 8777 {steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n"


def write_proc(root: Path, io: tuple[int, int], steal: int, user: int) -> tuple[Path, Path]:
    pressure = root / "pressure"
    pressure.mkdir(exist_ok=True)
    (pressure / "io").write_text(PSI.format(some=io[0], full=io[1]), encoding="ascii")
    (pressure / "cpu").write_text(PSI.format(some=0, full=0), encoding="ascii")
    (root / "stat").write_text(STAT.format(user=user, steal=steal), encoding="ascii")
    return pressure, root / "stat"


def test_shares_of_the_phase_from_cumulative_counters(tmp_path: Path) -> None:
    pressure, stat = write_proc(tmp_path, (1_000_000, 0), steal=100, user=1000)
    before = host.sample(pressure, stat)
    # 4 s of I/O stall ("some"), 1 s with every task stalled, over a 10 s phase; 50 of 400 jiffies stolen
    write_proc(tmp_path, (5_000_000, 1_000_000), steal=150, user=1350)
    after = host.sample(pressure, stat)
    after = host.Sample(before.when + 10.0, after.stalls, after.steal, after.jiffies)
    shares = host.since(before, after)
    assert shares == {
        "io_some_pct": 40.0,
        "io_full_pct": 10.0,
        "cpu_some_pct": 0.0,
        "cpu_full_pct": 0.0,
        "steal_pct": 12.5,
    }
    assert host.stalled(shares) == ["io some 40.0 %", "io full 10.0 %", "steal 12.5 %"]
    assert host.stalled({"io_some_pct": 9.9, "cpu_some_pct": 100.0}) == []  # TCG keeps the CPUs busy


def test_a_kernel_without_psi_gives_no_stall_figures_not_zeros(tmp_path: Path) -> None:
    (tmp_path / "stat").write_text(STAT.format(user=1, steal=0), encoding="ascii")
    before = host.sample(tmp_path / "absent", tmp_path / "stat")
    after = host.Sample(before.when + 1, {}, before.steal, (before.jiffies or 0) + 100)
    assert host.since(before, after) == {"steal_pct": 0.0}
    (tmp_path / "stat").write_text("intr 1 2 3\n", encoding="ascii")
    assert host.sample(tmp_path / "absent", tmp_path / "stat").steal is None


def test_this_hosts_own_counters_give_shares_within_the_phase() -> None:
    before = host.sample()
    os.sync()  # some real I/O between the two samples
    shares = host.since(before)
    if Path("/proc/pressure/io").exists():
        assert {"io_some_pct", "io_full_pct", "cpu_some_pct"} <= shares.keys()
    assert all(0.0 <= v <= 100.0 for v in shares.values())


def test_the_report_names_phases_run_on_a_stalled_host() -> None:
    stacks = {
        "bare-lun": {"phases": [{"phase": "work", "host": {"io_some_pct": 34.2, "steal_pct": 0.4}}]},
        "arcvsa": {"phases": [{"phase": "work", "host": {"io_some_pct": 2.0}}, {"phase": "density"}]},
    }
    lines = report.host_stalls(stacks)
    assert lines == [
        "  host stalled during bare LUN (VMFS-like) work: io some 34.2 % of the phase"
        " (its figures are partly the host's)"
    ]
