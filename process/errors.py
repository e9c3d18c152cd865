"""Typed errors of the process runner: a caller tells a missing tool, a timeout, a stop and a failure
apart by type, and catches them all as ProcessError.

``argv`` and ``stderr`` arrive masked: whatever an error carries may end up in a log or an answer.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

# How much of a command's stderr an error message quotes: the end is where tools say why.
TAIL_CHARS = 2000


def tail(text: str, limit: int = TAIL_CHARS) -> str:
    """The last ``limit`` characters of ``text``, stripped."""
    return text.strip()[-limit:]


class ProcessError(Exception):
    """A command did not do what was asked; ``argv`` and ``stderr`` say which and why."""

    def __init__(self, argv: Sequence[str], message: str, stderr: str = "") -> None:
        self.argv = tuple(argv)
        self.stderr = stderr
        super().__init__(message)


class ToolNotFound(ProcessError):
    """The program is not installed on this machine (no such file on PATH)."""

    def __init__(self, argv: Sequence[str]) -> None:
        super().__init__(argv, f"{argv[0]} is not installed on this machine")


class ProcessTimeout(ProcessError):
    """The command overran its timeout and was killed with its whole process group."""

    def __init__(self, argv: Sequence[str], timeout: float, stderr: str = "", *, note: str = "") -> None:
        self.timeout = timeout
        message = f"{argv[0]} timed out after {timeout:g} s{note}: {shlex.join(argv)}"
        super().__init__(argv, _with_tail(message, stderr), stderr)


class ProcessAborted(ProcessError):
    """The caller's watch gave a reason to stop the command before it ended: it was killed."""

    def __init__(self, argv: Sequence[str], reason: str, stderr: str = "", *, note: str = "") -> None:
        self.reason = reason
        super().__init__(argv, f"{argv[0]} stopped: {reason}{note}", stderr)


class ProcessFailed(ProcessError):
    """The command ended with an exit code its caller did not accept."""

    def __init__(self, argv: Sequence[str], exit_code: int, stderr: str = "", *, note: str = "") -> None:
        self.exit_code = exit_code
        message = f"{argv[0]} exited {exit_code}{note}: {shlex.join(argv)}"
        super().__init__(argv, _with_tail(message, stderr), stderr)


def _with_tail(message: str, stderr: str) -> str:
    said = tail(stderr)
    return f"{message}\n{said}" if said else message
