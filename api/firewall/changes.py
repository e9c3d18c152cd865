"""The changes to the firewall: verbs the control service runs as root (api.privileged). ``client`` is the
address the caller's request came from, as the api saw it: what a lockout is judged by."""

from __future__ import annotations

from api.firewall import service
from api.firewall.schemas import FirewallSettings, FirewallView
from api.privileged.host import Host


def save(host: Host, wanted: FirewallSettings, client: str) -> FirewallView:
    with host.sessionmaker() as db:
        return service.save(host.storage_gateway, host.storage_files, db, host.settings, wanted, client)


def confirm(host: Host, client: str) -> FirewallView:
    with host.sessionmaker() as db:
        return service.confirm(host.storage_gateway, host.storage_files, db, host.settings, client)


def cancel(host: Host, client: str) -> FirewallView:
    with host.sessionmaker() as db:
        return service.cancel(host.storage_gateway, host.storage_files, db, host.settings, client)


VERBS = (save, confirm, cancel)
