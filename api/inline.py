"""Answering a dashboard's read on the event loop when nothing in it would wait.

FastAPI runs a sync route on a worker thread, and validates its answer on another hop: under a
dashboard's polling load those hops (a queue, a wake-up, a GIL hand-off each) cost more than the
answers, which come from the gateway's shared reads and SQLite (WAL: a read never waits for the metric
sampler's writes). So a read-only route tries its work on the loop first, with the gateway refusing to
wait for a tool (appliance.control.readcache.without_waiting); only a read that would wait for one (the
first after a change, a refresh nobody started yet) goes to a worker thread, from the start: the work
changes nothing, so starting it again there is safe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from starlette.concurrency import run_in_threadpool

from appliance.control.readcache import WouldWait, without_waiting

P = ParamSpec("P")
T = TypeVar("T")


async def answer(read: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``read(*args, **kwargs)`` on the loop if no tool must be waited for, else on a worker thread."""
    try:
        with without_waiting():
            return read(*args, **kwargs)
    except WouldWait:
        return await run_in_threadpool(read, *args, **kwargs)
