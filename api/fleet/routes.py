"""/api/deployments/{id}/inventory and /appliances: the deployment as it is now. Read-only."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import AppSettings, Box, Db
from api.fleet import service
from api.fleet.schemas import ApplianceStatus, DeploymentInventory
from api.jobs.routes import NOT_FOUND

router = APIRouter(prefix="/api/deployments", tags=["fleet"])


@router.get("/{deployment_id}/inventory", responses=NOT_FOUND)
def deployment_inventory(deployment_id: int, box: Box, db: Db, settings: AppSettings) -> DeploymentInventory:
    """Its desktops in vCenter against the plan, and every object destroy would remove. Changes nothing."""
    return service.inventory(db, box, deployment_id, settings.vcenter_timeout)


@router.get("/{deployment_id}/appliances", responses=NOT_FOUND)
def deployment_appliances(deployment_id: int, box: Box, db: Db) -> list[ApplianceStatus]:
    """Each appliance's health, version and pool state, asked of its own api (pinned TLS), each within
    a few seconds so that one dead appliance does not hold up the others."""
    return service.appliances(db, box, deployment_id)
