"""Requests and answers of /api/users. Passwords go in, never out."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def _username(value: str) -> str:
    if not _NAME.fullmatch(value):
        raise ValueError("use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit")
    return value


Username = Annotated[str, Field(max_length=64), AfterValidator(_username)]
# The appliance's admin_password OVF property takes 8 to 128 characters: the same rule here.
NewPassword = Annotated[str, Field(min_length=8, max_length=128)]


class UserView(BaseModel):
    id: int = Field(description="User id")
    username: str = Field(description="Login name")
    created_at: datetime = Field(description="When the user was added")
    you: bool = Field(description="Whether this is the user making the request")


class UserCreate(BaseModel):
    username: Username = Field(description="Login name: letters, digits, '.', '_' or '-'")
    password: NewPassword = Field(description="8 to 128 characters")


class PasswordChange(BaseModel):
    current_password: str | None = Field(
        default=None, max_length=1024, description="Required when changing your own password"
    )
    new_password: NewPassword = Field(description="8 to 128 characters")
