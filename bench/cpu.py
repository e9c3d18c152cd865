"""Where a phase's CPU went inside an appliance VM, from the guest's own accounting, per client I/O.

Under TCG a guest's absolute latencies say little about real hardware, but the CPU an I/O costs the
guest (its kernel and its services, in the guest's own ticks) moves over with the code that spends it:
a stack that spends half the CPU per I/O needs half the cores for the same desktops. A sample is
/proc/uptime, /proc/stat's CPU lines and every process's /proc/PID/stat (comm, utime, stime), read in
one SSH call; two samples give the busy seconds of the guest and of each component below.

Busy time is the guest's elapsed time on every CPU less its idle and iowait time: those two columns are
measured at each idle entry and exit, where /proc/stat's user and system columns are sampled at timer
ticks, and a guest under TCG loses ticks when the host is busy, so those columns undercount. A task's
utime plus stime is its measured run time too. Processes that started
and ended between the samples (the bench's own short commands, mostly) and time the kernel kept for no
task fall into "other"; interrupts (network and disk completions) are /proc/stat's irq and softirq.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: how the guest's threads are told apart, by their comm: exact names, then prefixes
COMPONENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "nfs server": (("nfsd", "ganesha.nfsd", "lockd", "rpc.mountd", "rpc.statd", "rpcbind"), ("nfsd",)),
    "zfs": (
        ("mmp",),
        ("z_", "txg_", "zil_", "arc_", "l2arc_", "dbu_", "dbuf_", "spl_", "zthr", "dp_", "vdev_", "zvol"),
    ),
    "kernel workers": ((), ("kworker/", "kswapd", "jbd2/", "xfs")),
    # Debian's python3 runs as python3.N: the api, the metrics poller, the control service
    "appliance services": (("uvicorn", "nft"), ("arcvsa", "python")),
    "measurement (ssh)": (("sshd", "sshd-session", "find", "cat", "zpool", "zfs"), ()),
}
#: softirq threads run the interrupts' deferred work: counted with the interrupts themselves
SOFTIRQ_THREADS = "ksoftirqd/"
#: /proc/stat's columns after the "cpu" label: user nice system idle iowait irq softirq steal
IDLE, IOWAIT, IRQ, SOFTIRQ = 3, 4, 5, 6
FIELDS = 8
OTHERS_SHOWN = 3


class CpuError(ValueError):
    """A sample that is not /proc/stat and /proc/PID/stat as Linux writes them."""


@dataclass(frozen=True)
class Sample:
    """One moment's cumulative ticks: the guest's CPU columns, its CPU count and each process's time."""

    hz: int
    cpus: int
    uptime: float  # the guest's seconds since boot
    columns: tuple[int, ...]
    tasks: dict[tuple[int, str], int] = field(default_factory=dict)  # (pid, comm) -> utime + stime


def parse(text: str, hz: int = 100) -> Sample:
    """/proc/uptime's line, /proc/stat's and /proc/PID/stat lines, in any order, as ``cat`` prints them."""
    columns: tuple[int, ...] | None = None
    uptime: float | None = None
    cpus = 0
    tasks: dict[tuple[int, str], int] = {}
    for line in text.splitlines():
        if "(" not in line and len(line.split()) == 2 and line[:1].isdigit():  # /proc/uptime
            uptime = float(line.split()[0])
        elif line.startswith("cpu "):
            if columns is not None:
                raise CpuError("/proc/stat twice in one sample")
            columns = tuple(int(v) for v in line.split()[1 : FIELDS + 1])
        elif line.startswith("cpu") and line[3:4].isdigit():
            cpus += 1
        elif line[:1].isdigit():
            pid, _, rest = line.partition(" (")
            comm, _, after = rest.rpartition(") ")  # a comm may hold spaces and parentheses
            values = after.split()
            if not pid.isdigit() or len(values) < 13:
                raise CpuError(f"not a /proc/PID/stat line: {line[:120]!r}")
            tasks[(int(pid), comm)] = int(values[11]) + int(values[12])  # utime, stime (fields 14, 15)
    if columns is None or len(columns) < FIELDS or not cpus:
        raise CpuError("no /proc/stat cpu lines in the sample")
    if uptime is None:
        raise CpuError("no /proc/uptime line in the sample")
    return Sample(hz=hz, cpus=cpus, uptime=uptime, columns=columns, tasks=tasks)


def component(comm: str) -> str | None:
    if comm.startswith(SOFTIRQ_THREADS):
        return "interrupts"
    for name, (exact, prefixes) in COMPONENTS.items():
        if comm in exact or comm.startswith(prefixes):
            return name
    return None


def used(before: Sample, after: Sample) -> dict[str, Any]:
    """Busy seconds of the guest between two samples, split by component (seconds each, 'other' the
    rest), and the share of its CPUs it kept busy."""
    ticks = [a - b for a, b in zip(after.columns, before.columns, strict=True)]
    total = round((after.uptime - before.uptime) * after.cpus * after.hz)
    busy = min(total, max(0, total - ticks[IDLE] - ticks[IOWAIT]))
    split = {name: 0 for name in (*COMPONENTS, "interrupts")}
    split["interrupts"] = ticks[IRQ] + ticks[SOFTIRQ]
    unnamed: dict[str, int] = {}
    for key, spent in after.tasks.items():
        name = component(key[1])
        took = spent - before.tasks.get(key, 0)  # a task born in the window: all of it
        if name is not None:
            split[name] += took
        elif took:
            unnamed[key[1]] = unnamed.get(key[1], 0) + took
    split["other"] = max(0, busy - sum(split.values()))
    top = sorted(unnamed.items(), key=lambda kv: -kv[1])[:OTHERS_SHOWN]
    return {
        "busy_seconds": round(busy / after.hz, 2),
        "busy_pct": round(100 * busy / total, 1) if total else None,
        "cpus": after.cpus,
        "components": {name: round(t / after.hz, 2) for name, t in split.items()},
        # what "other" holds of the tasks that lived through the window, largest first
        "other_tasks": {comm: round(t / after.hz, 2) for comm, t in top},
    }


def per_io(before: Sample, after: Sample, client: dict[str, Any]) -> dict[str, Any]:
    """The guest's CPU between two samples, per client I/O and per MiB moved (None without I/O)."""
    figures = used(before, after)
    ios = int(client.get("read_ios", 0)) + int(client.get("write_ios", 0))
    mib = (int(client.get("read_bytes", 0)) + int(client.get("write_bytes", 0))) / (1 << 20)
    busy_ms = figures["busy_seconds"] * 1000
    figures["ms_per_io"] = round(busy_ms / ios, 3) if ios else None
    figures["ms_per_mib"] = round(busy_ms / mib, 1) if mib else None
    return figures
