"""Polling for the lab tests: the appliance under TCG answers in its own time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait(what: str, check: Callable[[], T | None], timeout: float, every: float = 2.0) -> T:
    """Poll ``check()`` until it returns something other than None; AssertionError naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found is not None:
            return found
        assert time.monotonic() < deadline, f"{what}: not within {timeout:.0f} s"
        time.sleep(every)
