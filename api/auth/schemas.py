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


class TokenResult(BaseModel):
    token: str = Field(description="Bearer token for scripts: send it as 'Authorization: Bearer <token>'")
    expires_at: datetime = Field(description="When the token stops working")


class Me(BaseModel):
    username: str = Field(description="Who is logged in")
