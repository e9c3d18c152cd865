"""Desired NFS exports in SQLite, reconciled to the chosen backend after every change and at api start.

A request is checked against the stored set before any tool runs (bad names, duplicates); the dataset is
then looked up (``zfs get``), the backend reconciled with the whole new set, and only then is the
change committed: a failed reconcile leaves the database as it was (the next reconcile tidies the
backend). One lock serialises changes, so two requests never reconcile at once.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api import startup
from api.appliance import config as appliance_json
from api.auth.service import now
from api.exports.schemas import ExportCreate, ExportIOView, ExportUpdate, ExportView, NfsState
from api.exports.table import NfsExport, StorageSetting
from api.settings import Settings
from api.state.snapshot import Published, required
from appliance.control import datasets, lock
from appliance.control.datasets import Dataset
from appliance.control.errors import AlreadyExists, InvalidRequest, NotFound
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.nfs import backends, knfsd
from appliance.control.nfs.backends import Backend
from appliance.control.nfs.ganesha import Changes
from appliance.control.nfs.model import Export, Protocol, check_set
from appliance.control.observed import NfsObserved, Observed, Part

log = logging.getLogger(__name__)
BACKEND_KEY = "nfs_backend"
FIRST_ID = 101


def changing(settings: Settings) -> contextlib.AbstractContextManager[None]:
    """Held by every change of what the NFS server serves, from reading the desired set to committing
    it: the api's routes, a restore, and the poller's reconcile (another process)."""
    return lock.held(settings.data_dir / "exports.lock")


def backend(db: Session, settings: Settings) -> Backend:
    """The chosen backend: the stored choice, else appliance.json's (first boot), else ganesha."""
    row = db.get(StorageSetting, BACKEND_KEY)
    if row is not None:
        return Backend(row.value)
    try:
        return Backend(appliance_json.read(settings).get("nfs_backend") or Backend.ganesha)
    except ValueError:  # a name this release does not know
        return Backend.ganesha


def _export(row: NfsExport) -> Export:
    return Export(
        export_id=row.export_id,
        dataset=row.dataset,
        protocol=Protocol(row.protocol),
        clients=json.loads(row.clients_json),
        insecure_ports=row.insecure_ports,
    )


def _rows(db: Session) -> list[NfsExport]:
    return list(db.scalars(select(NfsExport).order_by(NfsExport.export_id)))


def desired(db: Session) -> list[Export]:
    """Every stored export, by id."""
    return [_export(row) for row in _rows(db)]


def _view(export: Export, chosen: Backend, active: bool) -> ExportView:
    return ExportView(**export.model_dump(), backend=chosen, active=active)


def _active(nfs: NfsObserved, files: Files, chosen: Backend, exports: list[Export]) -> set[int]:
    """Ids the backend serves: ganesha's live exports as last observed (none while it is down);
    knfsd's export files as arcvsa renders them."""
    if chosen is Backend.knfsd:
        return {
            e.export_id
            for e in exports
            if files.read(knfsd.export_file(e.export_id)) == knfsd.render_export(e)
        }
    return set(nfs.ganesha_exports or {})


def views(state: Published | None, files: Files, db: Session, settings: Settings) -> list[ExportView]:
    """Every desired export with whether its backend serves it (as last observed: ``state``)."""
    chosen, exports = backend(db, settings), desired(db)
    if not exports:
        return []
    observed = required(state).observed
    active = _active(observed.part(Part.nfs, observed.nfs), files, chosen, exports)
    return [_view(e, chosen, e.export_id in active) for e in exports]


def _get(db: Session, export_id: int) -> NfsExport:
    row = db.get(NfsExport, export_id)
    if row is None:
        raise NotFound(f"no export {export_id}")
    return row


def _refuse_duplicate(
    exports: list[Export], dataset: str, clients: list[str], skip: int | None = None
) -> None:
    for e in exports:
        shared = sorted(set(e.clients) & set(clients))
        if e.export_id != skip and e.dataset == dataset and shared:
            raise AlreadyExists(
                f"{dataset} is already exported to {', '.join(shared)} (export {e.export_id})"
            )


def unexportable(dataset: str, found: Dataset) -> str | None:
    """Why ``found`` (the dataset named ``dataset``) cannot be exported, or None: arcvsa exports a mounted
    file system at its own mount point, the path ESXi mounts and the one a restore looks up again."""
    if found.type != "FILESYSTEM" or not (found.mountpoint or "").startswith("/"):
        return f"{dataset} is not a mounted file system (type {found.type}, mountpoint {found.mountpoint})"
    if found.mountpoint != f"/{dataset}":
        return (
            f"{dataset} is mounted at {found.mountpoint}: arcvsa exports a dataset at its own mount point,"
            f" /{dataset} (zfs inherit mountpoint {dataset})"
        )
    return None


def _check_mountpoint(gw: Gateway, dataset: str) -> None:
    reason = unexportable(dataset, datasets.get(gw, dataset))
    if reason is not None:
        raise InvalidRequest(reason)


def store(db: Session, export: Export, row: NfsExport | None = None) -> None:
    """``export`` as a row (a new one, or ``row`` updated); not committed."""
    stamp = now()
    if row is None:
        row = NfsExport(export_id=export.export_id, created_at=stamp)
        db.add(row)
    row.dataset, row.protocol = export.dataset, export.protocol.value
    row.clients_json, row.insecure_ports, row.updated_at = (
        json.dumps(export.clients),
        export.insecure_ports,
        stamp,
    )


