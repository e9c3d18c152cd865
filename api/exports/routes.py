"""/api/storage/nfs and /api/storage/exports: the NFS server in use and the datastore exports it serves."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from api.deps import AppSettings, Db
from api.exports import changes, service
from api.exports.schemas import BackendChoice, ExportCreate, ExportIOView, ExportUpdate, ExportView, NfsState
from api.privileged.deps import Controlled
from api.state.deps import MaybeSnapshot, Snapshot
from api.storage.deps import Fs
from api.storage.routes import REFUSED

router = APIRouter(prefix="/api/storage", tags=["exports"])

# The reads run on the event loop: a few SQLite rows (WAL: never waiting for a writer) and, for knfsd, its
# small export files cost less than the hop to a worker thread and its GIL hand-offs under a dashboard's
# polling.


@router.get("/nfs", responses=REFUSED)
async def nfs_state(state: MaybeSnapshot, fs: Fs, db: Db, settings: AppSettings) -> NfsState:
    """The NFS server in use (ganesha or knfsd) and every export."""
    return service.state(state, fs, db, settings)


@router.put("/nfs/backend", responses=REFUSED)
def set_backend(body: BackendChoice, control: Controlled) -> NfsState:
    """Switch the NFS server: the other one emptied and stopped, every export applied to this one."""
    return control(changes.set_backend, body.backend)


@router.get("/exports", responses=REFUSED)
async def list_exports(state: MaybeSnapshot, fs: Fs, db: Db, settings: AppSettings) -> list[ExportView]:
    """Every export with whether the NFS server serves it now."""
    return service.views(state, fs, db, settings)


@router.post("/exports", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_export(body: ExportCreate, control: Controlled) -> ExportView:
    """Export a dataset's mount point to ESXi hosts over NFS 3 or 4.1 (read-write, no root squash)."""
    return control(changes.create_export, body)


@router.put("/exports/{export_id}", responses=REFUSED)
def update_export(export_id: int, body: ExportUpdate, control: Controlled) -> ExportView:
    """Change an export's hosts, protocol or port rule."""
    return control(changes.update_export, export_id, body)


@router.delete("/exports/{export_id}", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def delete_export(export_id: int, control: Controlled) -> Response:
    """Stop exporting a dataset (its data stays)."""
    control(changes.delete_export, export_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/exports/{export_id}/io", responses=REFUSED)
async def export_io(export_id: int, state: Snapshot, db: Db, settings: AppSettings) -> ExportIOView:
    """Client read/write counters of one export as last observed (ganesha; knfsd answers zeros)."""
    return service.io(state.observed, db, settings, export_id)
