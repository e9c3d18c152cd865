"""The start of an upgrade: a verb the control service runs as root (api.privileged), since the upgrader
is a unit of its own that replaces the release and restarts the api."""

from __future__ import annotations

from api.privileged.host import Host
from api.upgrades import service
from api.upgrades.schemas import Run


def apply(host: Host, by: str) -> Run:
    """``by``: the user who asked, for the journal."""
    return service.apply(host.storage_gateway, host.settings, by)


VERBS = (apply,)
