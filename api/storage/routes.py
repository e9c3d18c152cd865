"""/api/storage: disks, pools and datasets of this appliance. Thin: appliance.control does the work.

Reads answer from the appliance's published state (api.state) and never start a tool. A change runs
its tools through the one gateway on app.state (a replay of recorded outputs in tests), refreshes the
parts of the published state it touched, and answers; a bad name or an unsafe request is refused
before any tool runs.
"""

from __future__ import annotations

from fastapi import APIRouter, Response, status
from zfs_tuning import profiles

from api.deps import Db
from api.errors import ErrorBody, InvalidInput
from api.exports import service as exports
from api.state.deps import DATASET_PARTS, IMPORT_PARTS, POOL_PARTS, Refreshed
from api.storage.deps import LocalGw as Gw
from api.storage.deps import LocalSnapshot, Presence
from api.storage.presence import StoragePresence
from api.storage.schemas import (
    CloneCreate,
    DatasetCreate,
    DatasetUpdate,
    DiskWipe,
    SnapshotCreate,
    VolumeCreate,
    ZfsPoolGrow,
    ZfsPoolImport,
    ZfsPoolReplace,
)
from appliance.control import datasets, imports, labels, names, pools
from appliance.control.datasets import Dataset
from appliance.control.disks import Disk
from appliance.control.errors import Conflict, Refused
from appliance.control.imports import ImportableZfsPool
from appliance.control.observed import Part
from appliance.control.pools import ZfsPoolHealth, ZfsPoolSpec

router = APIRouter(prefix="/api/storage", tags=["storage"])
REFUSED: dict[int | str, dict[str, object]] = {
    404: {"model": ErrorBody},
    409: {"model": ErrorBody},
    422: {"model": ErrorBody},
    502: {"model": ErrorBody},
    503: {"model": ErrorBody},
    504: {"model": ErrorBody},
}


@router.get("/presence")
async def storage_presence(found: Presence) -> StoragePresence:
    """Whether this machine has storage of its own (an appliance) or not (the fleet manager), and why:
    where it has none, every other route here answers 404 ``no_local_storage`` with the same words."""
    return found


@router.get("/disks", responses=REFUSED)
async def list_disks(state: LocalSnapshot) -> list[Disk]:
    """Block devices with stable ids, size, serial/WWN and whether they are in use."""
    return state.observed.part(Part.disks, state.observed.disks)


@router.post("/disks/wipe", responses=REFUSED)
def wipe_disk(body: DiskWipe, gw: Gw, refresh: Refreshed) -> Disk:
    """Clear a disk's ZFS labels and partition table (an exported or another system's pool, a file system)
    so a pool can use it without force. ``confirm`` is the disk's name typed out (the last part of its path).

    Refused: a wrong confirmation (422, before any tool runs), an unknown disk (404), the system's disk
    (422), a mounted disk or one an imported pool uses (409, naming the pool)."""
    if body.confirm != body.path.rsplit("/", 1)[-1]:
        raise InvalidInput(
            f"type {body.path.rsplit('/', 1)[-1]} to confirm the wipe of {body.path}", field="confirm"
        )
    wiped = labels.wipe(gw, body.path)
    refresh(*IMPORT_PARTS)
    return wiped


@router.get("/pools", responses=REFUSED)
async def list_pools(state: LocalSnapshot) -> list[ZfsPoolHealth]:
    """Every imported pool with its health and per-vdev errors."""
    observed = state.observed
    for failure in observed.pool_failures.values():
        failure.raise_()
    return observed.part(Part.pools, observed.pools)


