"""The change of the notification settings: a verb the control service runs as root (api.privileged),
because log forwarding is rsyslog's drop-in and restart."""

from __future__ import annotations

from api.notify import service
from api.notify.schemas import NotifySettings, NotifySettingsIn
from api.privileged.host import Host


def save(host: Host, new: NotifySettingsIn) -> NotifySettings:
    with host.sessionmaker() as db:
        box = host.secretbox
        return service.save(db, box, new, host.storage_gateway, host.storage_files)


VERBS = (save,)
