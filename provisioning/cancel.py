"""A run's cancel switch: every wait of a run looks at it at least every POLL seconds.

A user who cancels expects the job to end in seconds, whatever it waits for: a vCenter task, an OVA upload,
an appliance that is still booting, a call to an appliance's api. Waits that loop check `cancelled()`
between short sleeps; a call that can block longer (one SOAP request, one HTTPS exchange) runs on a helper
thread that the run stops waiting for once cancelled. That thread ends by itself: everything it does is
bounded by its own timeout and checks the same switch before its next request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from provisioning.errors import Cancelled

POLL = 0.25

Switch = Callable[[], bool]
#: what the run was doing, for the Cancelled message: words, or a function that says them when cancelled
What = str | Callable[[], str]
T = TypeVar("T")


def never() -> bool:
    """The switch of a run nobody can cancel."""
    return False


def check(cancelled: Switch, what: What) -> None:
    """Raise Cancelled ('cancelled <what>') when the switch is on."""
    if cancelled():
        raise Cancelled(f"cancelled {what() if callable(what) else what}")


def sleep(seconds: float, cancelled: Switch, what: What) -> None:
    """time.sleep(seconds) that ends with Cancelled within POLL of a cancel."""
    end = time.monotonic() + seconds
    while True:
        check(cancelled, what)
        left = end - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(POLL, left))


def call(fn: Callable[[], T], cancelled: Switch, what: What) -> T:
    """fn()'s result (or its exception), or Cancelled within POLL of a cancel while fn is still running."""
    check(cancelled, what)
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the caller's thread below
            box["error"] = exc

    helper = threading.Thread(target=run, name="cancellable", daemon=True)
    helper.start()
    while helper.is_alive():
        helper.join(POLL)
        if helper.is_alive():
            check(cancelled, what)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]
