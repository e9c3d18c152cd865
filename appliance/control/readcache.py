"""Answers of read-only commands shared for a moment, so a dozen polling clients cost one ``zpool list``.

Every page of the web, the alert checker and a Prometheus scrape read the same pool, dataset and export
state; each read is a fork and exec of zpool/zfs/dbus-send, which a loaded appliance pays for dearly (and
a pool stalled on a failing LUN can hang it for a minute). Readers of the same argv within ``fresh_for``
seconds get the one answer, and concurrent readers wait for the one command in flight instead of
starting their own. Any other command through the gateway may change what the reads said, so it ends
every shared answer: nothing this process changed is ever read back stale. State changed outside this
process (a LUN failing) shows within ``fresh_for``.

Past ``fresh_for``, an answer may still be served for ``stale_for`` seconds while one background read
refreshes it: on a busy appliance a poller then never waits for a fork of zpool, and what it shows is at
most ``fresh_for + stale_for`` (plus the refresh) old. An error is never served stale, and a change
through this process still ends every answer at once, so a change is never followed by its own past.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
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
    refreshing: bool = False  # a background read of this stale answer is running


_refresh = threading.local()
_inline = threading.local()


class WouldWait(Exception):
    """Raised inside :func:`without_waiting` where an answer would have to wait for a tool."""


@contextlib.contextmanager
def without_waiting() -> Iterator[None]:
    """Inside it, on this thread, a read that is not shared yet (or is being read by another thread)
    raises WouldWait instead of waiting, and so does any tool the gateway would start: the api's event
    loop answers a dashboard's poll from the shared answers itself, and only when that would wait does
    the request go to a worker thread (under polling load each hop to one costs more than the answer)."""
    before = getattr(_inline, "on", False)
    _inline.on = True
    try:
        yield
    finally:
        _inline.on = before


def waiting_refused() -> bool:
    """Whether this thread is inside :func:`without_waiting`."""
    return getattr(_inline, "on", False)


def refreshing() -> bool:
    """Whether this thread is a background refresh (the gateway runs its tools in a cgroup of their own)."""
    return getattr(_refresh, "on", False)


def _in_background(work: Callable[[], None]) -> None:
    def marked() -> None:
        _refresh.on = True
        work()

    threading.Thread(target=marked, name="readcache-refresh", daemon=True).start()


class ReadCache:
    """Shared answers per key, for ``fresh_for`` seconds or until ``invalidate``; 0 shares nothing.

    ``stale_for`` > 0 serves an older answer that long past ``fresh_for`` while it is read again in the
    background (``start`` runs that refresh; a thread by default).
    """

    def __init__(
        self,
        fresh_for: float,
        clock: Callable[[], float] = time.monotonic,
        *,
        stale_for: float = 0.0,
        start: Callable[[Callable[[], None]], None] = _in_background,
    ) -> None:
        self.fresh_for, self.stale_for, self.clock, self.start = fresh_for, stale_for, clock, start
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
        stale: _Entry | None = None  # an older answer served while one refresh reads it again
        refresh = False
        with self._lock:
            while True:
                entry = self._entries.get(key)
                if entry is not None and entry.done:
                    age = self.clock() - entry.at
                    if age <= self.fresh_for:
                        return _unwrap(entry.outcome)  # type: ignore[return-value]
                    if self._servable_stale(entry, age):
                        stale, refresh = entry, not entry.refreshing
                        entry.refreshing = True
                        break
                if waiting_refused():
                    raise WouldWait(key)
                if entry is None or entry.done:
                    entry = _Entry(self._generation, self.clock())
                    self._entries[key] = entry
                    break
                self._ready.wait()  # the same read is running: wait for its answer
        if stale is not None:
            if refresh:  # outside the lock: ``start`` may run the read at once
                self.start(lambda: self._refresh(key, stale, read))
            return stale.outcome  # type: ignore[return-value]
        try:
            outcome: object = read()
        except ControlError as err:
            outcome = err
        except BaseException:
            self._settle(key, entry, None, keep=False)
            raise
        self._settle(key, entry, outcome, keep=True)
        return _unwrap(outcome)  # type: ignore[return-value]

    def _servable_stale(self, entry: _Entry, age: float) -> bool:
        return age <= self.fresh_for + self.stale_for and not isinstance(entry.outcome, ControlError)

    def _refresh(self, key: object, stale: _Entry, read: Callable[[], object]) -> None:
        """Read ``key`` again for the callers that were served ``stale``; its answer replaces it."""
        keep = True
        try:
            outcome: object = read()
        except ControlError as err:
            outcome = err  # the next caller gets it fresh, never the older answer
        except BaseException:
            outcome, keep = None, False  # a bug: the next caller reads for itself and sees it
        with self._lock:
            stale.refreshing = False
            if self._entries.get(key) is not stale:
                return  # invalidated (or replaced) while reading: this answer may predate a change
            if keep:
                self._entries[key] = _Entry(self._generation, self.clock(), outcome, done=True)
            else:
                del self._entries[key]

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
