"""The lab's SAN: qemu-storage-daemon serving LUN files over NBD on a unix socket, throttled like an array.

Every LUN goes through one throttle group (the array's limit is shared, as on a real SAN). LUN files are
filled with data first: NBD answers holes without reading, so a sparse LUN would not feel the throttle.
QSD's own ``query-blockstats`` stays empty for NBD exports: count LUN I/O on the appliance's qemu (see
``appliance_vm``) and use :meth:`San.proc_io` as a cross-check.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lab.daemon import Daemon, spawn, wait_for_path
from lab.qmp import Qmp

FILL_CHUNK = 1 << 20


@dataclass(frozen=True)
class Throttle:
    """The array's limits, shared by all LUNs (a QEMU throttle group).

    ``iops_read``/``iops_write`` (set together) replace ``iops_total``: QEMU takes one or the other. An
    operation larger than ``iops_size`` counts as several (0: every operation counts once).
    """

    iops_total: int = 3000
    bps_total: int = 64 * 1024 * 1024
    iops_read: int = 0
    iops_write: int = 0
    iops_size: int = 0

    def group_options(self) -> str:
        """The throttle-group object's limits, as qemu's ``--object`` option list."""
        if self.iops_read or self.iops_write:
            limits = [f"x-iops-read={self.iops_read}", f"x-iops-write={self.iops_write}"]
        else:
            limits = [f"x-iops-total={self.iops_total}"]
        limits.append(f"x-bps-total={self.bps_total}")
        if self.iops_size:
            limits.append(f"x-iops-size={self.iops_size}")
        return ",".join(limits)


@dataclass(frozen=True)
class Lun:
    """A LUN: its export name (also the appliance disk's serial), backing file and size."""

    name: str
    path: Path
    size_bytes: int


def fill_lun(path: Path, size_bytes: int) -> None:
    """Create (or complete) a LUN file written with a non-zero pattern, so no block is a hole."""
    pattern = (b"arcvsa-lab-lun-filler-" * (FILL_CHUNK // 22 + 1))[:FILL_CHUNK]
    done = path.stat().st_size if path.exists() else 0
    done -= done % FILL_CHUNK
    with path.open("r+b" if path.exists() else "wb") as handle:
        handle.seek(done)
        while done < size_bytes:
            chunk = pattern[: min(FILL_CHUNK, size_bytes - done)]
            handle.write(chunk)
            done += len(chunk)
        handle.truncate(size_bytes)
        handle.flush()
        os.fsync(handle.fileno())


def make_luns(directory: Path, count: int, size_bytes: int) -> list[Lun]:
    """``count`` LUN files ``lun0.raw``… in ``directory``, kept if already complete."""
    directory.mkdir(parents=True, exist_ok=True)
    luns = []
    for index in range(count):
        path = directory / f"lun{index}.raw"
        if not path.exists() or path.stat().st_size != size_bytes:
            fill_lun(path, size_bytes)
        luns.append(Lun(f"lun{index}", path, size_bytes))
    return luns


def qsd_argv(luns: list[Lun], socket: Path, qmp: Path, pidfile: Path, throttle: Throttle) -> list[str]:
    """The qemu-storage-daemon command line for these LUNs."""
    argv = [
        "qemu-storage-daemon",
        "--chardev",
        f"socket,id=qmp0,path={qmp},server=on,wait=off",
        "--monitor",
        "chardev=qmp0",
        "--pidfile",
        str(pidfile),
        "--object",
        f"throttle-group,id=array,{throttle.group_options()}",
    ]
    for lun in luns:
        argv += [
            "--blockdev",
            f"driver=file,node-name={lun.name}-file,filename={lun.path},cache.direct=on",
            "--blockdev",
            f"driver=raw,node-name={lun.name}-raw,file={lun.name}-file",
            "--blockdev",
            f"driver=throttle,node-name={lun.name},throttle-group=array,file={lun.name}-raw",
        ]
    argv += ["--nbd-server", f"addr.type=unix,addr.path={socket}"]
    for lun in luns:
        argv += [
            "--export",
            f"type=nbd,id=export-{lun.name},node-name={lun.name},name={lun.name},writable=on",
        ]
    return argv


class San:
    """A running qemu-storage-daemon for a set of LUNs, its files under ``directory``.

    ``tied``: the daemon ends with this process (test fixtures), see :func:`lab.daemon.spawn`.
    """

    def __init__(
        self, directory: Path, luns: list[Lun], throttle: Throttle | None = None, *, tied: bool = False
    ) -> None:
        self.directory = directory
        self.tied = tied
        self.luns = luns
        self.throttle = throttle or Throttle()
        self.socket = directory / "san.sock"
        self.qmp_path = directory / "san.qmp"
        self.log = directory / "san.log"
        self.daemon: Daemon | None = None

    def start(self, timeout: float = 30.0) -> San:
        """Start the daemon and wait for its NBD and QMP sockets."""
        for stale in (self.socket, self.qmp_path):
            stale.unlink(missing_ok=True)
        pidfile = self.directory / "san.pid"
        argv = qsd_argv(self.luns, self.socket, self.qmp_path, pidfile, self.throttle)
        self.daemon = spawn(argv, log=self.log, marker=str(self.socket), tied=self.tied)
        wait_for_path(self.socket, self.daemon, timeout)
        wait_for_path(self.qmp_path, self.daemon, timeout)
        return self

    def qmp(self) -> Qmp:
        """A QMP connection to the daemon (close it when done)."""
        return Qmp(self.qmp_path)

    def proc_io(self) -> dict[str, int]:
        """The daemon's ``/proc/PID/io`` counters (read_bytes/write_bytes hit the LUN files)."""
        if self.daemon is None:
            raise RuntimeError("the SAN is not running")
        counters: dict[str, int] = {}
        for line in Path(f"/proc/{self.daemon.pid}/io").read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition(":")
            counters[key.strip()] = int(value)
        return counters

    def exports(self) -> Any:
        """The block exports QSD serves (QMP ``query-block-exports``)."""
        with self.qmp() as qmp:
            return qmp.execute("query-block-exports")

    # --- faults: a LUN whose I/O fails, as a LUN with media or path errors does ----------
    def fail(self, lun: str, iotypes: tuple[str, ...] = ("read", "write"), errno: int = 5) -> None:
        """Every read and/or write of ``lun`` fails with ``errno`` (EIO) from now on, until :meth:`heal`.

        raw -> blkdebug is slid under the LUN's throttle node (blockdev-reopen of its file child): raw
        fires blkdebug's read_aio/write_aio events, whose inject-error rules fail the request. The
        export and the appliance's NBD connection stay up, so its disk stays present and answers EIO.
        (Removing the export instead left requests in flight in qemu's NBD client for good.)"""
        events = {"read": "read_aio", "write": "write_aio"}
        unknown = set(iotypes) - set(events)
        if unknown or not iotypes:
            raise ValueError(f"iotypes must be of {sorted(events)}, got {iotypes}")
        rules = [{"event": events[kind], "iotype": kind, "errno": errno, "once": False} for kind in iotypes]
        with self.qmp() as qmp:
            qmp.execute(
                "blockdev-add",
                {
                    "driver": "raw",
                    "node-name": f"{lun}-fault",
                    "file": {
                        "driver": "blkdebug",
                        "node-name": f"{lun}-blkdebug",
                        "image": f"{lun}-raw",
                        "inject-error": rules,
                    },
                },
            )
            self._reopen(qmp, lun, f"{lun}-fault")

    def heal(self, lun: str) -> None:
        """Undo :meth:`fail`: the LUN's throttle node on its data again, the fault nodes removed."""
        with self.qmp() as qmp:
            nodes = {n.get("node-name") for n in qmp.execute("query-named-block-nodes", {"flat": True})}
            if f"{lun}-fault" in nodes:
                self._reopen(qmp, lun, f"{lun}-raw")
                qmp.execute("blockdev-del", {"node-name": f"{lun}-fault"})

    @staticmethod
    def _reopen(qmp: Qmp, lun: str, child: str) -> None:
        options = {"driver": "throttle", "node-name": lun, "throttle-group": "array", "file": child}
        qmp.execute("blockdev-reopen", {"options": [options]})

    def stop(self) -> None:
        """Stop the daemon (detach the appliance first: it is the NBD client)."""
        if self.daemon is not None:
            self.daemon.stop()
            self.daemon = None
        for path in (self.socket, self.qmp_path):
            path.unlink(missing_ok=True)
