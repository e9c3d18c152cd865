"""The changes to the NFS server and its exports: verbs the control service runs as root (api.privileged).
Each stores the desired state, converges the server on it (api.exports.service), has the firewall follow
and refreshes what NFS serves in the published state before it answers."""

from __future__ import annotations

from api.exports import service
from api.exports.schemas import ExportCreate, ExportUpdate, ExportView, NfsState
from api.firewall import service as firewall
from api.privileged.host import Host
from api.state import poll
from appliance.control.nfs.backends import Backend
from appliance.control.observed import Part


def set_backend(host: Host, chosen: Backend) -> NfsState:
    with host.sessionmaker() as db:
        changed = service.set_backend(host.storage_gateway, host.storage_files, db, host.settings, chosen)
    poll.after_change(host, (Part.nfs,))
    return changed


def create_export(host: Host, create: ExportCreate) -> ExportView:
    gw, fs, settings = host.storage_gateway, host.storage_files, host.settings
    with host.sessionmaker() as db:
        made = service.create(gw, fs, db, settings, create)
        firewall.follow(gw, fs, db, settings)
    poll.after_change(host, (Part.nfs,))
    return made


def update_export(host: Host, export_id: int, update: ExportUpdate) -> ExportView:
    gw, fs, settings = host.storage_gateway, host.storage_files, host.settings
    with host.sessionmaker() as db:
        changed = service.update(gw, fs, db, settings, export_id, update)
        firewall.follow(gw, fs, db, settings)
    poll.after_change(host, (Part.nfs,))
    return changed


def delete_export(host: Host, export_id: int) -> None:
    gw, fs, settings = host.storage_gateway, host.storage_files, host.settings
    with host.sessionmaker() as db:
        service.delete(gw, fs, db, settings, export_id)
        firewall.follow(gw, fs, db, settings)
    poll.after_change(host, (Part.nfs,))


VERBS = (set_backend, create_export, update_export, delete_export)
