"""Desktops' writes as ESXi sends them to an NFS datastore: FILE_SYNC, real OS bytes in every write.

fio's ``nfs`` engine sends UNSTABLE writes and never a COMMIT (engines/nfs.c), and repeats one buffer
pattern in every write of a job, so its steady-state writes were neither durable nor real data: a NAS
could hold them in its page cache, and only random bytes kept compression honest. Each desktop here is a
thread with its own libnfs context (the host's libnfs, through ctypes), its delta file opened O_SYNC:
libnfs then sends every WRITE with stable_how FILE_SYNC, as ESXi's NFS client does for a VM's disk, and
the latency measured is the one a guest waits for. Arrivals are Poisson at the desktop's write rate, block
sizes follow the phase's mix, offsets a Zipf spread over the delta (a guest's hot page file, logs and
profile), and each write carries a different slice of the golden image's samples.
"""

from __future__ import annotations

import bisect
import ctypes
import ctypes.util
import os
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.job import block_bytes

BLOCK = 4096  # a guest's file-system block: offsets and slices are aligned to it


class SyncWriteError(RuntimeError):
    """libnfs is missing, or a desktop could not mount, open or write."""


@dataclass(frozen=True)
class Plan:
    url: str  # the export: nfs://HOST/EXPORT?nfsport=N&mountport=M
    files: list[str]  # one delta file per desktop
    seconds: float
    iops: float  # writes per second per desktop
    sizes: list[tuple[int, int]]  # (bytes, share) from the phase's write_bs
    delta_bytes: int
    spread: str  # "random" or "zipf:THETA"
    samples: list[Path]
    seed: int = 7


def sizes(bssplit: str) -> list[tuple[int, int]]:
    """fio's bssplit (``4k/50:8k/50``) as (bytes, share); a size must be whole guest blocks."""
    out = []
    for part in bssplit.split(":"):
        size, _, share = part.partition("/")
        nbytes = block_bytes(size)
        if nbytes % BLOCK:
            raise SyncWriteError(f"{size}: sync writes are whole {BLOCK}-byte blocks")
        out.append((nbytes, int(share or 100)))
    return out


class Offsets:
    """Block numbers of a delta drawn uniformly or by Zipf rank, the ranks scattered over the file (as
    fio's zipf is): rank 1 is a hot block somewhere, not block 0."""

    def __init__(self, blocks: int, spread: str, rng: random.Random) -> None:
        self.rng, self.blocks = rng, blocks
        self.cdf: list[float] | None = None
        if spread != "random":
            kind, _, theta = spread.partition(":")
            if kind != "zipf" or not theta:
                raise SyncWriteError(f"{spread}: sync writes take random or zipf:THETA")
            weights = [1 / (rank ** float(theta)) for rank in range(1, blocks + 1)]
            total, running, self.cdf = sum(weights), 0.0, []
            for w in weights:
                running += w
                self.cdf.append(running / total)
            self.place = list(range(blocks))
            rng.shuffle(self.place)

    def next(self) -> int:
        if self.cdf is None:
            return self.rng.randrange(self.blocks)
        return self.place[min(bisect.bisect_left(self.cdf, self.rng.random()), self.blocks - 1)]


def pool(samples: list[Path]) -> bytes:
    """The golden image's samples in one buffer, read once for every desktop (8 MiB in the bench)."""
    joined = b"".join(p.read_bytes() for p in samples)
    if len(joined) < 2 * BLOCK:
        raise SyncWriteError("the golden samples are too small to draw writes from")
    return joined


