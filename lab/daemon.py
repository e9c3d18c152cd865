"""The lab's long-running daemons (the SAN, the appliance VM, chronyd), started detached and stopped by
marker; short commands go through process.run."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from process import ProcessError


@dataclass(frozen=True)
class Daemon:
    """A detached process of the lab, known by pid and by a marker in its command line.

    The marker (a path only this lab uses) lets ``lab.down`` stop it from another process without
    ever signalling a recycled pid that now belongs to someone else.
    """

    pid: int
    marker: str

    def alive(self) -> bool:
        """True while the pid runs and is still the process that was started."""
        try:
            cmdline = Path(f"/proc/{self.pid}/cmdline").read_bytes()
        except OSError:
            return False
        if self.marker.encode() not in cmdline:
            return False
        try:
            stat = Path(f"/proc/{self.pid}/stat").read_text(encoding="utf-8")
        except OSError:
            return False
        return stat.rsplit(")", 1)[1].split()[0] != "Z"

    def wait_exit(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the process to end; True when it did."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._reap()
            if not self.alive():
                return True
            time.sleep(0.2)
        self._reap()
        return not self.alive()

    def stop(self, grace: float = 10.0) -> None:
        """SIGTERM, then SIGKILL after ``grace`` seconds; a no-op when it is gone already."""
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
            if not self.alive():
                return
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                return
            if self.wait_exit(wait):
                return

    def _reap(self) -> None:
        # Our own children stay zombies until waited for.
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, os.WNOHANG)


PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    # Runs in the child between fork and exec: the kernel sends SIGTERM when the parent goes away.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def spawn(argv: list[str], *, log: Path, marker: str, tied: bool = False) -> Daemon:
    """Start argv detached (own session, output to ``log``) and return it as a Daemon.

    ``tied`` processes end when this process ends, even by SIGKILL (test fixtures); untied ones
    outlive it (``lab.up``).
    """
    if not any(marker in arg for arg in argv):
        raise ValueError(f"marker {marker!r} is not in the command line")
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as sink:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent if tied else None,
        )
    daemon = Daemon(proc.pid, marker)
    # Right after exec the kernel shows an empty command line for a moment: wait until the marker
    # is visible, so alive() is meaningful from here on.
    deadline = time.monotonic() + 10
    while not daemon.alive() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    return daemon


def wait_for_path(path: Path, daemon: Daemon, timeout: float) -> None:
    """Wait until ``path`` exists (a socket the daemon makes); fail early if the daemon died."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if not daemon.alive():
            raise ProcessError([daemon.marker], f"process {daemon.pid} ended before {path} appeared")
        if time.monotonic() > deadline:
            raise ProcessError([daemon.marker], f"{path} did not appear in {timeout:.0f} s")
        time.sleep(0.1)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
