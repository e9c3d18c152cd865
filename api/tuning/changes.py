"""The change of the ZFS module parameters: a verb the control service runs as root (api.privileged)."""

from __future__ import annotations

from api.privileged.host import Host
from api.tuning import service
from api.tuning.schemas import Applied


def apply(host: Host, params: dict[str, int]) -> Applied:
    with host.sessionmaker() as db:
        return service.apply(host.storage_files, host.settings, db, params)


VERBS = (apply,)
