"""The published snapshot as a request dependency: every read route answers from it, never from a tool.

Async: it only stats (and, once per new snapshot, parses) one file.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request

from api.state import poll
from api.state.snapshot import Published, required
from appliance.control.observed import Part


async def published(request: Request) -> Published:
    return required(request.app.state.snapshot.read())


async def _maybe(request: Request) -> Published | None:
    found: Published | None = request.app.state.snapshot.read()
    return found


Snapshot = Annotated[Published, Depends(published)]
# For a read that needs the state only sometimes (the exports list: only when there are exports).
MaybeSnapshot = Annotated[Published | None, Depends(_maybe)]


class Refresh:
    """Refreshes the published parts a change touched, before the route answers (api.state.poll)."""

    def __init__(self, app_state: Any) -> None:
        self.app_state = app_state

    def __call__(self, *parts: Part) -> None:
        if parts:
            poll.after_change(self.app_state, parts)


async def _refresh(request: Request) -> Refresh:
    return Refresh(request.app.state)


Refreshed = Annotated[Refresh, Depends(_refresh)]
# What a change of each kind can alter, refreshed before its answer.
POOL_PARTS = (Part.pools, Part.datasets, Part.disks)
IMPORT_PARTS = (*POOL_PARTS, Part.imports)
DATASET_PARTS = (Part.pools, Part.datasets)
