"""The appliance's tools and files as request dependencies (tests put recorded outputs on app.state).

Async: they only read app.state, and a sync dependency costs a worker-thread hop (see api.deps)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from appliance.control.files import Files
from appliance.control.gateway import Gateway


async def _gateway(request: Request) -> Gateway:
    gateway: Gateway = request.app.state.storage_gateway
    return gateway


async def _files(request: Request) -> Files:
    files: Files = request.app.state.storage_files
    return files


Gw = Annotated[Gateway, Depends(_gateway)]
Fs = Annotated[Files, Depends(_files)]
