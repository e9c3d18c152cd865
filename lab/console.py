"""The serial console of a lab VM: its last lines for an error, the guest kernel's panic, the login prompt,
and the appliance's greeting above that prompt.

A lab VM whose kernel panicked (appliance.image.serial says why an emulated one can) fails in
seconds, in the kernel's own words, instead of timing out ten minutes later with a path to a file on
another machine.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from appliance.image.serial import panic, text

__all__ = [
    "BootStalled",
    "ConsoleError",
    "GuestPanicked",
    "check",
    "greetings",
    "panic",
    "panicked_early",
    "tail",
    "text",
    "wait_login",
]

LOGIN = re.compile(r"\S+ login: ")
# The first line of the appliance's issue text (appliance.firstboot.console), as agetty draws it.
GREETING = re.compile(r"^arcvsa \S+ - virtual storage appliance$", re.MULTILINE)


T = TypeVar("T")

# The console line after which a guest panic is no longer early boot's.
EARLY_BOOT_DONE = "ZFS: Loaded module"


def panicked_early(path: Path) -> bool:
    """Whether the guest panicked before the ZFS module loaded: under TCG, an int3 Oops as the kernel
    patches its own text (it comes in runs on a busy host) is the emulator's, not the appliance's, and
    worth a fresh boot."""
    seen = text(path)
    return panic(seen) is not None and EARLY_BOOT_DONE not in seen


#: boots more a guest gets whose kernel panicked in early boot (see panicked_early)
EARLY_PANIC_RETRIES = 2


def booting(start: Callable[[], T], log: Path, stop: Callable[[], None], say: Callable[[str], None]) -> T:
    """``start()``: a boot up to the api's health. A panic in early boot (the emulator's, not the
    appliance's) stops that VM and boots again, at most EARLY_PANIC_RETRIES times, saying so; a later
    panic, or one more, is raised. ``log`` is the console's file."""
    for attempt in range(EARLY_PANIC_RETRIES + 1):
        try:
            return start()
        except GuestPanicked as err:
            if attempt == EARLY_PANIC_RETRIES or not panicked_early(log):
                raise
            say(
                f"guest kernel panic in early boot (before ZFS loaded): {err.lines.splitlines()[0]}; booting again"
            )
            stop()
    raise GuestPanicked("no boot attempted")  # EARLY_PANIC_RETRIES is never negative


class ConsoleError(RuntimeError):
    """The VM did not come up: qemu ended or time ran out. The message ends with the console's tail."""


class BootStalled(ConsoleError):
    """The console stood still before the login prompt: a hung boot (worth one more)."""


class GuestPanicked(ConsoleError):
    """The guest kernel oopsed or panicked; ``lines`` are its first lines on the console."""

    def __init__(self, lines: str) -> None:
        self.lines = lines
        super().__init__(f"the guest kernel panicked:\n{lines}")


def tail(path: Path, lines: int = 12) -> str:
    """The last non-blank lines of the console (for an error)."""
    kept = [line.rstrip() for line in text(path).replace("\r", "\n").splitlines() if line.strip()]
    return "\n".join(kept[-lines:]) or "(no console output)"


def greetings(path: Path) -> list[str]:
    """Each greeting agetty drew in full (up to its login prompt), oldest first, lines ended by '\\n'.

    agetty draws it again when the address changes, so the last one is the current one."""
    seen = text(path).replace("\r", "")
    starts = [m.start() for m in GREETING.finditer(seen)]
    drawn = []
    for index, start in enumerate(starts):
        after = starts[index + 1] if index + 1 < len(starts) else len(seen)
        prompt = LOGIN.search(seen, start, after)
        if prompt is not None:
            drawn.append(seen[start : prompt.start()])
    return drawn


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
