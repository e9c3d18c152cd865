"""/api/settings/firewall: who may reach the appliance (management and iSCSI networks, SSH on or off).

NFS follows the exports' hosts by itself. A change of the management networks answers with the change
on trial: the caller confirms it (POST .../confirm) through the new rules, or the previous ones come back.
"""

from __future__ import annotations

from fastapi import APIRouter, Request

from api.deps import AppSettings, Db
from api.errors import ErrorBody
from api.firewall import changes, service
from api.firewall.schemas import FirewallSettings, FirewallView
from api.privileged.deps import Controlled

router = APIRouter(prefix="/api/settings/firewall", tags=["settings"])

# refused before anything ran (a lockout, a bad network), or nft or systemctl failed (nothing stored)
APPLIED: dict[int | str, dict[str, object]] = {
    409: {"model": ErrorBody},
    422: {"model": ErrorBody},
    502: {"model": ErrorBody},
    504: {"model": ErrorBody},
}


def _client(request: Request) -> str:
    return request.client.host if request.client is not None else ""


@router.get("")
def get_firewall(request: Request, db: Db, settings: AppSettings) -> FirewallView:
    """The settings, every accept rule in effect, any change on trial, and the caller's address."""
    return service.view(db, settings, _client(request))


@router.put("", responses=APPLIED)
def put_firewall(body: FirewallSettings, request: Request, control: Controlled) -> FirewallView:
    """Replace the settings. Refused when the caller's own address would be left out of the management
    networks. A change of those goes on trial (see ``trial.until``) and must be confirmed; the rest is
    applied and stored at once."""
    return control(changes.save, body, _client(request))


@router.post("/confirm", responses=APPLIED)
def confirm_firewall(request: Request, control: Controlled) -> FirewallView:
    """Keep the change on trial (this request came through its rules); 409 when none waits or its time
    is up."""
    return control(changes.confirm, _client(request))


@router.delete("/trial", responses=APPLIED)
def cancel_firewall_trial(request: Request, control: Controlled) -> FirewallView:
    """Drop the change on trial now: the stored rules come back at once."""
    return control(changes.cancel, _client(request))
