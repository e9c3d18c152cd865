"""/api/health: the one route open to everyone (load balancers, the lab, the fleet manager)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api import VERSION
from api.appliance import service
from api.appliance.schemas import FirstBoot
from api.deps import AppSettings

router = APIRouter(prefix="/api", tags=["health"])


class Health(BaseModel):
    status: str = Field(description="'ok' when the api serves")
    version: str = Field(description="arcvsa version")
    firstboot: FirstBoot = Field(
        description="First boot's outcome: an admin whose OVF properties were refused learns which and why "
        "(keys and reasons only, never values) without a login, since a refused environment set no password"
    )


@router.get("/health")
async def health(settings: AppSettings) -> Health:
    """Liveness and first-boot outcome; needs no login."""
    return Health(status="ok", version=VERSION, firstboot=service.firstboot(settings))
