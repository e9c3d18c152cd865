"""/api/deployments/{id}/inventory and /appliances: the deployment as it is now; /api/fleet: every
appliance's figures. Read-only."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response, status
from fastapi.responses import FileResponse, JSONResponse
from starlette.concurrency import run_in_threadpool

from api.deps import AppSettings, Box, Db
from api.errors import ErrorBody, InvalidInput, NotFound
from api.fleet import backups, bundle, dashboard, proxy, service
from api.fleet.schemas import (
    ApplianceStatus,
    DeploymentInventory,
    FleetBackup,
    FleetBackupRequest,
    FleetView,
)
from api.fleet.sessions import ApplianceSessions
from api.jobs import service as jobs
from api.jobs.routes import NOT_FOUND
from api.upgrades.routes import BUNDLE_BODY
from api.upgrades.schemas import Release

router = APIRouter(prefix="/api/deployments", tags=["fleet"])
fleet_router = APIRouter(prefix="/api/fleet", tags=["fleet"])


async def get_sessions(request: Request) -> ApplianceSessions:
    sessions: ApplianceSessions = request.app.state.appliance_sessions
    return sessions


Sessions = Annotated[ApplianceSessions, Depends(get_sessions)]


@router.get("/{deployment_id}/inventory", responses=NOT_FOUND)
def deployment_inventory(deployment_id: int, box: Box, db: Db, settings: AppSettings) -> DeploymentInventory:
    """Its desktops in vCenter against the plan, and every object destroy would remove. Changes nothing."""
    return service.inventory(db, box, deployment_id, settings.vcenter_timeout)


@router.get("/{deployment_id}/appliances", responses=NOT_FOUND)
def deployment_appliances(deployment_id: int, box: Box, db: Db, sessions: Sessions) -> list[ApplianceStatus]:
    """Each appliance's health, version and pool state, asked of its own api (pinned TLS), each within
    a few seconds so that one dead appliance does not hold up the others."""
    return service.appliances(db, box, sessions, deployment_id)


@fleet_router.get("")
def fleet_view(
    box: Box,
    db: Db,
    sessions: Sessions,
    minutes: Annotated[int, Query(ge=1, le=24 * 60, description="the window, up to now")] = 60,
) -> FleetView:
    """Every appliance of every deployment with its figures over the window (offloads, hit ratios, IOPS,
    latencies, compression, space, alerts) and the fleet's sums, each appliance read within a few
    seconds so that one dead or slow appliance shows as such and never holds up the others."""
    return dashboard.view(db, box, sessions, minutes)


@fleet_router.post("/backups", status_code=status.HTTP_201_CREATED, responses=NOT_FOUND)
def make_fleet_backup(
    body: FleetBackupRequest, box: Box, db: Db, sessions: Sessions, settings: AppSettings
) -> FleetBackup:
    """Back up every appliance (or one deployment's) at once: each makes its own backup under the
    passphrase, and the manager keeps them in one archive (the 5 newest are kept) with a report of
    what each appliance did. An appliance that fails is named with why; the others are kept."""
    return backups.take(db, box, sessions, settings.data_dir, body.passphrase, body.deployment_id)


@fleet_router.get("/backups")
def list_fleet_backups(settings: AppSettings) -> list[FleetBackup]:
    """The fleet backups kept on the manager, newest first."""
    return backups.listed(settings.data_dir)


@fleet_router.get(
    "/backups/{name}",
    response_class=FileResponse,
    responses={**NOT_FOUND, 200: {"content": {"application/zip": {}}, "description": "the archive"}},
)
def download_fleet_backup(name: str, settings: AppSettings) -> FileResponse:
    """One fleet backup's archive: a folder per deployment with each appliance's own backup file."""
    return FileResponse(backups.path_of(settings.data_dir, name), media_type="application/zip", filename=name)


@fleet_router.put(
    "/bundle",
    status_code=status.HTTP_201_CREATED,
    openapi_extra=BUNDLE_BODY,
    responses={409: {"model": ErrorBody, "description": "A rolling upgrade is running"},
               422: {"model": ErrorBody, "description": "Not a bundle, unsigned or tampered"}},
)  # fmt: skip
async def upload_fleet_bundle(request: Request, db: Db, settings: AppSettings) -> Release:
    """Keep the upgrade bundle rolling upgrades give the appliances, in place of the one kept: its
    signature and payload hash are checked first (each appliance checks them again, and that it fits)."""
    busy = jobs.any_active(db, "upgrade") is not None
    return await bundle.receive(settings, request.stream(), busy)


@fleet_router.get("/bundle", responses=NOT_FOUND)
def fleet_bundle(settings: AppSettings) -> Release:
    """The upgrade bundle kept for rolling upgrades."""
    manifest = bundle.staged(settings)
    if manifest is None:
        raise NotFound("No upgrade bundle is kept on the manager")
    return Release.model_validate(manifest.model_dump())


@fleet_router.delete("/bundle", status_code=status.HTTP_204_NO_CONTENT)
def discard_fleet_bundle(db: Db, settings: AppSettings) -> None:
    """Remove the kept bundle (refused while a rolling upgrade runs)."""
    bundle.discard(settings, jobs.any_active(db, "upgrade") is not None)


async def appliance_route(
    deployment_id: int, name: str, path: str, request: Request, box: Box, db: Db, sessions: Sessions
) -> Response:
    """One of the appliance's storage routes (/api/storage/..., /api/alerts, /api/tuning/...,
    /api/calibrations), asked of the appliance through its pinned certificate as its admin; its answer
    as it gave it. The manager's web shows an appliance's storage pages through this."""
    route = proxy.target(path, request.url.query)
    body = None
    if request.method != "GET":
        raw = await request.body()
        if raw:
            try:
                body = json.loads(raw)
            except ValueError as exc:
                raise InvalidInput(f"The request body is not JSON: {exc}") from exc
    status, data = await run_in_threadpool(
        proxy.forward, db, box, sessions, deployment_id, name, request.method, route, body
    )
    if data is None:
        return Response(status_code=status)
    return JSONResponse(status_code=status, content=data)


# One route per method, in this order, each with its own operation id (one route of several methods
# gives them one id, and its methods in a set's order).
for _method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
    fleet_router.add_api_route(
        "/{deployment_id}/appliances/{name}/api/{path:path}",
        appliance_route,
        methods=[_method],
        responses=NOT_FOUND,
        operation_id=f"appliance_route_{_method.lower()}",
    )
