"""/api/storage: disks, pools and datasets of this appliance. Thin: appliance.control does the work.

Every call runs system tools through the one gateway on app.state (a replay of recorded outputs in
tests); a bad name or an unsafe request is refused before any tool runs.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response, status
from zfs_tuning import profiles

from api.errors import ErrorBody
from api.storage.schemas import DatasetCreate
from appliance.control import datasets, disks, names, pools
from appliance.control.datasets import Dataset
from appliance.control.disks import Disk
from appliance.control.gateway import Gateway
from appliance.control.pools import PoolHealth, PoolSpec

router = APIRouter(prefix="/api/storage", tags=["storage"])
REFUSED: dict[int | str, dict[str, object]] = {
    404: {"model": ErrorBody},
    409: {"model": ErrorBody},
    422: {"model": ErrorBody},
    502: {"model": ErrorBody},
    504: {"model": ErrorBody},
}


def _gateway(request: Request) -> Gateway:
    gateway: Gateway = request.app.state.storage_gateway
    return gateway


Gw = Annotated[Gateway, Depends(_gateway)]


@router.get("/disks", responses=REFUSED)
def list_disks(gw: Gw) -> list[Disk]:
    """Block devices with stable ids, size, serial/WWN and whether they are in use."""
    return disks.inventory(gw)


@router.get("/pools", responses=REFUSED)
def list_pools(gw: Gw) -> list[PoolHealth]:
    """Every imported pool with its health and per-vdev errors."""
    return [pools.status(gw, name) for name in pools.list_names(gw)]


@router.post("/pools", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_pool(spec: PoolSpec, gw: Gw) -> PoolHealth:
    """Create a pool on LUNs (stripe, mirror, raidz1/2) with an optional SLOG and L2ARC."""
    return pools.create(gw, spec)


@router.get("/pools/{name}", responses=REFUSED)
def get_pool(name: str, gw: Gw) -> PoolHealth:
    """One pool's health."""
    return pools.status(gw, names.pool(name))


@router.delete("/pools/{name}", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def destroy_pool(name: str, gw: Gw) -> Response:
    """Destroy a pool and everything on it."""
    pools.destroy(gw, names.pool(name))
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/pools/{name}/datasets", responses=REFUSED)
def list_datasets(name: str, gw: Gw) -> list[Dataset]:
    """Datasets and zvols of a pool, with compression ratio and space."""
    return datasets.list_all(gw, names.pool(name))


@router.post("/datasets", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_dataset(body: DatasetCreate, gw: Gw) -> Dataset:
    """Create a datastore dataset tuned by a pool type's profile (overrides validated)."""
    return datasets.create_for_profile(gw, body.name, profiles.load(body.profile), body.properties)
