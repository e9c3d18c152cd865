"""/api/settings/tls: the api's HTTPS certificate (shown, checked, replaced; in effect after a restart)."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request

from api.certificate import service
from api.certificate.schemas import CertificateFacts, TlsState, TlsUpload
from api.deps import AppSettings, CurrentUser
from api.errors import ErrorBody

router = APIRouter(prefix="/api/settings/tls", tags=["settings"])

REFUSED: dict[int | str, dict[str, object]] = {422: {"model": ErrorBody}}
NOT_OURS: dict[int | str, dict[str, object]] = {409: {"model": ErrorBody}}


def _state(request: Request, settings: AppSettings) -> TlsState:
    chain = service.installed(settings.data_dir)
    facts = service.describe(chain, service.host_names()) if chain else None
    return TlsState(
        certificate=facts, restart_needed=bool(getattr(request.app.state, "tls_restart_needed", False))
    )


@router.get("")
def tls_state(request: Request, settings: AppSettings) -> TlsState:
    """The certificate the api serves (or will serve after its restart, when restart_needed)."""
    return _state(request, settings)


@router.post("/check", responses=REFUSED)
def check_certificate(body: TlsUpload) -> CertificateFacts:
    """Check a certificate chain and key without installing them: what the certificate says about itself."""
    pair = service.check(body.certificate, body.private_key, datetime.now(UTC))
    return service.describe(pair.chain, service.host_names())


@router.put("", responses=REFUSED)
def install_certificate(
    body: TlsUpload, request: Request, settings: AppSettings, me: CurrentUser
) -> TlsState:
    """Check, then install the certificate chain and key; the api serves them after its next restart."""
    pair = service.check(body.certificate, body.private_key, datetime.now(UTC))
    service.install(settings.data_dir, pair, by=me.username)
    request.app.state.tls_restart_needed = True
    return _state(request, settings)


@router.post("/renew", responses=NOT_OURS)
def renew_certificate(request: Request, settings: AppSettings, me: CurrentUser) -> TlsState:
    """Renew the appliance's own self-signed certificate: a new key, the same names, valid a year from now;
    served after the api's next restart. 409 for a certificate someone else issued."""
    service.renew(settings.data_dir, datetime.now(UTC), by=me.username)
    request.app.state.tls_restart_needed = True
    return _state(request, settings)
