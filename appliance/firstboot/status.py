"""The first-boot status report: what the console shows and what the api serves to the admin.

A JSON file (/var/lib/arcvsa/firstboot.json) with the outcome and, for a refused environment,
one entry per refused property. It never carries property values, so no password can leak.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import PurePosixPath
from typing import Any

from appliance.firstboot.errors import ConfigInvalid, FirstBootError
from appliance.firstboot.service import Outcome

STATUS_FILE = PurePosixPath("/var/lib/arcvsa/firstboot.json")


def outcome_report(outcome: Outcome, now: dt.datetime) -> dict[str, Any]:
    """Report for a run that applied (or skipped)."""
    return {
        "status": outcome.status,
        "finished_at": now.isoformat(),
        "transport": outcome.transport,
        "origin": outcome.origin,
        "changed": list(outcome.changed),
        "warnings": list(outcome.warnings),
        "errors": [],
    }


def error_report(error: FirstBootError, now: dt.datetime) -> dict[str, Any]:
    """Report for a refused or failed run: nothing was applied."""
    if isinstance(error, ConfigInvalid):
        errors: list[dict[str, str | None]] = [
            {"key": e.key, "label": e.label, "message": e.message} for e in error.errors
        ]
        status = "refused"
    else:
        errors = [{"key": None, "label": None, "message": str(error)}]
        status = "failed"
    return {"status": status, "finished_at": now.isoformat(), "changed": [], "warnings": [], "errors": errors}


def render_report(report: dict[str, Any]) -> bytes:
    """Stable JSON bytes."""
    return (json.dumps(report, indent=2, sort_keys=True) + "\n").encode()
