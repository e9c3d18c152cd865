"""The guest's CLOCK_MONOTONIC_RAW placed on the host's time.monotonic(), for times the guest's kernel
records on its own clock: OpenZFS's gethrtime() is that clock (a txg's birth in
/proc/spl/kstat/zfs/<pool>/txgs). MONOTONIC and BOOTTIME will not do: chrony slews them (0.4 s apart
from RAW four minutes after a lab boot).

One ssh session answers pings with its clock and the fastest round trip is kept (Cristian's method):
setting a session up under TCG takes seconds, a ping through it tens of milliseconds.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from process import ProcessFailed

PINGER = "import sys, time\nfor _ in sys.stdin:\n    print(time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW), flush=True)\n"


@dataclass(frozen=True)
class Offset:
    seconds: float  # guest RAW seconds minus host time.monotonic() seconds
    error: float  # half the round trip it was measured in

    def to_host(self, guest_ns: int) -> float:
        return guest_ns / 1e9 - self.seconds


def raw_offset(ssh_argv: Callable[[list[str]], list[str]], pings: int = 7, timeout: float = 60.0) -> Offset:
    """``ssh_argv``: the guest's ssh command line for a remote argv (lab.appliance_vm.ApplianceVm's)."""
    argv = ssh_argv(["python3", "-c", PINGER])
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdin is not None and proc.stdout is not None
    watchdog = threading.Timer(timeout, proc.kill)
    watchdog.start()
    best: Offset | None = None
    failure = ""
    try:
        for _ in range(pings):
            sent = time.monotonic()
            proc.stdin.write("\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
            answered = time.monotonic()
            # "" when the pinger ended (ssh refused, no python3 in the guest), else whatever it said
            if not line.strip().isdigit():
                failure = f"no clock in the answer: {line!r}"
                break
            offset = Offset(int(line) / 1e9 - (sent + answered) / 2, (answered - sent) / 2)
            if best is None or offset.error < best.error:
                best = offset
    except BrokenPipeError as err:  # its stdin closed: it ended
        failure = f"the pinger ended: {err}"
    finally:
        watchdog.cancel()
        # communicate closes stdin (the pinger's cue to end) and drains stderr, which says why it failed
        try:
            _, stderr = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, stderr = proc.communicate()
    if failure:
        raise ProcessFailed(argv, proc.returncode, f"{failure}\n{stderr}")
    assert best is not None
    return best
