"""/api/storage/nfs and /api/storage/exports: the NFS server in use and the datastore exports it serves."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from api.deps import AppSettings, Db
from api.exports import service
from api.exports.schemas import BackendChoice, ExportCreate, ExportIOView, ExportUpdate, ExportView, NfsState
from api.inline import answer
from api.storage.deps import Fs, Gw
from api.storage.routes import REFUSED

router = APIRouter(prefix="/api/storage", tags=["exports"])


@router.get("/nfs", responses=REFUSED)
async def nfs_state(gw: Gw, fs: Fs, db: Db, settings: AppSettings) -> NfsState:
    """The NFS server in use (ganesha or knfsd) and every export."""
    return await answer(service.state, gw, fs, db, settings)


@router.put("/nfs/backend", responses=REFUSED)
def set_backend(body: BackendChoice, gw: Gw, fs: Fs, db: Db, settings: AppSettings) -> NfsState:
    """Switch the NFS server: the other one emptied and stopped, every export applied to this one."""
    return service.set_backend(gw, fs, db, settings, body.backend)


@router.get("/exports", responses=REFUSED)
async def list_exports(gw: Gw, fs: Fs, db: Db, settings: AppSettings) -> list[ExportView]:
    """Every export with whether the NFS server serves it now."""
    return await answer(service.views, gw, fs, db, settings)


@router.post("/exports", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_export(body: ExportCreate, gw: Gw, fs: Fs, db: Db, settings: AppSettings) -> ExportView:
    """Export a dataset's mount point to ESXi hosts over NFS 3 or 4.1 (read-write, no root squash)."""
    return service.create(gw, fs, db, settings, body)


@router.put("/exports/{export_id}", responses=REFUSED)
def update_export(
    export_id: int, body: ExportUpdate, gw: Gw, fs: Fs, db: Db, settings: AppSettings
) -> ExportView:
    """Change an export's hosts, protocol or port rule."""
    return service.update(gw, fs, db, settings, export_id, body)


@router.delete("/exports/{export_id}", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def delete_export(export_id: int, gw: Gw, fs: Fs, db: Db, settings: AppSettings) -> Response:
    """Stop exporting a dataset (its data stays)."""
    service.delete(gw, fs, db, settings, export_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/exports/{export_id}/io", responses=REFUSED)
def export_io(export_id: int, gw: Gw, db: Db, settings: AppSettings) -> ExportIOView:
    """Client read/write counters of one export (ganesha; knfsd answers zeros)."""
    return service.io(gw, db, settings, export_id)