def create(gw: Gateway, files: Files, db: Session, settings: Settings, body: ExportCreate) -> ExportView:
    """Check, look the dataset up, reconcile the backend with the new set, then store the export."""
    with changing(settings):
        exports = desired(db)
        _refuse_duplicate(exports, body.dataset, body.clients)
        taken = {e.export_id for e in exports}
        export_id = body.export_id or max(taken | {FIRST_ID - 1}) + 1
        if export_id in taken:
            raise AlreadyExists(f"export id {export_id} is taken")
        _check_mountpoint(gw, body.dataset)
        export = Export(
            export_id=export_id,
            dataset=body.dataset,
            protocol=body.protocol,
            clients=body.clients,
            insecure_ports=body.insecure_ports,
        )
        check_set([*exports, export])
        chosen = backend(db, settings)
        backends.reconcile(gw, files, chosen, [*exports, export])
        store(db, export)
        db.commit()
    log.info(
        "export %d (%s) added for %s over NFS %s", export_id, export.dataset, export.clients, export.protocol
    )
    return _view(export, chosen, True)


def update(
    gw: Gateway, files: Files, db: Session, settings: Settings, export_id: int, body: ExportUpdate
) -> ExportView:
    """New hosts, protocol or port rule for an export; the backend reconciled before the change is stored."""
    with changing(settings):
        row = _get(db, export_id)
        exports = desired(db)
        changes: dict[str, Any] = {"clients": body.clients}
        if body.protocol is not None:
            changes["protocol"] = body.protocol
        if body.insecure_ports is not None:
            changes["insecure_ports"] = body.insecure_ports
        _refuse_duplicate(exports, row.dataset, body.clients, skip=export_id)
        export = Export.model_validate({**_export(row).model_dump(), **changes})
        wanted = [export if e.export_id == export_id else e for e in exports]
        check_set(wanted)
        chosen = backend(db, settings)
        backends.reconcile(gw, files, chosen, wanted)
        store(db, export, row)
        db.commit()
    log.info("export %d updated: %s over NFS %s", export_id, export.clients, export.protocol)
    return _view(export, chosen, True)


def delete(gw: Gateway, files: Files, db: Session, settings: Settings, export_id: int) -> None:
    """Stop exporting; the dataset and its data stay."""
    with changing(settings):
        row = _get(db, export_id)
        backends.reconcile(
            gw, files, backend(db, settings), [e for e in desired(db) if e.export_id != export_id]
        )
        db.delete(row)
        db.commit()
    log.info("export %d removed", export_id)


def io(observed: Observed, db: Session, settings: Settings, export_id: int) -> ExportIOView:
    """Client I/O counters of one export as last observed (ganesha only; knfsd keeps none per export)."""
    export = _export(_get(db, export_id))
    zero = {"read_ops": 0, "read_bytes": 0, "write_ops": 0, "write_bytes": 0}
    if backend(db, settings) is Backend.knfsd:
        return ExportIOView(export_id=export_id, protocol=export.protocol, counters_available=False, **zero)
    nfs = observed.part(Part.nfs, observed.nfs)
    if nfs.ganesha_exports is None and nfs.ganesha_failure is not None:
        nfs.ganesha_failure.raise_()
    stats = nfs.io.get(export_id, {}).get(export.protocol)
    if stats is None:  # not served (yet): no I/O to count
        return ExportIOView(export_id=export_id, protocol=export.protocol, counters_available=True, **zero)
    return ExportIOView(
        **stats.model_dump(exclude={"protocol", "latency_ns"}),
        protocol=export.protocol,
        counters_available=True,
    )


def state(published: Published | None, files: Files, db: Session, settings: Settings) -> NfsState:
    """The backend in use and every export."""
    return NfsState(backend=backend(db, settings), exports=views(published, files, db, settings))


def choose(db: Session, chosen: Backend) -> None:
    """``chosen`` stored as the NFS server (not committed)."""
    row = db.get(StorageSetting, BACKEND_KEY)
    if row is None:
        db.add(StorageSetting(key=BACKEND_KEY, value=chosen.value, updated_at=now()))
    else:
        row.value, row.updated_at = chosen.value, now()


def said(done: Changes, chosen: Backend) -> list[str]:
    """What a reconcile of the NFS server changed, one line each."""
    return [
        *(f"export {i} added to {chosen.value}" for i in done.added),
        *(f"export {i} updated in {chosen.value}" for i in done.updated),
        *(f"export {i} removed from {chosen.value}" for i in done.removed),
    ]


def set_backend(gw: Gateway, files: Files, db: Session, settings: Settings, chosen: Backend) -> NfsState:
    """Switch the appliance's NFS server (or re-assert the current one): the other emptied and stopped."""
    with changing(settings):
        exports = desired(db)
        backends.activate(gw, files, chosen, exports)
        choose(db, chosen)
        db.commit()
    log.info("NFS backend is %s (%d exports)", chosen, len(exports))
    return NfsState(backend=chosen, exports=[_view(e, chosen, True) for e in exports])


def start(app_state: Any) -> threading.Thread | None:
    """At api start on an appliance: serve the stored exports from the chosen backend (in a thread).

    Off the appliance (no build manifest: a dev or CI host) nothing runs; a failure is logged, never
    raised, so the api always starts.
    """
    settings: Settings = app_state.settings
    if not settings.build_manifest.is_file():
        log.info("not an appliance (no %s): NFS exports not reconciled", settings.build_manifest)
        return None
    return startup.in_background(
        "nfs-reconcile",
        lambda: _start(app_state),
        log,
        "NFS exports could not be reconciled at start; the next export change retries",
    )


def _start(app_state: Any) -> None:
    with changing(app_state.settings), app_state.sessionmaker() as db:
        chosen, exports = backend(db, app_state.settings), desired(db)
        changes = backends.activate(app_state.storage_gateway, app_state.storage_files, chosen, exports)
    log.info("NFS backend %s serves %d exports (%s)", chosen, len(exports), changes)
