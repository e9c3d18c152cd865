"""/api/health: the one route open to everyone (load balancers, the lab, the fleet manager)."""

from __future__ import annotations

from importlib.metadata import version

from fastapi import APIRouter
from pydantic import BaseModel, Field

router = APIRouter(prefix="/api", tags=["health"])


class Health(BaseModel):
    status: str = Field(description="'ok' when the api serves")
    version: str = Field(description="arcvsa version")


@router.get("/health")
def health() -> Health:
    """Liveness; needs no login."""
    return Health(status="ok", version=version("arcvsa"))
