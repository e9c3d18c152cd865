"""fio job files for a phase on a stack: one section per simulated desktop (or per desktop and direction).

The same job runs on every stack; only where the bytes go differs. Over NFS (``nfs`` engine, libnfs,
a userspace client like ESXi's) each desktop has its own delta file next to the shared replica file.
On the bare LUN (``nbd`` engine) the replica sits at offset 0 and desktop i's delta right after it, at
``replica + i * delta``, so a desktop's writes never land on the replica or on another desktop.
The replica and the deltas' first layout are real OS bytes (the golden image, and ``buffer_pattern``
with 1 MiB samples of it at 1 MiB writes); fio's small writes are incompressible (see mix()), so a
steady state's writes over NFS are bench.syncwrite's: FILE_SYNC, a slice of the golden image each.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.workload import Background, Phase

REPLICA = "replica.raw"
NEXT_REPLICA = "replica-next.raw"  # a recompose's new replica, beside the first


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


def poisson_rate(iops: float, bssplit: str) -> int:
    """fio ``rate`` (bytes/s) for ``iops`` Poisson arrivals of a block-size mix, rounded to whole I/Os.

    With rate_process=poisson fio turns a byte rate into whole I/Os per second by dividing it by the
    mix's smallest block (usec_for_io in its backend; a quotient of 0 divides by zero and the job dies
    of SIGFPE). So the rate is whole IOPS times that smallest block: a rate at the mean block would run
    a 4k/50:8k/50 mix 1.5x too fast (mean over smallest), a mix from 512 bytes up many times too fast.
    """
    if iops <= 0:
        return 0
    return max(1, round(iops)) * min(block_bytes(part.split("/")[0]) for part in bssplit.split(":"))


def deltas(target: Target, desktops: int, replica_bytes: int, delta_bytes: int, samples: list[Path]) -> str:
    """Write every desktop's delta once, sequentially (set-up, outside the measured window)."""
    return deltas_like(target, desktops, replica_bytes, delta_bytes, samples, delta_name)


def deltas_like(
    target: Target, count: int, base: int, each: int, samples: list[Path], name: Callable[[int], str]
) -> str:
    """``count`` files (or LUN regions from ``base``) of ``each`` bytes, written once in 1 MiB real
    samples of the golden image."""
    # No end_fsync: fio's nfs engine has no fsync ("unhandled io 3") and fails the job.
    sections: list[tuple[str, dict[str, object]]] = [
        ("global", {**_engine(target), "rw": "write", "bs": "1m", "iodepth": 1})
    ]
    for i in range(count):
        place = _place(target, name(i), base + i * each, each)
        sections.append((f"file-{i}", {**place, "buffer_pattern": f"'{samples[i % len(samples)]}'"}))
    return _ini(sections)


