"""The Prometheus scrape tokens in a backup: each one's SHA-256 only (the token itself was shown once
and never kept), so the same tokens work again on the restored appliance."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import delete, select

from api.backup.section import Context, Restoring, Section, Skipped
from api.prometheus.tokens import ScrapeToken


class BackupScrapeToken(BaseModel):
    """A Prometheus scrape token by its hash."""

    model_config = ConfigDict(from_attributes=True)  # read from the scrape_tokens table's rows

    name: str = Field(description="token name")
    token_sha256: str = Field(description="SHA-256 of the token")
    created_by: str = Field(description="who made it")
    created_at: datetime = Field(description="when")
    last_used_at: datetime | None = Field(description="last scrape with it")


class ScrapeTokens(BaseModel):
    tokens: list[BackupScrapeToken] = Field(description="Prometheus scrape tokens")


class ScrapeTokensSection(Section):
    key = "scrape_tokens"
    title = "Scrape tokens"
    model = ScrapeTokens

    def collect(self, ctx: Context, skipped: list[Skipped]) -> ScrapeTokens:
        rows = ctx.db.scalars(select(ScrapeToken).order_by(ScrapeToken.id))
        return ScrapeTokens(tokens=[BackupScrapeToken.model_validate(row) for row in rows])

    def store(self, ctx: Context, value: ScrapeTokens | None, restoring: Restoring) -> list[str]:
        ctx.db.execute(delete(ScrapeToken))
        tokens = value.tokens if value is not None else []
        ctx.db.add_all(ScrapeToken(**t.model_dump()) for t in tokens)
        return [t.name for t in tokens]


SECTION = ScrapeTokensSection()
