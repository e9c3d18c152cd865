"""/api/appliance: this appliance's build, role and first-boot outcome."""

from __future__ import annotations

from fastapi import APIRouter

from api.appliance import service
from api.appliance.schemas import ApplianceInfo
from api.deps import AppSettings

router = APIRouter(prefix="/api/appliance", tags=["appliance"])


@router.get("")
async def appliance(settings: AppSettings) -> ApplianceInfo:
    """Build manifest, role, NFS backend and the first-boot report (refused properties included)."""
    return service.info(settings)