def mix(
    target: Target, phase: Phase, desktops: int, replica_bytes: int, samples: list[Path], seed: int = 7
) -> str:
    """Steady work: per desktop a reader of the replica and a writer of its delta, each at its rate.

    Arrivals are Poisson (``rate_process=poisson``), as independent users' I/O is, not a metronome.
    Each job runs at whole I/Os per second (see :func:`poisson_rate`). With ``sync_writes`` over NFS
    the writers are bench.syncwrite's, not fio's: the job has the readers only.
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
                rw="randread", bssplit=phase.read_bs, rate=f"{poisson_rate(read_iops, phase.read_bs)},0"
            )
            sections.append((f"desktop-{i}-read", reader))
        if write_iops and not synced_writes(target, phase):
            writer = _place(target, delta_name(i), replica_bytes + i * delta_bytes, delta_bytes)
            # Fresh incompressible bytes per write: fio repeats one pattern in every write of a job,
            # and 4-8K copies of one sample in a 16K record compress 5-31x instead of real data's
            # 1.3-3.9x. Random content gives the pool no compression credit: a lower bound.
            writer.update(
                rw="randwrite",
                bssplit=phase.write_bs,
                rate=f"0,{poisson_rate(write_iops, phase.write_bs)}",
                refill_buffers=1,
            )
            if phase.write_spread != "random":
                writer["random_distribution"] = phase.write_spread
            sections.append((f"desktop-{i}-write", writer))
    return _ini(sections)


def synced_writes(target: Target, phase: Phase) -> bool:
    """Whether a mix's writes are bench.syncwrite's FILE_SYNC writers (NFS only: on the bare LUN a write
    is the LUN's, fio's nbd engine sends it as the VM's would)."""
    return phase.sync_writes and target.engine == "nfs"


def sweep_points(phase: Phase) -> list[tuple[int, str, int]]:
    """(clients, block size, queue depth) of every point of a sweep, in the order they run."""
    return list(itertools.product(phase.clients, phase.block_sizes, phase.iodepths))


def sweep_name(client: int) -> str:
    return f"sweep-{client:02d}.raw"


#: from this block size a sweep's writes carry real bytes (a 1 MiB sample of the golden image): every
#: write repeats its job's one pattern, and below the largest recordsize (OpenZFS's default, 128K)
#: the copies would share a record and compress as no real data does
REAL_WRITES_FROM = 128 << 10


def block_bytes(size: str) -> int:
    units = {"k": 1 << 10, "m": 1 << 20}
    unit = units.get(size[-1].lower(), 1)
    return int(size.rstrip("kKmM")) * unit


def sweep_layout(target: Target, phase: Phase, base: int, samples: list[Path]) -> str:
    """Each client's file written once with real bytes before any point is measured."""
    return deltas_like(target, max(phase.clients), base, phase.file_mib << 20, samples, sweep_name)


def sweep_point(
    target: Target, phase: Phase, point: tuple[int, str, int], base: int, samples: list[Path], seed: int = 7
) -> str:
    """One point of a sweep: ``clients`` jobs, each on its own file, at the point's block size and depth."""
    clients, size, depth = point
    size_bytes = phase.file_mib << 20
    common: dict[str, object] = {
        **_engine(target),
        "rw": phase.rw,
        "bs": size,
        "iodepth": depth,
        "time_based": 1,
        "runtime": phase.seconds,
        "randseed": seed,
        "norandommap": 1,
        "group_reporting": 1,
    }
    if phase.rw in ("rw", "randrw"):
        common["rwmixread"] = phase.read_pct
    sections: list[tuple[str, dict[str, object]]] = [("global", common)]
    for i in range(clients):
        place = _place(target, sweep_name(i), base + i * size_bytes, size_bytes)
        if block_bytes(size) >= REAL_WRITES_FROM:
            place["buffer_pattern"] = f"'{samples[i % len(samples)]}'"
        else:
            place["refill_buffers"] = 1  # incompressible: a lower bound, as in mix()
        sections.append((f"client-{i}", place))
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


def clone_ops(
    ops: list[tuple[float, str, int, int]], replica_bytes: int, delta_bytes: int
) -> list[tuple[float, str, int, int]]:
    """One linked clone's boot as (seconds, op, offset, length): the trace's reads hit the replica, its writes the
    clone's own delta (offset modulo the delta size), as a linked clone's disk chain does. Reads past the
    replica's end (the smoke run cuts the replica) are left out; write offsets are within the delta."""
    out = []
    for t, op, offset, length in ops:
        if op == "r":
            if offset + length <= replica_bytes:
                out.append((t, "r", offset, length))
        else:
            out.append((t, "w", offset % max(delta_bytes - length, 1), length))
    return out


def clone_iolog(
    ops: list[tuple[float, str, int, int]],
    target: Target,
    desktop: int,
    replica_bytes: int,
    delta_bytes: int,
    out: Path,
) -> Path:
    """A fio iolog v3 of one linked clone's boot (:func:`clone_ops`). Over NBD the replica and the
    deltas share the one LUN, the delta at ``replica + desktop * delta``."""
    if target.engine == "nfs":
        read_file, write_file, write_base = REPLICA, delta_name(desktop), 0
    else:
        read_file = write_file = "lun"
        write_base = replica_bytes + desktop * delta_bytes
    files = [read_file] if read_file == write_file else [read_file, write_file]
    lines = ["fio version 3 iolog", *(f"0 {f} add" for f in files), *(f"0 {f} open" for f in files)]
    last = 0
    for t, op, offset, length in clone_ops(ops, replica_bytes, delta_bytes):
        stamp = max(1, round(t * 1e6))
        if op == "r":
            lines.append(f"{stamp} {read_file} read {offset} {length}")
        else:
            lines.append(f"{stamp} {write_file} write {write_base + offset} {length}")
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
