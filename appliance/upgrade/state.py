"""The upgrader's ``state.json``: written whole by the upgrader and by the api that queues a run."""

from __future__ import annotations

import json
import os
from pathlib import Path

FILE = "state.json"


def save(path: Path, state: dict[str, object]) -> None:
    """Write state.json whole (temporary file, rename): its readers never see half a run."""
    tmp = path.with_suffix(".tmp")
    tmp.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def queued(path: Path) -> dict[str, object]:
    """The run the api queued (its versions and first step), continued rather than overwritten."""
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return dict(state) if isinstance(state, dict) and state.get("state") == "queued" else {}
