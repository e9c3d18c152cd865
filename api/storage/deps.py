"""The appliance's tools, files and published state as request dependencies (tests put recorded outputs
on app.state).

Async: they only read app.state, and a sync dependency costs a worker-thread hop (see api.deps)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from api.errors import NoLocalStorage
from api.privileged.client import Control
from api.privileged.deps import control
from api.state.deps import published
from api.state.snapshot import Published
from api.storage import presence
from appliance.control.files import Files
from appliance.control.gateway import Gateway


async def _gateway(request: Request) -> Gateway:
    gateway: Gateway = request.app.state.storage_gateway
    return gateway


async def _files(request: Request) -> Files:
    files: Files = request.app.state.storage_files
    return files


def _refuse_without_storage(request: Request) -> None:
    """The explained refusal where this machine has no storage of its own, before any tool runs (a
    manager has no zpool to fail)."""
    found = presence.detect(request.app.state.settings, request.app.state.storage_gateway)
    if not found.present:
        raise NoLocalStorage(found.reason or presence.NOT_AN_APPLIANCE, role=found.role)


async def _local_control(request: Request) -> Control:
    """The control service of a machine with storage of its own; elsewhere the explained refusal."""
    _refuse_without_storage(request)
    return await control(request)


async def _local_snapshot(request: Request) -> Published:
    """The published state of a machine with storage of its own; elsewhere the explained refusal."""
    _refuse_without_storage(request)
    return await published(request)


async def _presence(request: Request) -> presence.StoragePresence:
    return presence.detect(request.app.state.settings, request.app.state.storage_gateway)


Gw = Annotated[Gateway, Depends(_gateway)]
Fs = Annotated[Files, Depends(_files)]
# The disks, pools and datasets routes: this machine's own storage, refused where there is none.
LocalControl = Annotated[Control, Depends(_local_control)]
# The read routes of this machine's storage: its published state (api.state), never a tool.
LocalSnapshot = Annotated[Published, Depends(_local_snapshot)]
Presence = Annotated[presence.StoragePresence, Depends(_presence)]
