"""/api/storage: disks, pools and datasets of this appliance. Thin: appliance.control does the work.

Reads answer from the appliance's published state (api.state) and never start a tool. A change is asked
of the control service (api.privileged: the storage tools run as root there, a replay of recorded outputs
in tests), which refreshes the parts of the published state it touched before it answers; a bad name or
an unsafe request is refused before the call.
"""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from api.errors import ErrorBody, InvalidInput
from api.storage import changes
from api.storage.deps import LocalControl as Control
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
from appliance.control import names
from appliance.control.datasets import Dataset
from appliance.control.disks import Disk
from appliance.control.errors import Refused
from appliance.control.imports import ImportableZfsPool
from appliance.control.observed import Part
from appliance.control.pools import ZfsPoolHealth, ZfsPoolSpace, ZfsPoolSpec

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
def wipe_disk(body: DiskWipe, control: Control) -> Disk:
    """Clear a disk's ZFS labels and partition table (an exported or another system's pool, a file system)
    so a pool can use it without force. ``confirm`` is the disk's name typed out (the last part of its path).

    Refused: a wrong confirmation (422, before any tool runs), an unknown disk (404), the system's disk
    (422), a mounted disk or one an imported pool uses (409, naming the pool)."""
    if body.confirm != body.path.rsplit("/", 1)[-1]:
        raise InvalidInput(
            f"type {body.path.rsplit('/', 1)[-1]} to confirm the wipe of {body.path}", field="confirm"
        )
    return control(changes.wipe_disk, body.path)


@router.get("/pools", responses=REFUSED)
async def list_pools(state: LocalSnapshot) -> list[ZfsPoolHealth]:
    """Every imported pool with its health and per-vdev errors."""
    observed = state.observed
    for failure in observed.pool_failures.values():
        failure.raise_()
    return observed.part(Part.pools, observed.pools)


