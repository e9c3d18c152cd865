"""What /api/upgrades answers: the releases on the appliance, the staged bundle, the last run."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# The upgrader's states, as appliance/upgrade/apply.py writes them to state.json.
State = Literal[
    "queued",
    "verifying",
    "installing",
    "switching",
    "rolling_back",
    "done",
    "rolled_back",
    "refused",
    "failed",
]
RUNNING: frozenset[str] = frozenset({"queued", "verifying", "installing", "switching", "rolling_back"})


class Release(BaseModel):
    """One build of arcvsa as its signed manifest describes it."""

    version: str = Field(description="the build's version (git describe)")
    release: int = Field(description="orders versions: higher is newer")
    payload_sha256: str = Field(description="SHA-256 of the release's payload (code, dependencies, web)")
    payload_bytes: int = Field(description="size of the payload")
    base_key: str = Field(description="hash of the OS package set the release needs")


class UpgradeStep(BaseModel):
    at: str = Field(description="when the upgrader reached this state (UTC)")
    state: State


class Run(BaseModel):
    """The last (or the running) upgrade, as the upgrader records it."""

    state: State
    from_version: str | None = Field(None, description="the release that ran before")
    to_version: str | None = Field(None, description="the release being installed")
    error: str | None = Field(None, description="why it was refused, failed or rolled back")
    code: str | None = Field(None, description="for a refused bundle: the refusal's code")
    updated: str | None = Field(None, description="when the state last changed (UTC)")
    steps: list[UpgradeStep] = Field(default_factory=list)
    in_progress: bool = Field(
        False, description="the upgrader is still at work (a running state that moved within the last hour)"
    )


class UpgradeStatus(BaseModel):
    current: Release | None = Field(description="the release running now (none outside an appliance)")
    installed: list[Release] = Field(
        description="releases on the disk, newest first (one is a rollback target)"
    )
    staged: Release | None = Field(description="the uploaded, verified bundle waiting to be applied")
    last: Run | None = Field(description="the last upgrade run")
