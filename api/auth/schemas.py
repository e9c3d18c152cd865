"""Login request and answers."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class LoginRequest(BaseModel):
    username: str = Field(min_length=1, max_length=64, description="Administrator name")
    password: str = Field(min_length=1, max_length=1024, description="Administrator password")


class LoginResult(BaseModel):
    username: str = Field(description="Who is logged in")
    expires_at: datetime = Field(description="When the session ends")
    token: str = Field(
        description="Bearer token for scripts (Authorization: Bearer …); browsers use the session cookie"
    )


class Me(BaseModel):
    username: str = Field(description="Who is logged in")
