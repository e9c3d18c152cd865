"""The one way this package runs external tools: an argv list, a timeout, a typed error.

No shell is ever involved, and a tool that overruns its timeout is killed with its whole process
group (qemu-img can leave helper threads/processes behind otherwise).
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ovf.errors import CommandFailed


@dataclass(frozen=True)
class Completed:
    """What a successful command printed."""

    argv: tuple[str, ...]
    stdout: str
    stderr: str


def run(
    argv: Sequence[str],
    *,
    timeout: float,
    input_text: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Completed:
    """Run argv; return its output, or raise CommandFailed (non-zero exit or timeout)."""
    if not argv:
        raise ValueError("empty argv")
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE if input_text is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=None if env is None else dict(env),
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(input=input_text, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        raise CommandFailed(argv, None, f"killed after {timeout}s\n{stderr}") from None
    if proc.returncode != 0:
        raise CommandFailed(argv, proc.returncode, stderr)
    return Completed(tuple(argv), stdout, stderr)
