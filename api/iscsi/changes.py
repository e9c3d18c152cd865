"""The changes to the iSCSI targets: verbs the control service runs as root (api.privileged), LIO
converged through rtslib-fb in its process (api.iscsi.service); the firewall follows a first target and
a last one."""

from __future__ import annotations

from api.firewall import service as firewall
from api.iscsi import service
from api.iscsi.schemas import TargetCreate, TargetUpdate
from api.privileged.host import Host
from appliance.control.iscsi import TargetInfo


def create_target(host: Host, create: TargetCreate) -> TargetInfo:
    gw, fs, settings = host.storage_gateway, host.storage_files, host.settings
    with host.sessionmaker() as db:
        made = service.create(gw, db, host.secretbox, fs, settings, create)
        firewall.follow(gw, fs, db, settings)  # 3260 opens to the iSCSI networks with the first target
    return made


def update_target(host: Host, iqn: str, update: TargetUpdate) -> TargetInfo:
    settings = host.settings
    with host.sessionmaker() as db:
        return service.update(db, host.secretbox, host.storage_files, settings, iqn, update)


def delete_target(host: Host, iqn: str) -> None:
    gw, fs, settings = host.storage_gateway, host.storage_files, host.settings
    with host.sessionmaker() as db:
        service.delete(db, host.secretbox, fs, settings, iqn)
        firewall.follow(gw, fs, db, settings)  # and closes with the last


VERBS = (create_target, update_target, delete_target)
