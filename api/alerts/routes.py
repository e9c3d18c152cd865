"""/api/alerts: what needs attention now (see api.alerts.service)."""

from __future__ import annotations

from fastapi import APIRouter

from api.alerts import service
from api.alerts.schemas import Alert
from api.deps import AppSettings, Db
from api.storage.deps import Fs, Gw
from api.storage.routes import REFUSED

router = APIRouter(prefix="/api/alerts", tags=["alerts"])


@router.get("", responses=REFUSED)
def list_alerts(gw: Gw, files: Fs, db: Db, settings: AppSettings) -> list[Alert]:
    """Every alert now, critical first; empty when all is well."""
    return service.current(gw, db, settings.data_dir, settings=settings, files=files)
