"""/api/backup: download the configuration as a passphrase-encrypted file; restore one onto this appliance."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from api.backup import service
from api.backup.schemas import BackupFile, BackupRequest, RestoreReport, RestoreRequest
from api.deps import AppSettings, Box, CurrentUser, Db
from api.errors import ErrorBody
from api.state.deps import IMPORT_PARTS, Refreshed
from api.storage.deps import Fs, Gw
from api.storage.routes import REFUSED
from appliance.control.observed import Part

router = APIRouter(prefix="/api/backup", tags=["settings"])

CONFLICT: dict[int | str, dict[str, object]] = {
    **REFUSED,
    409: {"model": ErrorBody, "description": "The appliance is configured and replace was not asked for"},
}


@router.post("", response_model=BackupFile, responses=REFUSED)
def make_backup(
    body: BackupRequest, box: Box, db: Db, fs: Fs, settings: AppSettings, me: CurrentUser
) -> Response:
    """The configuration (users, vCenter connections, exports, iSCSI, tuning, notifications, TLS, scrape
    tokens) as a file to download; its secrets are readable only with the passphrase."""
    name, data = service.backup(db, box, fs, settings, body.passphrase)
    service.log.info("configuration backup %s made by %s", name, me.username)
    return Response(
        data,
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.post("/restore", responses=CONFLICT)
def restore_backup(
    body: RestoreRequest,
    request: Request,
    box: Box,
    gw: Gw,
    fs: Fs,
    db: Db,
    settings: AppSettings,
    me: CurrentUser,
    refresh: Refreshed,
) -> RestoreReport:
    """Import the backup's pools, bring its configuration back and serve its exports; every login ends
    (the backup's users replace this appliance's). What could not be restored is listed, with why."""
    report = service.restore(gw, fs, db, box, settings, body, me.username)
    refresh(*_touched(report))
    if report.tls_installed:
        request.app.state.tls_restart_needed = True
    return report


def _touched(report: RestoreReport) -> tuple[Part, ...]:
    """The parts of the published state a restore changed: the pools it imported (their datasets, the
    disks they took, what is left to import), the exports it served."""
    parts: tuple[Part, ...] = ()
    if report.pools_imported:
        parts += IMPORT_PARTS
    if report.exports_applied:
        parts += (Part.nfs, Part.services)
    return parts
