"""/api/alerts: what needs attention now (see api.alerts.service)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from api.alerts import service
from api.alerts.schemas import Alert
from api.deps import AppSettings
from api.inline import answer
from api.storage.deps import Fs, Gw
from api.storage.routes import REFUSED

router = APIRouter(prefix="/api/alerts", tags=["alerts"])


@router.get("", responses=REFUSED)
async def list_alerts(request: Request, gw: Gw, files: Fs, settings: AppSettings) -> list[Alert]:
    """Every alert now, critical first; empty when all is well."""
    factory = request.app.state.sessionmaker
    return await answer(service.shared, gw, factory, settings.data_dir, settings=settings, files=files)
