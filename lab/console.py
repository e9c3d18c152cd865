"""The serial console of a lab VM: its last lines for an error, the guest kernel's panic, the login prompt.

Under TCG (no KVM here) the guest kernel has panicked at random: an int3 Oops while it patched its own
text in early boot, a double fault in ganesha's TCP receive with an impossible EFLAGS. A dead guest
answers nothing, so whoever waits on a VM reads its console and fails in seconds, in the kernel's own
words, instead of timing out ten minutes later with a path to a file on another machine.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

ANSI = re.compile(r"\x1b(?:\[[0-9;?!]*[A-Za-z]|[()][0-9A-Za-z])")
LOGIN = re.compile(r"\S+ login: ")
# How Linux starts an oops or a panic on its console (a double fault prints "traps: PANIC: double fault").
# Not "BUG: " alone: a soft lockup under a slow TCG says it and goes on; a real BUG is followed by Oops.
PANIC = re.compile(r"Kernel panic|Oops: |traps: PANIC")


class ConsoleError(RuntimeError):
    """The VM did not come up: qemu ended or time ran out. The message ends with the console's tail."""


class BootStalled(ConsoleError):
    """The console stood still before the login prompt: a hung boot (worth one more)."""


class GuestPanicked(ConsoleError):
    """The guest kernel oopsed or panicked; ``lines`` are its first lines on the console."""

    def __init__(self, lines: str) -> None:
        self.lines = lines
        super().__init__(f"the guest kernel panicked:\n{lines}")


def text(path: Path) -> str:
    """The console so far, without terminal escapes ('' before qemu made the file)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return ""
    return ANSI.sub("", raw.decode("utf-8", errors="replace"))


def tail(path: Path, lines: int = 12) -> str:
    """The last non-blank lines of the console (for an error)."""
    kept = [line.rstrip() for line in text(path).replace("\r", "\n").splitlines() if line.strip()]
    return "\n".join(kept[-lines:]) or "(no console output)"


def panic(console: str, lines: int = 8) -> str | None:
    """The first lines of the guest kernel's first oops or panic in ``console``, else None."""
    rows = console.splitlines()
    for i, line in enumerate(rows):
        if PANIC.search(line):
            return "\n".join(kept.strip() for kept in rows[i : i + lines])
    return None


def check(path: Path, alive: bool) -> str:
    """Raise GuestPanicked if the console shows a panic, ConsoleError if qemu is not ``alive``;
    returns the console's text (read once)."""
    seen = text(path)
    found = panic(seen)
    if found is not None:
        raise GuestPanicked(found)
    if not alive:
        raise ConsoleError(f"qemu ended; console ends:\n{tail(path)}")
    return seen


def wait_login(path: Path, alive: Callable[[], bool], started: float, timeout: float, stall: float) -> float:
    """Seconds from ``started`` (monotonic) to the login prompt on the console.

    GuestPanicked on a panic, BootStalled if the console has not grown for ``stall`` s (a slow TCG
    boot keeps printing), ConsoleError if qemu ends or ``timeout`` runs out."""
    size, moved = -1, time.monotonic()
    while True:
        now = time.monotonic()
        running = alive()
        grown = path.stat().st_size if path.is_file() else 0
        if grown != size or not running:
            size, moved = grown, now
            if LOGIN.search(check(path, running)):
                return now - started
        if now - moved >= stall:
            raise BootStalled(
                f"the boot's console stood still for {stall:.0f} s; console ends:\n{tail(path)}"
            )
        if now - started >= timeout:
            raise ConsoleError(f"no login prompt within {timeout:.0f} s; console ends:\n{tail(path)}")
        time.sleep(0.5)