@router.post("/pools", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_pool(spec: ZfsPoolSpec, gw: Gw, refresh: Refreshed) -> ZfsPoolHealth:
    """Create a pool on LUNs (stripe, mirror, raidz1/2) with an optional SLOG and L2ARC."""
    health = pools.create(gw, spec)
    refresh(*POOL_PARTS)
    return health


@router.get("/pools/{name}", responses=REFUSED)
async def get_pool(name: str, state: LocalSnapshot) -> ZfsPoolHealth:
    """One pool's health."""
    return state.observed.pool(names.pool(name))


@router.delete("/pools/{name}", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def destroy_pool(name: str, gw: Gw, db: Db, refresh: Refreshed, free_disks: bool = False) -> Response:
    """Destroy a pool and everything on it; 409 while an NFS export serves one of its datasets.

    ``free_disks``: also clear the ZFS labels and partition tables of the disks it used, so the next pool
    takes them without force (the web's destroy does; without it they keep the destroyed pool's label)."""
    _refuse_if_exported(db, names.pool(name))
    if free_disks:
        labels.destroy_and_free(gw, name)
    else:
        pools.destroy(gw, name)
    refresh(*POOL_PARTS)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/pools/{name}/devices", responses=REFUSED)
def grow_pool(name: str, body: ZfsPoolGrow, gw: Gw, refresh: Refreshed) -> ZfsPoolHealth:
    """Grow a pool by LUNs (scale-up); the LUNs must be free unless forced."""
    health = pools.add(gw, names.pool(name), body.devices, layout=body.layout, force=body.force)
    refresh(*POOL_PARTS)
    return health


@router.post("/pools/{name}/replace", responses=REFUSED)
def replace_device(name: str, body: ZfsPoolReplace, gw: Gw, refresh: Refreshed) -> ZfsPoolHealth:
    """Replace a LUN (failing or being retired) by a free one; resilver progress is in the pool's scan."""
    health = pools.replace(gw, names.pool(name), body.old, body.new, force=body.force)
    refresh(*POOL_PARTS)
    return health


@router.post("/pools/{name}/clear", responses=REFUSED)
def clear_pool(name: str, gw: Gw, refresh: Refreshed) -> ZfsPoolHealth:
    """Clear error counts; resumes a suspended pool once its failed LUN is back (502 while it is not)."""
    health = pools.clear(gw, names.pool(name))
    refresh(Part.pools)
    return health


@router.post("/pools/{name}/scrub", status_code=status.HTTP_202_ACCEPTED, responses=REFUSED)
def scrub_pool(name: str, gw: Gw, refresh: Refreshed) -> ZfsPoolHealth:
    """Start a scrub; it runs in the background and its progress is in the pool's scan."""
    pools.scrub(gw, names.pool(name))
    health = pools.status(gw, name)
    refresh(Part.pools)
    return health


@router.post("/pools/{name}/export", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def export_pool(name: str, gw: Gw, db: Db, refresh: Refreshed) -> Response:
    """Export a pool (e.g. before its LUNs move to another appliance); 409 while NFS serves from it."""
    _refuse_if_exported(db, names.pool(name))
    pools.export(gw, name)
    refresh(*IMPORT_PARTS)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/pools/{name}/import", responses=REFUSED)
def import_pool(name: str, gw: Gw, refresh: Refreshed) -> ZfsPoolHealth:
    """Import a pool found on this appliance's LUNs (after an export, or LUNs moved here)."""
    health = pools.import_pool(gw, names.pool(name))
    refresh(*IMPORT_PARTS)
    return health


@router.get("/imports", responses=REFUSED)
async def list_imports(state: LocalSnapshot) -> list[ImportableZfsPool]:
    """Pools on this appliance's LUNs that are not imported, with the ids that tell two of one name apart."""
    return state.observed.part(Part.imports, state.observed.imports)


@router.post("/imports/{pool_id}", responses=REFUSED)
def import_by_id(
    pool_id: str, gw: Gw, refresh: Refreshed, body: ZfsPoolImport | None = None
) -> ZfsPoolHealth:
    """Import the pool with this id (from GET /imports), under a new name if given; its exports are
    added again on the exports page, as after an import by name."""
    health = imports.import_by_id(gw, pool_id, body.name if body else None)
    refresh(*IMPORT_PARTS)
    return health


@router.get("/pools/{name}/datasets", responses=REFUSED)
async def list_datasets(name: str, state: LocalSnapshot) -> list[Dataset]:
    """Datasets and zvols of a pool, with compression ratio and space."""
    return state.observed.datasets_of(names.pool(name))


@router.post("/datasets", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_dataset(body: DatasetCreate, gw: Gw, refresh: Refreshed) -> Dataset:
    """Create a datastore dataset tuned by a pool type's profile (overrides validated)."""
    made = datasets.create_for_profile(gw, body.name, profiles.load(body.profile), body.properties)
    refresh(*DATASET_PARTS)
    return made


@router.post("/volumes", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_volume(body: VolumeCreate, gw: Gw, refresh: Refreshed) -> Dataset:
    """A sparse zvol (lz4) for an iSCSI LUN."""
    made = datasets.create_volume(gw, body.name, body.size_bytes, volblocksize=body.volblocksize)
    refresh(*DATASET_PARTS)
    return made


@router.post("/snapshots", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_snapshot(body: SnapshotCreate, gw: Gw, refresh: Refreshed) -> Dataset:
    """Snapshot a dataset (e.g. a golden image before it is cloned)."""
    made = datasets.snapshot(gw, body.name)
    refresh(*DATASET_PARTS)
    return made


@router.post("/clones", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_clone(body: CloneCreate, gw: Gw, refresh: Refreshed) -> Dataset:
    """An instant copy of a snapshot (full-clone pools); it shares blocks until they diverge."""
    made = datasets.clone(gw, body.snapshot, body.target, body.properties)
    refresh(*DATASET_PARTS)
    return made


@router.delete("/datasets/{name:path}", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def destroy_dataset(name: str, gw: Gw, db: Db, refresh: Refreshed) -> Response:
    """Destroy a dataset or zvol below a pool's root (e.g. a desktop's ZFS clone), never what others use.

    Refused: the pool root (that goes with the pool), a dataset an NFS export uses or lies below
    (409 naming the export), one with dependent clones, children or snapshots (409, zfs's own words).
    """
    names.dataset(name)
    if "/" not in name:
        raise Refused(f"{name} is a pool's root: it goes with the pool (DELETE /api/storage/pools/{name})")
    _refuse_if_exported(db, name)
    datasets.destroy(gw, names.child_dataset(name))
    refresh(*DATASET_PARTS)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.patch("/datasets/{name:path}", responses=REFUSED)
def update_dataset(name: str, body: DatasetUpdate, gw: Gw, refresh: Refreshed) -> Dataset:
    """Change a dataset's properties: quota and reservation, compression, recordsize ... (validated)."""
    made = datasets.set_properties(gw, names.dataset(name), body.properties)
    refresh(*DATASET_PARTS)
    return made


@router.delete("/snapshots/{name:path}", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def destroy_snapshot(name: str, gw: Gw, refresh: Refreshed) -> Response:
    """Destroy one snapshot (dataset@tag); 409 while clones depend on it."""
    datasets.destroy(gw, names.snapshot(name))
    refresh(*DATASET_PARTS)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


def _refuse_if_exported(db: Db, name: str) -> None:
    """409 naming the export when NFS serves ``name`` or a dataset below it."""
    for export in exports.desired(db):
        if export.dataset == name or export.dataset.startswith(name + "/"):
            raise Conflict(f"NFS export {export.export_id} uses {export.dataset}: delete the export first")
