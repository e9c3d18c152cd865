"""/api/alerts: what needs attention now (see api.alerts.service)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from api.alerts import service
from api.alerts.schemas import Alert
from api.deps import AppSettings
from api.storage.deps import Fs, Gw
from api.storage.routes import REFUSED

router = APIRouter(prefix="/api/alerts", tags=["alerts"])


@router.get("", responses=REFUSED)
def list_alerts(request: Request, gw: Gw, files: Fs, settings: AppSettings) -> list[Alert]:
    """Every alert now, critical first; empty when all is well."""
    factory = request.app.state.sessionmaker
    return service.shared(gw, factory, settings.data_dir, settings=settings, files=files)
