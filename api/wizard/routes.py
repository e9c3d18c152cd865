"""/api/wizard/offers: what the deployment wizard can offer from this machine. Read-only."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import AppSettings
from api.wizard import service
from api.wizard.schemas import Offers

router = APIRouter(prefix="/api/wizard", tags=["wizard"])


@router.get("/offers")
def offers(settings: AppSettings) -> Offers:
    """The OVAs found on this machine and the lab appliances standing in for appliance VMs."""
    return service.offers(settings)
