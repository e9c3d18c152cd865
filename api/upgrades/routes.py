"""/api/upgrades: the releases on this appliance; upload a signed bundle; apply it."""

from __future__ import annotations

from fastapi import APIRouter, Request, status

from api.deps import AppSettings, CurrentUser
from api.errors import ErrorBody
from api.privileged.deps import Controlled
from api.upgrades import changes, service
from api.upgrades.schemas import Release, Run, UpgradeStatus

router = APIRouter(prefix="/api/upgrades", tags=["upgrades"])

REFUSED: dict[int | str, dict[str, object]] = {
    409: {"model": ErrorBody, "description": "An upgrade is running, or nothing is staged"},
}
BUNDLE_BODY: dict[str, object] = {
    "requestBody": {
        "required": True,
        "description": "The upgrade bundle (arcvsa-<version>.upgrade) as the image build wrote it",
        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
    }
}


@router.get("")
def upgrade_status(settings: AppSettings, me: CurrentUser) -> UpgradeStatus:
    """The running release, the releases kept for a rollback, the staged bundle and the last run."""
    return service.status(settings)


@router.put(
    "/bundle",
    status_code=status.HTTP_201_CREATED,
    openapi_extra=BUNDLE_BODY,
    responses={
        **REFUSED,
        422: {
            "model": ErrorBody,
            "description": "Not a bundle, unsigned, tampered, not newer, or for another base",
        },
    },
)
async def upload_bundle(request: Request, settings: AppSettings, me: CurrentUser) -> Release:
    """Upload a bundle: its signature and payload hash are checked before it is staged in place of any
    staged before; a refused file leaves nothing staged."""
    staged = await service.receive(settings, request.stream())
    service.log.info("upgrade bundle %s uploaded by %s", staged.version, me.username)
    return staged


@router.delete("/bundle", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def discard_bundle(settings: AppSettings, me: CurrentUser) -> None:
    """Remove the staged bundle."""
    service.discard(settings)


@router.post("/apply", status_code=status.HTTP_202_ACCEPTED, responses=REFUSED)
def apply_upgrade(control: Controlled, me: CurrentUser) -> Run:
    """Start the upgrade to the staged bundle. The api restarts as the new release; if that release
    does not come up, the previous one is restored (database included) and serves again. Follow it with
    GET /api/upgrades."""
    return control(changes.apply, me.username)
