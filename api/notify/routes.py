"""/api/settings/notifications: where alerts are sent (e-mail, syslog), and a test send."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import Box, Db
from api.errors import ErrorBody
from api.notify import changes, service
from api.notify.schemas import NotifySettings, NotifySettingsIn, SendResult
from api.privileged.deps import Controlled

router = APIRouter(prefix="/api/settings/notifications", tags=["settings"])

REFUSED: dict[int | str, dict[str, object]] = {422: {"model": ErrorBody}}
# rsyslog refused the forwarding drop-in or did not restart (nothing stored then)
APPLIED: dict[int | str, dict[str, object]] = {
    **REFUSED,
    502: {"model": ErrorBody},
    504: {"model": ErrorBody},
}


@router.get("")
def get_notifications(db: Db) -> NotifySettings:
    """The notification settings; the SMTP password only as whether one is stored."""
    return service.load(db)[0]


@router.put("", responses=APPLIED)
def put_notifications(body: NotifySettingsIn, control: Controlled) -> NotifySettings:
    """Replace the settings; alerts already raised are sent to a newly enabled channel on the next check.

    Log forwarding (syslog.forward_logs) is applied to the appliance's rsyslog before the settings are
    stored: when rsyslog refuses it, nothing changes.
    """
    return control(changes.save, body)


@router.post("/test")
def test_notifications(db: Db, box: Box) -> list[SendResult]:
    """Send a test message on every enabled channel now; each channel's outcome (empty: none enabled)."""
    return service.send_test(db, box)
