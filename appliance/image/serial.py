"""A VM's serial console as text, and the guest kernel's panic in it.

An emulated guest's kernel can panic at random (in early boot, in the network stack, in the
scheduler). A dead guest answers nothing, so whoever waits on a VM (the image build, the lab) reads its
console and fails in seconds, in the kernel's own words.
"""

from __future__ import annotations

import re
from pathlib import Path

ANSI = re.compile(r"\x1b(?:\[[0-9;?!]*[A-Za-z]|[()][0-9A-Za-z])")
# How Linux starts an oops or a panic on its console (a double fault prints "traps: PANIC: double fault").
# Not "BUG: " alone: a soft lockup on a slow CPU says it and goes on; a real BUG is followed by Oops.
PANIC = re.compile(r"Kernel panic|Oops: |traps: PANIC")


def text(path: Path) -> str:
    """The console so far, without terminal escapes ('' before qemu made the file)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return ""
    return ANSI.sub("", raw.decode("utf-8", errors="replace"))


def panic(console: str, lines: int = 8) -> str | None:
    """The first lines of the guest kernel's first oops or panic in ``console``, else None."""
    rows = console.splitlines()
    for i, line in enumerate(rows):
        if PANIC.search(line):
            return "\n".join(kept.strip() for kept in rows[i : i + lines])
    return None