class Bytes:
    """Slices of the golden image's samples: real OS data, a different block-aligned slice each write."""

    def __init__(self, pool: bytes, rng: random.Random) -> None:
        self.pool, self.rng = pool, rng

    def slice(self, size: int) -> bytes:
        start = self.rng.randrange((len(self.pool) - size) // BLOCK + 1) * BLOCK
        return self.pool[start : start + size]


def libnfs() -> ctypes.CDLL:
    """The host's libnfs. Only libnfs 4 (soname 13, Debian 12's: its header checked for the calls below)
    is taken: later releases moved nfs_pwrite's buffer argument, and a wrong order would write garbage."""
    name = ctypes.util.find_library("nfs")
    if name is None:
        raise SyncWriteError("libnfs is not installed (Debian's libnfs-utils brings it): make setup")
    if not name.endswith(".so.13"):
        raise SyncWriteError(f"{name}: only libnfs 4 (libnfs.so.13) is known to this writer")
    lib = ctypes.CDLL(name, use_errno=True)
    vp, cp = ctypes.c_void_p, ctypes.c_char_p
    lib.nfs_init_context.restype = vp
    lib.nfs_get_error.restype, lib.nfs_get_error.argtypes = cp, [vp]
    lib.nfs_parse_url_dir.restype, lib.nfs_parse_url_dir.argtypes = ctypes.POINTER(_Url), [vp, cp]
    lib.nfs_set_timeout.argtypes = [vp, ctypes.c_int]
    lib.nfs_mount.argtypes = [vp, cp, cp]
    lib.nfs_open2.argtypes = [vp, cp, ctypes.c_int, ctypes.c_int, ctypes.POINTER(vp)]
    lib.nfs_close.argtypes = [vp, vp]
    lib.nfs_destroy_url.argtypes = [ctypes.POINTER(_Url)]
    lib.nfs_destroy_context.argtypes = [vp]
    lib.nfs_pwrite.argtypes = [vp, vp, ctypes.c_uint64, ctypes.c_uint64, vp]  # nfs, fh, offset, count, buf
    lib.nfs_pread.argtypes = [vp, vp, ctypes.c_uint64, ctypes.c_uint64, vp]  # the same order
    return lib


class Mount:
    """One desktop's own libnfs context on the export (a connection of its own, as each fio job has),
    and the files it opened; ``close`` lets go of all of them."""

    def __init__(self, lib: ctypes.CDLL, url: str) -> None:
        self.lib = lib
        self.handles: list[ctypes.c_void_p] = []
        self.nfs = lib.nfs_init_context()
        self.url = None
        if not self.nfs:
            raise SyncWriteError("nfs_init_context failed")
        try:
            lib.nfs_set_timeout(self.nfs, 60000)
            self.url = lib.nfs_parse_url_dir(self.nfs, url.encode())
            if not self.url:
                raise SyncWriteError(f"bad url {url}: {self.error()}")
            if lib.nfs_mount(self.nfs, self.url.contents.server, self.url.contents.path) != 0:
                raise SyncWriteError(f"mount {url}: {self.error()}")
        except SyncWriteError:
            self.close()  # the caller never gets this object to close
            raise

    def open(self, name: str, flags: int) -> ctypes.c_void_p:
        """A file of the export (O_CREAT makes it, mode 0644); O_SYNC makes every WRITE FILE_SYNC."""
        handle = ctypes.c_void_p()
        if self.lib.nfs_open2(self.nfs, f"/{name}".encode(), flags, 0o644, ctypes.byref(handle)) != 0:
            raise SyncWriteError(f"open {name}: {self.error()}")
        self.handles.append(handle)
        return handle

    def error(self) -> str:
        return _error(self.lib, self.nfs)

    def close(self) -> None:
        for handle in self.handles:
            self.lib.nfs_close(self.nfs, handle)
        if self.url:
            self.lib.nfs_destroy_url(self.url)
        if self.nfs:
            self.lib.nfs_destroy_context(self.nfs)


class _Url(ctypes.Structure):
    _fields_ = [("server", ctypes.c_char_p), ("path", ctypes.c_char_p), ("file", ctypes.c_char_p)]


@dataclass
class _Desktop:
    file: str
    latencies_ns: list[int] = field(default_factory=list)
    extents: list[tuple[float, int, int]] = field(default_factory=list)  # (seconds in, offset, bytes)
    written: int = 0
    error: str | None = None


class Desktops:
    """The plan's desktops writing side by side: ``start`` mounts and opens every delta, then lets them
    all go at once; ``join`` waits for the plan's seconds and returns the figures."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.lib = libnfs()
        self.pool = pool(plan.samples)
        self.desktops = [_Desktop(f) for f in plan.files]
        self.go = threading.Event()
        self.ready = threading.Barrier(len(plan.files) + 1)
        self.threads = [
            threading.Thread(target=self._run, args=(d, plan.seed + i), name=f"syncwrite-{i}", daemon=True)
            for i, d in enumerate(self.desktops)
        ]

    def start(self) -> None:
        for t in self.threads:
            t.start()
        self.ready.wait(timeout=300)  # every desktop mounted and opened its delta (or failed)
        self.began = time.monotonic()
        self.go.set()

    def join(self) -> dict[str, Any]:
        for t in self.threads:
            t.join(timeout=self.plan.seconds + 300)
        if any(t.is_alive() for t in self.threads):
            raise SyncWriteError("a desktop's write did not come back (libnfs timeout is 60 s)")
        failed = [f"{d.file}: {d.error}" for d in self.desktops if d.error]
        latencies = sorted(ns for d in self.desktops for ns in d.latencies_ns)
        return {
            "writes": "FILE_SYNC (libnfs, O_SYNC)",
            "write_ios": len(latencies),
            "write_bytes": sum(d.written for d in self.desktops),
            "write_lat_ms": {
                k: percentile_ms(latencies, q) for k, q in (("p50", 50), ("p95", 95), ("p99", 99))
            },
            "errors": failed,
            # per desktop, for the write bound (bench.metrics.dirtied); kept out of the run's JSON
            "extents": [d.extents for d in self.desktops],
            "began": self.began,  # time.monotonic() at the extents' 0, to place the pool's txgs on
        }

    def _run(self, desk: _Desktop, seed: int) -> None:
        plan = self.plan
        rng = random.Random(seed)  # noqa: S311 (a workload, not a secret)
        mount = None
        try:
            try:
                mount = Mount(self.lib, plan.url)
                fh = mount.open(desk.file, os.O_RDWR | os.O_SYNC)
                offsets = Offsets(plan.delta_bytes // BLOCK, plan.spread, rng)
                data = Bytes(self.pool, rng)
            finally:
                self.ready.wait(timeout=300)
            self.go.wait()
            self._write(desk, mount, fh, offsets, data, rng)
        except (SyncWriteError, threading.BrokenBarrierError) as exc:
            desk.error = str(exc)
        finally:
            if mount is not None:
                mount.close()

    def _write(
        self,
        desk: _Desktop,
        mount: Mount,
        fh: ctypes.c_void_p,
        offsets: Offsets,
        data: Bytes,
        rng: random.Random,
    ) -> None:
        plan, lib, nfs = self.plan, self.lib, mount.nfs
        choices, shares = [s for s, _ in plan.sizes], [w for _, w in plan.sizes]
        blocks = plan.delta_bytes // BLOCK
        end = self.began + plan.seconds
        due = self.began
        while True:
            due += rng.expovariate(plan.iops)  # Poisson arrivals; a late answer is caught up, as fio's rate
            if due >= end:
                return
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            size = rng.choices(choices, shares)[0]
            block = min(offsets.next(), blocks - size // BLOCK)
            buf = data.slice(size)
            at = time.monotonic() - self.began
            sent = time.perf_counter_ns()
            done = lib.nfs_pwrite(nfs, fh, block * BLOCK, size, buf)
            took = time.perf_counter_ns() - sent
            if done != size:
                raise SyncWriteError(f"write of {size} at {block * BLOCK}: {mount.error() or done}")
            desk.latencies_ns.append(took)
            desk.extents.append((at, block * BLOCK, size))
            desk.written += size


def _error(lib: ctypes.CDLL, nfs: int) -> str:
    message = lib.nfs_get_error(nfs)
    return message.decode(errors="replace") if message else ""


def percentile_ms(sorted_ns: list[int], q: float) -> float | None:
    """The q-th percentile (nearest rank) in ms, as fio reports completion latency."""
    if not sorted_ns:
        return None
    rank = max(1, -(-len(sorted_ns) * q // 100))
    return round(sorted_ns[int(rank) - 1] / 1e6, 2)
