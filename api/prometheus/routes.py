"""/api/metrics/prometheus, what a scraper reads, and /api/metrics/scrape-tokens, its credentials.

The exposition router is mounted behind ``require_scraper`` (a scrape token or a session); the token
routes behind the login check like every other route, so a scrape token cannot make more tokens.
"""

from __future__ import annotations

from fastapi import APIRouter, Response, status
from fastapi.responses import PlainTextResponse

from api import VERSION
from api.deps import AppSettings, CurrentUser, Db
from api.errors import ErrorBody
from api.prometheus import collect, exposition, tokens
from api.prometheus.schemas import ScrapeTokenCreate, ScrapeTokenCreated, ScrapeTokenView
from api.state.deps import MaybeSnapshot
from api.storage.deps import Fs, Presence

scrape = APIRouter(prefix="/api/metrics", tags=["prometheus"])
router = APIRouter(prefix="/api/metrics/scrape-tokens", tags=["prometheus"])


@scrape.get(
    "/prometheus",
    response_class=PlainTextResponse,
    responses={200: {"description": "Prometheus text exposition format 0.0.4"}},
)
def prometheus(db: Db, fs: Fs, settings: AppSettings, storage: Presence, state: MaybeSnapshot) -> Response:
    """The appliance's metrics for Prometheus: ARC/L2ARC, LUN and NFS I/O, pools, alerts.

    Send a scrape token (POST /api/metrics/scrape-tokens) or a session's token as a Bearer token. A
    source that cannot be read is left out and shown in arcvsa_collector_success.
    """
    published = state if storage.present else None
    found = collect.collect(fs, db, VERSION, published, settings.data_dir, settings.metrics_interval_seconds)
    text = exposition.render(found)
    return Response(text, media_type=exposition.CONTENT_TYPE)


def _view(row: tokens.ScrapeToken) -> ScrapeTokenView:
    return ScrapeTokenView(
        id=row.id,
        name=row.name,
        created_by=row.created_by,
        created_at=tokens.aware(row.created_at),
        last_used_at=tokens.aware(row.last_used_at) if row.last_used_at else None,
    )


@router.get("")
def list_tokens(db: Db) -> list[ScrapeTokenView]:
    """Every scrape token (never the token itself) and when it was last used."""
    return [_view(row) for row in tokens.list_all(db)]


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    responses={409: {"model": ErrorBody}, 422: {"model": ErrorBody}},
)
def create_token(body: ScrapeTokenCreate, db: Db, me: CurrentUser) -> ScrapeTokenCreated:
    """A scrape token for one scraper; the answer is the only time the token is shown."""
    row, token = tokens.create(db, body.name, me.username)
    return ScrapeTokenCreated(**_view(row).model_dump(), token=token)


@router.delete("/{token_id}", status_code=status.HTTP_204_NO_CONTENT, responses={404: {"model": ErrorBody}})
def revoke_token(token_id: int, db: Db) -> Response:
    """Revoke a scrape token: its scraper is refused from the next scrape on."""
    tokens.revoke(db, token_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
