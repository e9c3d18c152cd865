"""Work the api starts with, off the request path: a thread of its own whose failure is logged, never
raised, so the api starts even when the tools it needs are missing or failing."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable


def in_background(name: str, work: Callable[[], None], log: logging.Logger, failed: str) -> threading.Thread:
    """Run ``work`` on a daemon thread called ``name``; an exception is logged to ``log`` as ``failed``."""

    def run() -> None:
        try:
            work()
        except Exception:  # see the module docstring
            log.exception(failed)

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread
