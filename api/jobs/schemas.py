"""Job answers."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

JobState = Literal["queued", "running", "succeeded", "failed", "cancelled", "interrupted"]


class Failure(BaseModel):
    object: str = Field(description="What failed: a desktop, an appliance, 'datastore@host'")
    reason: str = Field(description="The vCenter fault, in words")


class JobOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int = Field(description="Job id")
    deployment_id: int = Field(description="The deployment it applies, destroys or upgrades")
    kind: Literal["apply", "destroy", "upgrade"] = Field(
        description="What it does: make what is missing, remove it all, or a rolling upgrade of its appliances"
    )
    state: JobState = Field(description="Where it is; 'interrupted' jobs resume when the api starts")
    cancel_requested: bool = Field(description="Whether a cancel was asked for")
    runs: int = Field(description="How many times it was started (resumes count)")
    done: int = Field(description="Objects finished (made, removed or failed)")
    total: int = Field(description="Objects this run handles")
    message: str = Field(description="Outcome or the error, in words")
    failures: list[Failure] = Field(description="Objects that failed; the next apply retries them")
    created_at: datetime = Field(description="When it was asked for")
    started_at: datetime | None = Field(description="When its last run started")
    finished_at: datetime | None = Field(description="When it finished")


class JobEventOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int = Field(description="Event id, increasing; ask for events after the last one seen")
    at: datetime = Field(description="When")
    kind: str = Field(description="'info', 'done', 'failed', 'retry', 'bytes' or 'state'")
    object: str | None = Field(description="The object it is about, if any")
    message: str = Field(description="What happened")
    done: int = Field(description="Objects finished at this point")
    total: int = Field(description="Objects in this run")
