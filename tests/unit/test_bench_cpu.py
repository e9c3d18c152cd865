"""Where an appliance phase's CPU went (bench.cpu): the guest's /proc/stat and /proc/PID/stat, two
samples apart, split by component and divided by the clients' I/O."""

from __future__ import annotations

import pytest

from bench import cpu


def _stat(
    user: int, system: int, idle: int, iowait: int = 0, irq: int = 0, softirq: int = 0, uptime: float = 100.0
) -> str:
    total = f"cpu  {user} 0 {system} {idle} {iowait} {irq} {softirq} 0 0 0"
    return "\n".join(
        [
            f"{uptime:.2f} {idle / 100:.2f}",
            total,
            f"cpu0 {user // 2} 0 {system // 2} {idle // 2} 0 0 0 0 0 0",
            f"cpu1 {user - user // 2} 0 {system - system // 2} {idle - idle // 2} 0 0 0 0 0 0",
            "intr 12345 0 0",
            "ctxt 999",
            "softirq 100 1 2 3",
        ]
    )


def _task(pid: int, comm: str, utime: int, stime: int) -> str:
    # pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    return f"{pid} ({comm}) S 1 {pid} {pid} 0 -1 4194560 10 0 0 0 {utime} {stime} 0 0 20 0 1 0 100"


def test_a_sample_reads_the_cpu_columns_and_every_tasks_time() -> None:
    text = "\n".join([_task(7, "nfsd", 10, 30), _stat(100, 50, 850), _task(9, "tmux: server (x)", 1, 2)])
    sample = cpu.parse(text)
    assert sample.cpus == 2 and sample.columns[:4] == (100, 0, 50, 850) and sample.uptime == 100.0
    assert sample.tasks == {(7, "nfsd"): 40, (9, "tmux: server (x)"): 3}  # a comm with spaces and parens


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "no /proc/stat cpu lines"),
        (_stat(1, 1, 1).split("\n", 1)[1], "no /proc/uptime line"),
        (_task(1, "init", 1, 1), "no /proc/stat cpu lines"),
        (_stat(1, 1, 1) + "\n" + _stat(1, 1, 1), "twice"),
        (_stat(1, 1, 1) + "\n12 (short) S 1 2", "not a /proc/PID/stat line"),
    ],
)
def test_a_sample_that_is_not_procs_is_refused(text: str, reason: str) -> None:
    with pytest.raises(cpu.CpuError, match=reason):
        cpu.parse(text)


def test_threads_are_told_apart_by_their_names() -> None:
    assert cpu.component("nfsd") == cpu.component("ganesha.nfsd") == "nfs server"
    assert cpu.component("z_wr_iss") == cpu.component("txg_sync") == cpu.component("l2arc_feed") == "zfs"
    assert cpu.component("ksoftirqd/1") == "interrupts"
    assert cpu.component("kworker/u4:2-events_unbound") == "kernel workers"
    assert cpu.component("sshd") == "measurement (ssh)"
    assert cpu.component("python3.13") == cpu.component("python") == cpu.component("arcvsa-control")
    assert cpu.component("uvicorn") == "appliance services"
    assert cpu.component("systemd") is None and cpu.component("znfsd") is None


def test_busy_time_is_split_by_component_and_divided_by_the_clients_io() -> None:
    before = cpu.parse(
        "\n".join([_stat(1000, 500, 8000), _task(7, "nfsd", 100, 200), _task(8, "txg_sync", 0, 50)])
    )
    after = cpu.parse(
        "\n".join(
            [
                # 5.5 s on 2 CPUs: 1100 ticks, 500 idle and 100 iowait: 500 busy (the tick-sampled
                # user, system, irq and softirq columns say 450: busy is not taken from them)
                _stat(1100, 800, 8500, iowait=100, irq=10, softirq=40, uptime=105.5),
                _task(7, "nfsd", 120, 380),  # +200
                _task(8, "txg_sync", 0, 80),  # +30
                _task(31, "kworker/0:1", 0, 20),  # born in the window: all 20
                _task(40, "systemd", 5, 5),  # no component: in "other"
            ]
        )
    )
    used = cpu.per_io(
        before, after, {"read_ios": 600, "write_ios": 300, "read_bytes": 2 << 20, "write_bytes": 1 << 20}
    )
    assert (
        used["busy_seconds"] == 5.0 and used["busy_pct"] == round(100 * 500 / 1100, 1) and used["cpus"] == 2
    )
    parts = used["components"]
    assert parts["nfs server"] == 2.0 and parts["zfs"] == 0.3 and parts["kernel workers"] == 0.2
    assert parts["interrupts"] == 0.5  # irq + softirq
    assert parts["other"] == 2.0  # 5.0 - 2.0 - 0.3 - 0.2 - 0.5
    assert used["other_tasks"] == {"systemd": 0.1}  # of "other", the tasks that lived in the window
    assert used["ms_per_io"] == round(5000 / 900, 3) and used["ms_per_mib"] == round(5000 / 3, 1)
    idle = cpu.per_io(before, after, {"read_ios": 0, "write_ios": 0})
    assert idle["ms_per_io"] is None and idle["ms_per_mib"] is None


def test_the_table_gives_cpu_per_io_and_where_it_went() -> None:
    from bench import report

    used = {"busy_seconds": 80.0, "busy_pct": 80.0, "cpus": 2, "ms_per_io": 1.26, "ms_per_mib": 95.0,
            "components": {"nfs server": 52.0, "zfs": 12.0, "interrupts": 8.0, "other": 8.0, "zfs-idle": 0},
            "other_tasks": {"systemd-journal": 1.5, "chronyd": 0.25}}  # fmt: skip
    row = {"phase": "clone-boot", "kind": "trace", "cpu": used, "client": {"iops": 1400.0}}
    (line,) = report.cpu_split({"arcvsa": {"phases": [row, {"phase": "copy", "kind": "copy"}]}})
    assert line.startswith(
        "  CPU of arcvsa (tuned) clone-boot: 80.0 s busy (80.0 % of 2 vCPUs), 1.26 ms per I/O"
    )
    assert line.endswith(  # largest first, none at 0
        "nfs server 65 %, zfs 15 %, interrupts 10 %, other 10 % (other's largest: systemd-journal 1.5 s, chronyd 0.25 s)"
    )
    table = report.table({"provisioning-storm": {"arcvsa": {"desktops": 24, "san": {"name": "raid5-9"},
                                                            "phases": [row]}}})  # fmt: skip
    head, values = table.splitlines()[2:4]
    assert "CPU ms/IO" in head and "CPU busy" in head and values.split()[-2:] == ["1.26", "80.0%"]
