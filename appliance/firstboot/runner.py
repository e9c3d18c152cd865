"""How first boot runs system tools: one injectable callable, so tests can record and refuse argv.

The real one is :func:`process.run` (the project's runner: its process group killed on timeout).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from process import Completed


class Runner(Protocol):
    """Runs an argv list (never a shell string) within a timeout; raises process.ProcessError."""

    def __call__(
        self, argv: Sequence[str], *, timeout: float, input_text: str | None = None
    ) -> Completed: ...
