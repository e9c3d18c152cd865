"""How first boot runs system tools: one injectable callable, so tests can record and refuse argv."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ovf.command import Completed, run


class Runner(Protocol):
    """Runs an argv list (never a shell string) within a timeout; raises ovf.errors.CommandFailed."""

    def __call__(
        self, argv: Sequence[str], *, timeout: float, input_text: str | None = None
    ) -> Completed: ...


def system_runner(argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Completed:
    """The real runner: ovf.command.run (kills the process group on timeout)."""
    return run(argv, timeout=timeout, input_text=input_text)
