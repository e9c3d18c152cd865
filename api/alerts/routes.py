"""/api/alerts: what needs attention now (see api.alerts.service)."""

from __future__ import annotations

import datetime as dt

from fastapi import APIRouter, Request

from api.alerts import service
from api.alerts.certificate import certificate_alert
from api.alerts.schemas import Alert
from api.deps import AppSettings
from api.inline import answer
from api.storage.deps import Fs, Gw, Presence
from api.storage.routes import REFUSED

router = APIRouter(prefix="/api/alerts", tags=["alerts"])


@router.get("", responses=REFUSED)
async def list_alerts(
    request: Request, gw: Gw, files: Fs, settings: AppSettings, storage: Presence
) -> list[Alert]:
    """Every alert now, critical first; empty when all is well. Where this machine has no storage of its
    own (the fleet manager) only its own certificate can raise one: no pool or NFS check runs there."""
    if not storage.present:
        cert = certificate_alert(settings.data_dir, dt.datetime.now(dt.UTC))
        return [cert] if cert is not None else []
    factory = request.app.state.sessionmaker
    return await answer(service.shared, gw, factory, settings.data_dir, settings=settings, files=files)
