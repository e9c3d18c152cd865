"""The api's CPU cgroup split in two leaves: the server itself, and the tools its background reads run.

A shared read past its freshness is read again in the background (readcache) while pollers get the older
answer. Those refreshes (zpool, zfs, dbus-send, started together) in the api's own cgroup would use up
its CPU quota at once, and every request in flight would wait out the throttle. A leaf of their
own, capped and at a low weight, takes that off the server's quota; the unit's quota bounds the two
together (arcvsa-api.service delegates its cgroup for this).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
SERVER, READS = "server", "reads"
# The server at most one CPU per 100 ms (as the whole unit was); the reads' tools at most 30 % of one, at
# a tenth of the server's weight when both want a CPU. The unit's CPUQuota (130 %) is their sum.
SERVER_MAX = "100000 100000"
READS_MAX = "30000 100000"
READS_WEIGHT = "10"

log = logging.getLogger("arcvsa.cgroup")


@dataclass(frozen=True)
class Leaf:
    """A cgroup that processes can be moved into."""

    path: Path

    def adopt(self, pid: int) -> None:
        """Move ``pid`` here. It never fails the command it is given (which is running by now and must
        still be waited for): one that has already ended is left be, one the kernel refuses stays where
        it started, logged."""
        try:
            (self.path / "cgroup.procs").write_text(f"{pid}\n", encoding="ascii")
        except ProcessLookupError:
            pass
        except OSError as err:
            log.warning("process %d stays in the api's own cgroup: %s", pid, err)


def own_cgroup(proc_cgroup: str) -> str:
    """The cgroup v2 path in ``/proc/self/cgroup`` ("0::/arcvsa.slice/arcvsa-api.service" → its path)."""
    for line in proc_cgroup.splitlines():
        if line.startswith("0::"):
            return line[3:]
    raise ValueError("no cgroup v2 entry in /proc/self/cgroup")


def delegated(path: Path) -> bool:
    """Whether systemd delegated this cgroup to its unit's processes (it marks it: trusted.delegate=1)."""
    try:
        return os.getxattr(path, "trusted.delegate") == b"1"
    except OSError:
        return False


def split_for_reads(root: Path = ROOT, proc_cgroup: Path = Path("/proc/self/cgroup")) -> Leaf | None:
    """Move this process into a ``server`` leaf of its delegated cgroup and make a ``reads`` leaf beside it
    for background reads' tools; None where the cgroup is not delegated (a test, a dev host)."""
    try:
        own = root / own_cgroup(proc_cgroup.read_text(encoding="ascii")).lstrip("/")
    except (OSError, ValueError):
        return None
    if not delegated(own):
        return None
    try:
        for name in (SERVER, READS):
            (own / name).mkdir(exist_ok=True)
        Leaf(own / SERVER).adopt(os.getpid())  # the parent must hold no process to pass controllers down
        (own / "cgroup.subtree_control").write_text("+cpu\n", encoding="ascii")
        (own / SERVER / "cpu.max").write_text(f"{SERVER_MAX}\n", encoding="ascii")
        (own / READS / "cpu.max").write_text(f"{READS_MAX}\n", encoding="ascii")
        (own / READS / "cpu.weight").write_text(f"{READS_WEIGHT}\n", encoding="ascii")
    except OSError as err:
        log.warning("background reads stay in the api's cgroup: %s", err)
        return None
    return Leaf(own / READS)
