"""/api/support: the support bundle an administrator downloads and sends to support."""

from __future__ import annotations

from fastapi import APIRouter, Response

from api.deps import CurrentUser
from api.privileged.deps import Controlled
from api.support import changes

router = APIRouter(prefix="/api/support", tags=["support"])

BUNDLE: dict[int | str, dict[str, object]] = {
    200: {
        "description": "A gzip-compressed tar archive: one folder with MANIFEST.json and one file per item",
        "content": {"application/gzip": {"schema": {"type": "string", "format": "binary"}}},
    }
}


@router.post("/bundle", response_class=Response, responses=BUNDLE)
def support_bundle(me: CurrentUser, control: Controlled) -> Response:
    """Versions, logs, pool state and history, ARC statistics, NFS and iSCSI configuration, the api's
    settings and alerts, secrets redacted. A tool that fails or hangs is listed in MANIFEST.json with its
    error; the bundle is made anyway. A POST: making it runs the appliance's tools (zpool history, the
    journal), which no read of the api does."""
    bundle = control(changes.bundle, me.username)
    return Response(
        content=bundle.data,
        media_type="application/gzip",
        headers={"Content-Disposition": f'attachment; filename="{bundle.filename}"'},
    )
