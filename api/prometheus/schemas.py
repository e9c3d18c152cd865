"""Requests and answers of /api/metrics/scrape-tokens. The token goes out once, at creation."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def _name(value: str) -> str:
    if not _NAME.fullmatch(value):
        raise ValueError("use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit")
    return value


class ScrapeTokenCreate(BaseModel):
    name: Annotated[str, Field(max_length=64), AfterValidator(_name)] = Field(
        description="Which scraper will use it, e.g. 'prometheus-dc1': letters, digits, '.', '_' or '-'"
    )


class ScrapeTokenView(BaseModel):
    id: int = Field(description="Token id (to revoke it)")
    name: str = Field(description="Which scraper uses it")
    created_by: str = Field(description="The administrator who created it")
    created_at: datetime = Field(description="When it was created")
    last_used_at: datetime | None = Field(description="Its latest scrape, to the minute (null: never used)")


class ScrapeTokenCreated(ScrapeTokenView):
    token: str = Field(
        description="The token, shown this once (only its hash is kept): put it in Prometheus' "
        "credentials_file and scrape GET /api/metrics/prometheus with authorization type Bearer"
    )
