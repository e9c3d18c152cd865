"""fio job files for a phase on a stack: one section per simulated desktop (or per desktop and direction).

The same job runs on every stack; only where the bytes go differs. Over NFS (``nfs`` engine, libnfs,
a userspace client like ESXi's) each desktop has its own delta file next to the shared replica file.
On the bare LUN (``nbd`` engine) the replica sits at offset 0 and desktop i's delta right after it, at
``replica + i * delta``, so a desktop's writes never land on the replica or on another desktop.
The replica and the deltas' first layout are real OS bytes (the golden image, and ``buffer_pattern``
with 1 MiB samples of it at 1 MiB writes); small steady-state writes are incompressible (see mix()).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from appliance.control.calibration import mean_block
from bench.workload import Background, Phase

REPLICA = "replica.raw"


@dataclass(frozen=True)
class Target:
    """Where a job's I/O goes: an NFS export (``url``: libnfs URL of the export) or an NBD export."""

    engine: str  # "nfs" | "nbd"
    url: str


def delta_name(desktop: int) -> str:
    return f"delta-{desktop:03d}.raw"


def _ini(sections: list[tuple[str, dict[str, object]]]) -> str:
    lines: list[str] = []
    for name, options in sections:
        lines.append(f"[{name}]")
        lines += [f"{key}={value}" for key, value in options.items()]
        lines.append("")
    return "\n".join(lines)


def _engine(target: Target) -> dict[str, object]:
    if target.engine == "nfs":
        return {"ioengine": "nfs", "nfs_url": target.url}
    return {"ioengine": "nbd", "uri": target.url}


def _place(target: Target, name: str, offset: int, size: int) -> dict[str, object]:
    """A file on the export, or a region of the LUN."""
    if target.engine == "nfs":
        return {"filename": name, "size": size}
    return {"offset": offset, "size": size}


def byte_rate(iops: float, bssplit: str) -> int:
    """fio's ``rate`` for ``iops`` of a block-size mix: ``rate_iops`` with a ``bssplit`` counts every
    I/O as the smallest size and so under-delivers."""
    return round(iops * mean_block(bssplit))


def deltas(target: Target, desktops: int, replica_bytes: int, delta_bytes: int, samples: list[Path]) -> str:
    """Write every desktop's delta once, sequentially (set-up, outside the measured window)."""
    # No end_fsync: fio's nfs engine has no fsync ("unhandled io 3") and fails the job.
    sections: list[tuple[str, dict[str, object]]] = [
        ("global", {**_engine(target), "rw": "write", "bs": "1m", "iodepth": 1})
    ]
    for i in range(desktops):
        place = _place(target, delta_name(i), replica_bytes + i * delta_bytes, delta_bytes)
        sections.append((f"delta-{i}", {**place, "buffer_pattern": f"'{samples[i % len(samples)]}'"}))
    return _ini(sections)


def mix(
    target: Target, phase: Phase, desktops: int, replica_bytes: int, samples: list[Path], seed: int = 7
) -> str:
    """Steady work: per desktop a reader of the replica and a writer of its delta, each at its rate.

    Arrivals are Poisson (``rate_process=poisson``), as independent users' I/O is, not a metronome.
    Rates are in bytes (see :func:`byte_rate`).
    """
    delta_bytes = phase.delta_mib << 20
    read_iops = phase.iops_per_desktop * phase.read_pct / 100
    write_iops = phase.iops_per_desktop - read_iops
    common: dict[str, object] = {
        **_engine(target),
        "time_based": 1,
        "runtime": phase.seconds,
        "iodepth": 1,
        "rate_process": "poisson",
        "randseed": seed,
        "norandommap": 1,
        "group_reporting": 1,
    }
    sections: list[tuple[str, dict[str, object]]] = [("global", common)]
    for i in range(desktops):
        if read_iops:
            reader = _place(target, REPLICA, 0, replica_bytes)
            reader.update(
                rw="randread", bssplit=phase.read_bs, rate=f"{byte_rate(read_iops, phase.read_bs)},0"
            )
            sections.append((f"desktop-{i}-read", reader))
        if write_iops:
            writer = _place(target, delta_name(i), replica_bytes + i * delta_bytes, delta_bytes)
            # Fresh incompressible bytes per write: fio repeats one pattern in every write of a job,
            # and 4-8K copies of one sample in a 16K record compress 5-31x instead of real data's
            # 1.3-3.9x. Random content gives the pool no compression credit: a lower bound.
            writer.update(
                rw="randwrite",
                bssplit=phase.write_bs,
                rate=f"0,{byte_rate(write_iops, phase.write_bs)}",
                refill_buffers=1,
            )
            if phase.write_spread != "random":
                writer["random_distribution"] = phase.write_spread
            sections.append((f"desktop-{i}-write", writer))
    return _ini(sections)


def background(url: str, load: Background, size_bytes: int, seconds: int) -> str:
    """The competing VMs' Iometer-like load on their own LUN of the array (nbd engine)."""
    write_iops = round(load.iops * load.write_pct / 100)
    options: dict[str, object] = {
        "ioengine": "nbd",
        "uri": url,
        "rw": "randrw",
        "rwmixwrite": load.write_pct,
        "percentage_random": load.random_pct,
        "bs": f"{load.block_kib}k",
        "rate_iops": f"{load.iops - write_iops},{write_iops}",
        "rate_process": "poisson",
        "size": size_bytes,
        "iodepth": 4,
        "time_based": 1,
        "runtime": seconds,
    }
    return _ini([("background", options)])


def clone_iolog(
    ops: list[tuple[float, str, int, int]],
    target: Target,
    desktop: int,
    replica_bytes: int,
    delta_bytes: int,
    out: Path,
) -> Path:
    """A fio iolog v3 of one linked clone's boot: the trace's reads hit the replica, its writes the
    clone's own delta (offset modulo the delta size), as a linked clone's disk chain does.

    Reads past the replica's end (the smoke run cuts the replica) are left out. Over NBD both go to
    the one LUN, the delta at ``replica + desktop * delta``.
    """
    if target.engine == "nfs":
        read_file, write_file, write_base = REPLICA, delta_name(desktop), 0
    else:
        read_file = write_file = "lun"
        write_base = replica_bytes + desktop * delta_bytes
    files = [read_file] if read_file == write_file else [read_file, write_file]
    lines = ["fio version 3 iolog", *(f"0 {f} add" for f in files), *(f"0 {f} open" for f in files)]
    last = 0
    for t, op, offset, length in ops:
        stamp = max(1, round(t * 1e6))
        if op == "r":
            if offset + length > replica_bytes:
                continue
            lines.append(f"{stamp} {read_file} read {offset} {length}")
        else:
            start = write_base + offset % max(delta_bytes - length, 1)
            lines.append(f"{stamp} {write_file} write {start} {length}")
        last = stamp
    lines += [f"{last} {f} close" for f in files]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def replay(target: Target, iologs: list[Path]) -> str:
    """All clones at once, each replaying its iolog as fast as the stack answers (a storm); the
    boot's small writes carry incompressible bytes, as in mix()."""
    # iodepth 1: at a deeper queue fio silently skips the last iodepth-1 writes of a replayed log.
    common: dict[str, object] = {**_engine(target), "replay_no_stall": 1, "iodepth": 1, "group_reporting": 1}
    sections: list[tuple[str, dict[str, object]]] = [("global", common)]
    for i, log in enumerate(iologs):
        sections.append((f"clone-{i}", {"read_iolog": str(log), "refill_buffers": 1}))
    return _ini(sections)
