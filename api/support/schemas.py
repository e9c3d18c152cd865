"""The bundle's MANIFEST.json: every item, where it came from and how its collection went."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

Status = Literal["ok", "missing", "failed", "timeout", "skipped"]


class ManifestItem(BaseModel):
    """One file of the bundle, or the reason it has none."""

    name: str = Field(description="path inside the bundle's top folder (a folder ends with /)")
    source: str = Field(description="what it came from: 'command: argv', 'file: path' or 'api: what'")
    status: Status = Field(
        description="ok: in the bundle; missing: tool or file absent; failed: the tool or read failed; "
        "timeout: killed after its timeout; skipped: not run (an earlier pool command timed out)"
    )
    error_type: str | None = Field(
        None, description="the typed error's class (CommandFailed, ToolMissing...)"
    )
    error: str | None = Field(None, description="the error's message, redacted like the files")
    exit_code: int | None = Field(None, description="the command's exit code, when it ran to its end")
    truncated: bool = Field(False, description="only the end of the output was kept (size cap)")
    size: int = Field(0, ge=0, description="bytes of the file in the bundle")
    seconds: float = Field(0.0, ge=0, description="how long its collection took")


class Redaction(BaseModel):
    """What redaction did, so a reader knows why a value shows as <redacted>."""

    marker: str = Field(description="what a redacted value is replaced by")
    secrets_known: int = Field(ge=0, description="secret values the appliance knows, masked wherever found")
    secrets_too_short: int = Field(
        ge=0, description="known secrets too short to mask by value (masked only by their key's name)"
    )
    secrets_unreadable: int = Field(ge=0, description="stored secrets that could not be decrypted to mask")
    structural: int = Field(ge=0, description="values replaced because their key's name says secret")
    by_value: int = Field(ge=0, description="occurrences of a known secret replaced")


class Manifest(BaseModel):
    """The bundle's table of contents."""

    product: str = Field(description="always arcvsa")
    version: str = Field(description="the api's version (api.VERSION)")
    hostname: str = Field(description="the appliance's host name")
    created_at: datetime = Field(description="when the bundle was made (UTC)")
    created_by: str = Field(description="the user who asked for it")
    never_included: list[str] = Field(description="what a bundle never holds, whatever the settings")
    items: list[ManifestItem] = Field(description="every item, in collection order")
    redaction: Redaction = Field(description="what redaction did")
