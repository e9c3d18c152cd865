"""Answers of read-only commands shared for a moment, so a dozen polling clients cost one ``zpool list``.

Every page of the web, the alert checker and a Prometheus scrape read the same pool, dataset and export
state; each read is a fork and exec of zpool/zfs/dbus-send, which a loaded appliance pays for dearly (and
a pool stalled on a failing LUN can hang it for a minute). Readers of the same argv within ``fresh_for``
seconds get the one answer, and concurrent readers wait for the one command in flight instead of
starting their own. Any other command through the gateway may change what the reads said, so it ends
every shared answer: nothing this process changed is ever read back stale. State changed outside this
process (a LUN failing) shows within ``fresh_for``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from appliance.control.errors import ControlError

T = TypeVar("T")


@dataclass
class _Entry:
    generation: int
    at: float
    outcome: object = None  # the answer, or the ControlError it raised (shared the same way)
    done: bool = False


class ReadCache:
    """Shared answers per key, for ``fresh_for`` seconds or until ``invalidate``; 0 shares nothing."""

    def __init__(self, fresh_for: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.fresh_for, self.clock = fresh_for, clock
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._entries: dict[object, _Entry] = {}
        self._generation = 0

    def invalidate(self) -> None:
        """Something may have changed: no answer read before now is shared again."""
        with self._lock:
            self._generation += 1
            self._entries.clear()

    def get(self, key: object, read: Callable[[], T]) -> T:
        """``read()``'s answer, shared with every caller of ``key`` while fresh (its error too)."""
        if self.fresh_for <= 0:
            return read()
        with self._lock:
            while True:
                entry = self._entries.get(key)
                if entry is None or (entry.done and self.clock() - entry.at > self.fresh_for):
                    entry = _Entry(self._generation, self.clock())
                    self._entries[key] = entry
                    break
                if entry.done:
                    return _unwrap(entry.outcome)  # type: ignore[return-value]
                self._ready.wait()  # the same read is running: wait for its answer
        try:
            outcome: object = read()
        except ControlError as err:
            outcome = err
        except BaseException:
            self._settle(key, entry, None, keep=False)
            raise
        self._settle(key, entry, outcome, keep=True)
        return _unwrap(outcome)  # type: ignore[return-value]

    def _settle(self, key: object, entry: _Entry, outcome: object, *, keep: bool) -> None:
        with self._lock:
            entry.outcome, entry.done, entry.at = outcome, True, self.clock()
            # Read before a change finished (or failed unexpectedly): answers its own caller only.
            stale = not keep or entry.generation != self._generation
            if stale and self._entries.get(key) is entry:
                del self._entries[key]
            self._ready.notify_all()


def _unwrap(outcome: object) -> object:
    if isinstance(outcome, ControlError):
        raise outcome
    return outcome
