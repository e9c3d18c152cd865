"""/api/deployments/{id}/inventory and /appliances: the deployment as it is now. Read-only."""

from __future__ import annotations

from fastapi import APIRouter, Request

from api.deps import AppSettings, Db
from api.fleet import service
from api.fleet.schemas import ApplianceStatus, DeploymentInventory
from api.jobs.routes import NOT_FOUND
from api.secretbox import SecretBox

router = APIRouter(prefix="/api/deployments", tags=["fleet"])


def _box(request: Request) -> SecretBox:
    box: SecretBox = request.app.state.secretbox
    return box


@router.get("/{deployment_id}/inventory", responses=NOT_FOUND)
def deployment_inventory(
    deployment_id: int, request: Request, db: Db, settings: AppSettings
) -> DeploymentInventory:
    """Its desktops in vCenter against the plan, and every object destroy would remove. Changes nothing."""
    return service.inventory(db, _box(request), deployment_id, settings.vcenter_timeout)


@router.get("/{deployment_id}/appliances", responses=NOT_FOUND)
def deployment_appliances(deployment_id: int, request: Request, db: Db) -> list[ApplianceStatus]:
    """Each appliance's health, version and pool state, asked of its own api (pinned TLS), each within
    a few seconds so that one dead appliance does not hold up the others."""
    return service.appliances(db, _box(request), deployment_id)
