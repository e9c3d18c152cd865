"""bench.host: the host's disk, stalls and steal over a phase, from /proc and /sys files as the kernel
writes them."""

from __future__ import annotations

import os
from pathlib import Path

from bench import host, report

PSI = "some avg10=1.81 avg60=6.81 avg300=5.48 total={some}\nfull avg10=0.00 avg60=0.00 avg300=0.00 total={full}\n"
STAT = "cpu  {user} 3522 373473 2081905 129069 0 8777 {steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n"
# /sys/block/vda/stat: reads merged sectors ms-reading writes merged sectors ms-writing in-flight ms-busy ...
DISK = (
    " {reads} 98368 117536313 {read_ms} {writes} 499914 1173724717 {write_ms} 0 {busy} 27112975 0 0 0 0 0 0\n"
)


def write_proc(root: Path, io: tuple[int, int], steal: int, user: int, disk: tuple[int, ...]) -> None:
    pressure = root / "pressure"
    pressure.mkdir(exist_ok=True)
    (pressure / "io").write_text(PSI.format(some=io[0], full=io[1]), encoding="ascii")
    (pressure / "cpu").write_text(PSI.format(some=0, full=0), encoding="ascii")
    (root / "stat").write_text(STAT.format(user=user, steal=steal), encoding="ascii")
    reads, read_ms, writes, write_ms, busy = disk
    (root / "disk").write_text(
        DISK.format(reads=reads, read_ms=read_ms, writes=writes, write_ms=write_ms, busy=busy),
        encoding="ascii",
    )


def sample(root: Path) -> host.Sample:
    return host.sample(root / "disk", pressure=root / "pressure", stat=root / "stat")


def test_shares_and_disk_latency_of_the_phase_from_cumulative_counters(tmp_path: Path) -> None:
    write_proc(tmp_path, (1_000_000, 0), steal=100, user=1000, disk=(1000, 8000, 500, 500, 10_000))
    before = sample(tmp_path)
    # over a 10 s phase: 4 s of I/O stall ("some"), 1 s with every task stalled, 50 of 400 jiffies
    # stolen; the disk did 200 reads in 1,620 ms and 1,000 writes in 300 ms, busy 2.5 s
    write_proc(tmp_path, (5_000_000, 1_000_000), steal=150, user=1350, disk=(1200, 9620, 1500, 800, 12_500))
    now = sample(tmp_path)
    shares = host.since(before, host.Sample(before.when + 10.0, now.stalls, now.steal, now.jiffies, now.disk))
    assert shares == {
        "io_some_pct": 40.0,
        "io_full_pct": 10.0,
        "cpu_some_pct": 0.0,
        "cpu_full_pct": 0.0,
        "steal_pct": 12.5,
        "disk_reads": 200,
        "disk_writes": 1000,
        "disk_read_ms": 8.1,
        "disk_write_ms": 0.3,
        "disk_busy_pct": 25.0,
    }
    # a slow disk and a robbed CPU are named; I/O stalls alone are the phase's own activity
    timed = {"kind": "mix", "client": {"write_lat_ms": {"p95": 70.7}}}
    assert host.stalled({**timed, "host": shares}) == ["disk 8.10 ms a read", "steal 12.5 %"]
    calm = {"io_full_pct": 60.0, "cpu_some_pct": 100.0, "disk_read_ms": 1.99}
    assert host.stalled({**timed, "host": calm}) == []
    slow_write = {"disk_read_ms": None, "disk_write_ms": 2.0}
    assert host.stalled({**timed, "host": slow_write}) == ["disk 2.00 ms a write"]
    # a copy times nothing: its slow disk is its own reading of the golden image
    assert host.stalled({"kind": "copy", "client": {"write_bytes": 1}, "host": shares}) == []


def test_a_host_without_psi_or_a_disk_file_gives_no_figures_rather_than_zeros(tmp_path: Path) -> None:
    (tmp_path / "stat").write_text(STAT.format(user=1, steal=0), encoding="ascii")
    before = host.sample(tmp_path / "no-disk", pressure=tmp_path / "absent", stat=tmp_path / "stat")
    assert before.disk is None and before.stalls == {}
    after = host.Sample(before.when + 1, {}, before.steal, (before.jiffies or 0) + 100)
    assert host.since(before, after) == {"steal_pct": 0.0}
    (tmp_path / "stat").write_text("intr 1 2 3\n", encoding="ascii")
    assert host.sample(stat=tmp_path / "stat", pressure=tmp_path).steal is None
    idle = host.Sample(0.0, {}, None, None, (5, 5, 5, 5, 5))
    assert host.since(idle, host.Sample(2.0, {}, None, None, (5, 5, 5, 5, 5)))["disk_read_ms"] is None


def test_this_hosts_own_counters_for_the_disk_under_a_file(tmp_path: Path) -> None:
    disk = host.device_stat(tmp_path)
    before = host.sample(disk)
    (tmp_path / "f").write_bytes(b"x" * 65536)
    os.sync()  # some real I/O between the two samples
    shares = host.since(before, host.sample(disk))
    if Path("/proc/pressure/io").exists():
        assert {"io_some_pct", "io_full_pct", "cpu_some_pct"} <= shares.keys()
    if disk is not None:  # a disk-backed tmp (this lab's hosts); a tmpfs has no block device
        assert disk.parent.name.count(":") == 1 and shares["disk_busy_pct"] >= 0
    assert all(0.0 <= v <= 100.0 for k, v in shares.items() if k.endswith("_pct"))


def test_the_report_names_phases_run_on_a_slow_host_disk() -> None:
    timed = {"read_lat_ms": {"p95": 91.8}, "write_lat_ms": {"p95": 299.9}}
    stacks = {
        "bare-lun": {
            "phases": [{"phase": "work", "client": timed, "host": {"disk_read_ms": 8.1, "io_full_pct": 12.5}}]
        },
        "arcvsa": {
            "phases": [
                # a copy's reading of the golden image slows the host disk; its figures are bytes
                {"phase": "copy", "client": {"write_bytes": 1}, "host": {"disk_read_ms": 6.6}},
                {"phase": "work", "client": timed, "host": {"io_full_pct": 14.0}},
                {"phase": "density", "kind": "calibrate", "host": {"steal_pct": 10.0}},
            ]
        },
    }
    assert report.host_stalls(stacks) == [
        "  the host was slow during bare LUN (VMFS-like) work: disk 8.10 ms a read"
        " (the phase's figures are partly the host's)",
        "  the host was slow during arcvsa (tuned) density: steal 10.0 %"
        " (the phase's figures are partly the host's)",
    ]
