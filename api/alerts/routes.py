"""/api/alerts: what needs attention now (see api.alerts.service)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from api.alerts import service
from api.alerts.schemas import Alert
from api.deps import AppSettings
from api.state.deps import MaybeSnapshot
from api.storage.deps import Presence
from api.storage.routes import REFUSED

router = APIRouter(prefix="/api/alerts", tags=["alerts"])


@router.get("", responses=REFUSED)
async def list_alerts(
    request: Request, state: MaybeSnapshot, settings: AppSettings, storage: Presence
) -> list[Alert]:
    """Every alert now, critical first; empty when all is well. The storage's come with the appliance's
    published state (api.state). On the fleet manager (no storage of its own): its own certificate's,
    and every appliance's, each naming its appliance, or one saying why an appliance could not be read."""
    if storage.present:
        return service.served(state, settings.data_dir, settings.metrics_interval_seconds)
    fleet = await run_in_threadpool(request.app.state.fleet_alerts.current)
    return service.merged(service.served(None, settings.data_dir, settings.metrics_interval_seconds), fleet)