@router.post("/pools", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_pool(spec: ZfsPoolSpec, control: Control) -> ZfsPoolHealth:
    """Create a pool on LUNs (stripe, mirror, raidz1/2) with an optional SLOG and L2ARC."""
    return control(changes.create_pool, spec)


@router.get("/space", responses=REFUSED)
async def pool_space(state: LocalSnapshot) -> list[ZfsPoolSpace]:
    """Every imported pool's size, allocated and free bytes and health, as ``zpool list`` gave them."""
    observed = state.observed
    return observed.part(Part.pools, observed.spaces)


@router.get("/pools/{name}", responses=REFUSED)
async def get_pool(name: str, state: LocalSnapshot) -> ZfsPoolHealth:
    """One pool's health."""
    return state.observed.pool(names.pool(name))


@router.delete("/pools/{name}", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def destroy_pool(name: str, control: Control, free_disks: bool = False) -> Response:
    """Destroy a pool and everything on it; 409 while an NFS export serves one of its datasets.

    ``free_disks``: also clear the ZFS labels and partition tables of the disks it used, so the next pool
    takes them without force (the web's destroy does; without it they keep the destroyed pool's label)."""
    control(changes.destroy_pool, names.pool(name), free_disks)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/pools/{name}/devices", responses=REFUSED)
def grow_pool(name: str, body: ZfsPoolGrow, control: Control) -> ZfsPoolHealth:
    """Grow a pool by LUNs (scale-up); the LUNs must be free unless forced."""
    return control(changes.grow_pool, names.pool(name), body)


@router.post("/pools/{name}/replace", responses=REFUSED)
def replace_device(name: str, body: ZfsPoolReplace, control: Control) -> ZfsPoolHealth:
    """Replace a LUN (failing or being retired) by a free one; resilver progress is in the pool's scan."""
    return control(changes.replace_device, names.pool(name), body)


@router.post("/pools/{name}/clear", responses=REFUSED)
def clear_pool(name: str, control: Control) -> ZfsPoolHealth:
    """Clear error counts; resumes a suspended pool once its failed LUN is back (502 while it is not)."""
    return control(changes.clear_pool, names.pool(name))


@router.post("/pools/{name}/scrub", status_code=status.HTTP_202_ACCEPTED, responses=REFUSED)
def scrub_pool(name: str, control: Control) -> ZfsPoolHealth:
    """Start a scrub; it runs in the background and its progress is in the pool's scan."""
    return control(changes.scrub_pool, names.pool(name))


@router.post("/pools/{name}/export", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def export_pool(name: str, control: Control) -> Response:
    """Export a pool (e.g. before its LUNs move to another appliance); 409 while NFS serves from it."""
    control(changes.export_pool, names.pool(name))
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/pools/{name}/import", responses=REFUSED)
def import_pool(name: str, control: Control) -> ZfsPoolHealth:
    """Import a pool found on this appliance's LUNs (after an export, or LUNs moved here)."""
    return control(changes.import_pool, names.pool(name))


@router.get("/imports", responses=REFUSED)
async def list_imports(state: LocalSnapshot) -> list[ImportableZfsPool]:
    """Pools on this appliance's LUNs that are not imported, with the ids that tell two of one name apart."""
    return state.observed.part(Part.imports, state.observed.imports)


@router.post("/imports/{pool_id}", responses=REFUSED)
def import_by_id(pool_id: str, control: Control, body: ZfsPoolImport | None = None) -> ZfsPoolHealth:
    """Import the pool with this id (from GET /imports), under a new name if given; its exports are
    added again on the exports page, as after an import by name."""
    return control(changes.import_by_id, pool_id, body.name if body else None)


@router.get("/pools/{name}/datasets", responses=REFUSED)
async def list_datasets(name: str, state: LocalSnapshot) -> list[Dataset]:
    """Datasets and zvols of a pool, with compression ratio and space."""
    return state.observed.datasets_of(names.pool(name))


@router.post("/datasets", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_dataset(body: DatasetCreate, control: Control) -> Dataset:
    """Create a datastore dataset tuned by a pool type's profile (overrides validated)."""
    return control(changes.create_dataset, body)


@router.post("/volumes", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_volume(body: VolumeCreate, control: Control) -> Dataset:
    """A sparse zvol (lz4) for an iSCSI LUN."""
    return control(changes.create_volume, body)


@router.post("/snapshots", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_snapshot(body: SnapshotCreate, control: Control) -> Dataset:
    """Snapshot a dataset (e.g. a golden image before it is cloned)."""
    return control(changes.create_snapshot, body)


@router.post("/clones", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_clone(body: CloneCreate, control: Control) -> Dataset:
    """An instant copy of a snapshot (full-clone pools); it shares blocks until they diverge."""
    return control(changes.create_clone, body)


@router.delete("/datasets/{name:path}", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def destroy_dataset(name: str, control: Control) -> Response:
    """Destroy a dataset or zvol below a pool's root (e.g. a desktop's ZFS clone), never what others use.

    Refused: the pool root (that goes with the pool), a dataset an NFS export uses or lies below
    (409 naming the export), one with dependent clones, children or snapshots (409, zfs's own words).
    """
    names.dataset(name)
    if "/" not in name:
        raise Refused(f"{name} is a pool's root: it goes with the pool (DELETE /api/storage/pools/{name})")
    control(changes.destroy_dataset, names.child_dataset(name))
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.patch("/datasets/{name:path}", responses=REFUSED)
def update_dataset(name: str, body: DatasetUpdate, control: Control) -> Dataset:
    """Change a dataset's properties: quota and reservation, compression, recordsize ... (validated)."""
    return control(changes.update_dataset, names.dataset(name), body)


@router.delete("/snapshots/{name:path}", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def destroy_snapshot(name: str, control: Control) -> Response:
    """Destroy one snapshot (dataset@tag); 409 while clones depend on it."""
    control(changes.destroy_snapshot, names.snapshot(name))
    return Response(status_code=status.HTTP_204_NO_CONTENT)
