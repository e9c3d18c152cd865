"""Scrape tokens: long-lived bearer credentials that read the Prometheus exposition and nothing else.

Prometheus cannot log in, and a login session ends after ``session_hours``; an admin creates a token per
scraper instead (shown once), Prometheus sends it from its ``credentials_file``. Only its SHA-256 is kept
(the token is 256 random bits, so a plain hash is enough, as for sessions). The prefix tells it from a
session token at a glance, in a config file or a secret scanner, and routes the lookup.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import DateTime, String, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from api.db import Base
from api.errors import Conflict, NotFound

PREFIX = "arcvsa_scrape_"
# Record use at most this often: Prometheus scrapes every few seconds, the row need not be written each time.
TOUCH_EVERY = timedelta(minutes=1)


class ScrapeToken(Base):
    __tablename__ = "scrape_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


def _sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def aware(ts: datetime) -> datetime:
    """SQLite gives back naive datetimes; every time stored is UTC."""
    return ts if ts.tzinfo else ts.replace(tzinfo=UTC)


def create(db: Session, name: str, created_by: str) -> tuple[ScrapeToken, str]:
    """A new token named ``name``: the row and the token itself, which is never stored or shown again."""
    token = PREFIX + secrets.token_urlsafe(32)
    row = ScrapeToken(
        name=name, token_sha256=_sha256(token), created_by=created_by, created_at=datetime.now(UTC)
    )
    db.add(row)
    try:
        db.commit()
    except IntegrityError:
        db.rollback()
        raise Conflict(f"a scrape token named {name!r} exists", field="name") from None
    return row, token


def list_all(db: Session) -> list[ScrapeToken]:
    """Every token, oldest first."""
    return list(db.scalars(select(ScrapeToken).order_by(ScrapeToken.id)))


def revoke(db: Session, token_id: int) -> None:
    """Delete a token: the scraper using it gets 401 from its next scrape on."""
    if db.execute(delete(ScrapeToken).where(ScrapeToken.id == token_id)).rowcount == 0:  # type: ignore[attr-defined]
        raise NotFound(f"no scrape token {token_id}")
    db.commit()


def resolve(db: Session, token: str) -> ScrapeToken | None:
    """The token's row, its last use recorded; None for an unknown or revoked token."""
    row = db.scalar(select(ScrapeToken).where(ScrapeToken.token_sha256 == _sha256(token)))
    if row is None:
        return None
    now = datetime.now(UTC)
    if row.last_used_at is None or now - aware(row.last_used_at) >= TOUCH_EVERY:
        row.last_used_at = now
        db.commit()
    return row
