"""Linked clones booting over NFS as ESXi's client drives them: the boot trace replayed per clone, reads of
the shared replica, writes FILE_SYNC to the clone's own delta, each carrying real OS bytes.

fio's ``nfs`` engine sends UNSTABLE writes and never a COMMIT, and a boot's writes (logs, registry,
page file) are what a NAS may then keep in its page cache, acknowledged but not durable: no ESXi host
writes a VM's disk that way. Each clone here is a thread with its own libnfs context (as each fio job
has its own), its delta opened O_SYNC so that libnfs sends every WRITE with stable_how FILE_SYNC
(bench.syncwrite). A clone replays its ops in order, each as soon as the one before answered (fio's
``replay_no_stall``, queue depth 1): a storm, as fast as the datastore answers.
"""

from __future__ import annotations

import ctypes
import os
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.syncwrite import Bytes, Mount, SyncWriteError, libnfs, percentile_ms, pool


@dataclass(frozen=True)
class Plan:
    url: str  # the export: nfs://HOST/EXPORT?nfsport=N&mountport=M
    replica: str  # the file every clone reads
    deltas: list[str]  # one per clone, made by its first write
    ops: list[tuple[float, str, int, int]]  # a clone's boot (bench.job.clone_ops), the same for each
    samples: list[Path]
    seed: int = 7


@dataclass
class _Clone:
    delta: str
    reads_ns: list[int] = field(default_factory=list)
    writes_ns: list[int] = field(default_factory=list)
    read_bytes: int = 0
    write_bytes: int = 0
    error: str | None = None


class Clones:
    """The plan's clones booting side by side: ``start`` mounts and opens every file, then lets them all
    go at once; ``join`` waits for the last clone and returns the figures, in the shape of fio's."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.lib = libnfs()
        self.pool = pool(plan.samples)
        self.clones = [_Clone(d) for d in plan.deltas]
        self.go = threading.Event()
        self.ready = threading.Barrier(len(plan.deltas) + 1)
        self.threads = [
            threading.Thread(target=self._run, args=(c, plan.seed + i), name=f"clone-{i}", daemon=True)
            for i, c in enumerate(self.clones)
        ]
        self.began = 0.0

    def start(self) -> None:
        for t in self.threads:
            t.start()
        self.ready.wait(timeout=300)  # every clone mounted and opened its files (or failed)
        self.began = time.monotonic()
        self.go.set()

    def join(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for t in self.threads:
            t.join(timeout=max(0.0, deadline - time.monotonic()))
        if any(t.is_alive() for t in self.threads):
            raise SyncWriteError(f"the clones had not booted {timeout:.0f} s after they started")
        reads = sorted(ns for c in self.clones for ns in c.reads_ns)
        writes = sorted(ns for c in self.clones for ns in c.writes_ns)

        def lat(ns: list[int]) -> dict[str, float | None]:
            return {k: percentile_ms(ns, q) for k, q in (("p50", 50), ("p95", 95), ("p99", 99))} if ns else {}

        return {
            "writes": "FILE_SYNC (libnfs, O_SYNC)",
            "read_ios": len(reads),
            "read_bytes": sum(c.read_bytes for c in self.clones),
            "read_lat_ms": lat(reads),
            "write_ios": len(writes),
            "write_bytes": sum(c.write_bytes for c in self.clones),
            "write_lat_ms": lat(writes),
            "seconds": round(time.monotonic() - self.began, 1),
            "errors": [f"{c.delta}: {c.error}" for c in self.clones if c.error],
        }

    def _run(self, clone: _Clone, seed: int) -> None:
        mount = None
        try:
            try:
                mount = Mount(self.lib, self.plan.url)
                replica = mount.open(self.plan.replica, os.O_RDONLY)
                delta = mount.open(clone.delta, os.O_RDWR | os.O_CREAT | os.O_SYNC)
                data = Bytes(self.pool, random.Random(seed))  # noqa: S311 (a workload, not a secret)
            finally:
                self.ready.wait(timeout=300)
            self.go.wait()
            self._boot(clone, mount, replica, delta, data)
        except (SyncWriteError, threading.BrokenBarrierError) as exc:
            clone.error = str(exc)
        finally:
            if mount is not None:
                mount.close()

    def _boot(
        self, clone: _Clone, mount: Mount, replica: ctypes.c_void_p, delta: ctypes.c_void_p, data: Bytes
    ) -> None:
        lib, nfs = self.lib, mount.nfs
        largest = max((length for _, op, _, length in self.plan.ops if op == "r"), default=0)
        buf = ctypes.create_string_buffer(max(largest, 1))
        for _, op, offset, length in self.plan.ops:
            if op == "r":
                sent = time.perf_counter_ns()
                done = lib.nfs_pread(nfs, replica, offset, length, buf)
                took = time.perf_counter_ns() - sent
                if done < 0:
                    raise SyncWriteError(f"read of {length} at {offset}: {mount.error() or done}")
                clone.reads_ns.append(took)
                clone.read_bytes += done
            else:
                chunk = data.slice(length)
                sent = time.perf_counter_ns()
                done = lib.nfs_pwrite(nfs, delta, offset, length, chunk)
                took = time.perf_counter_ns() - sent
                if done != length:
                    raise SyncWriteError(f"write of {length} at {offset}: {mount.error() or done}")
                clone.writes_ns.append(took)
                clone.write_bytes += length
