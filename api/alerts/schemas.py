"""An alert as the api and web show it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Alert(BaseModel):
    """One condition that needs attention; it is gone from the list once its cause is."""

    key: str = Field(description="stable identity of the condition, e.g. 'pool/tank/suspended'")
    severity: Literal["critical", "warning"] = Field(description="critical: I/O stopped or data at risk")
    subject: str = Field(description="what it is about: a pool, or a pool's device")
    message: str = Field(description="what is wrong and what to do, in plain words")
