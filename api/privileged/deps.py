"""The control service as a request dependency: over its socket where the settings name one (an
appliance's unit does), else in the api's process (the tests' recorded tools, a developer's machine)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from api.privileged.client import Control, InProcess, OverSocket
from api.privileged.host import Host


async def control(request: Request) -> Control:
    path = request.app.state.settings.control_socket
    return OverSocket(path) if path is not None else InProcess(Host.of(request.app.state))


Controlled = Annotated[Control, Depends(control)]
