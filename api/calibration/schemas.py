"""Calibration requests and answers (the figures are appliance.control.calibration's models)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from appliance.control.calibration import CalibrationStep, DesktopProfile, RampSpec, SanCheck, Target

CalibrationState = Literal["queued", "running", "succeeded", "failed", "cancelled", "interrupted"]


class CalibrationCreate(BaseModel):
    """A ramp of simulated desktops, or a SAN check of a free LUN."""

    kind: Literal["ramp", "san_check"] = Field(description="'ramp' (desktops supported) or 'san_check'")
    target: Target = Field(description="a free LUN (lun) or a pool's dataset (dataset); the SAN check: a LUN")
    profile: DesktopProfile = Field(
        default_factory=DesktopProfile, description="what one desktop does (ramp only)"
    )
    ramp: RampSpec = Field(default_factory=RampSpec, description="steps and threshold (ramp only)")
    san_seconds: int = Field(10, ge=2, le=300, description="seconds per SAN check test (four tests)")
    confirm_overwrite: bool = Field(
        False,
        description="required for a LUN: fio writes to the device and its contents are lost "
        "(a LUN in a pool or holding data is refused anyway)",
    )


class CalibrationOut(BaseModel):
    """A calibration: its request, its progress and its figures."""

    id: int = Field(description="Calibration id")
    kind: Literal["ramp", "san_check"] = Field(description="what it runs")
    target: Target = Field(description="where the load went")
    state: CalibrationState = Field(description="where it is; 'interrupted' when the api stopped mid-run")
    done: int = Field(description="steps finished")
    total: int = Field(description="steps planned (a ramp may stop earlier)")
    message: str = Field(description="the last progress message, or the outcome or error in words")
    profile: DesktopProfile | None = Field(description="the desktop profile (ramp only)")
    ramp: RampSpec | None = Field(description="steps and threshold (ramp only)")
    san_seconds: int | None = Field(description="seconds per SAN check test (SAN check only)")
    steps: list[CalibrationStep] = Field(description="every ramp step run so far, in order")
    desktops_supported: int | None = Field(
        description="desktops of the largest step that passed (ramp, once done)"
    )
    stop_reason: str | None = Field(description="why the ramp ended")
    san: SanCheck | None = Field(description="the SAN check's figures, once done")
    properties: dict[str, object] = Field(
        description="the dataset's properties when it ran (sync, recordsize ...)"
    )
    created_at: datetime = Field(description="when it was asked for")
    started_at: datetime | None = Field(description="when it started")
    finished_at: datetime | None = Field(description="when it ended")
