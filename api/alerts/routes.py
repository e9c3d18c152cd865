"""/api/alerts: what needs attention now (see api.alerts.service)."""

from __future__ import annotations

from fastapi import APIRouter

from api.alerts import service
from api.alerts.schemas import Alert
from api.deps import AppSettings
from api.state.deps import MaybeSnapshot
from api.storage.deps import Presence
from api.storage.routes import REFUSED

router = APIRouter(prefix="/api/alerts", tags=["alerts"])


@router.get("", responses=REFUSED)
async def list_alerts(state: MaybeSnapshot, settings: AppSettings, storage: Presence) -> list[Alert]:
    """Every alert now, critical first; empty when all is well. The storage's come with the appliance's
    published state (api.state); where this machine has no storage of its own (the fleet manager) only
    its own certificate can raise one."""
    published = state if storage.present else None
    return service.served(published, settings.data_dir, settings.metrics_interval_seconds)
