"""/api/backup: download the configuration as a passphrase-encrypted file; restore one onto this appliance."""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import APIRouter, Request, Response

from api.backup import changes, service
from api.backup.schemas import BackupFile, BackupRequest, RestoreReport, RestoreRequest
from api.backup.section import Context, Section
from api.deps import AppSettings, Box, CurrentUser, Db
from api.errors import ErrorBody
from api.privileged.deps import Controlled
from api.state.deps import MaybeSnapshot
from api.storage.deps import Fs, Gw
from api.storage.routes import REFUSED

router = APIRouter(prefix="/api/backup", tags=["settings"])

CONFLICT: dict[int | str, dict[str, object]] = {
    **REFUSED,
    409: {"model": ErrorBody, "description": "The appliance is configured and replace was not asked for"},
}


def _sections(request: Request) -> Sequence[Section]:
    sections: Sequence[Section] = request.app.state.backup_sections
    return sections


@router.post("", response_model=BackupFile, responses=REFUSED)
def make_backup(
    body: BackupRequest,
    request: Request,
    box: Box,
    db: Db,
    gw: Gw,
    fs: Fs,
    settings: AppSettings,
    me: CurrentUser,
    published: MaybeSnapshot,
) -> Response:
    """The configuration (users, vCenter connections, exports, iSCSI, tuning, notifications, TLS, scrape
    tokens) and the GUIDs of the pools it needs, as a file to download; its secrets are readable only
    with the passphrase."""
    ctx = Context(db=db, box=box, files=fs, settings=settings, gw=gw, by=me.username)
    name, data = service.backup(ctx, _sections(request), published, body.passphrase)
    service.log.info("configuration backup %s made by %s", name, me.username)
    return Response(
        data,
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.post("/restore", responses=CONFLICT)
def restore_backup(
    body: RestoreRequest, request: Request, me: CurrentUser, control: Controlled
) -> RestoreReport:
    """Import the backup's pools (by GUID), store its configuration as this appliance's desired state and
    converge each part of it; every login ends (the backup's users replace this appliance's). What could
    not be restored is listed, with why."""
    address = request.client.host if request.client is not None else ""
    restored = control(changes.restore, body, me.username, address)
    if restored.restart_needed:
        request.app.state.tls_restart_needed = True
    return restored.report
