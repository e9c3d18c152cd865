"""The upgrader's ``state.json``: written whole by the upgrader and by the api that queues a run."""

from __future__ import annotations

import json
import os
from pathlib import Path

from appliance.control.files import owned_like_folder, write_temp

FILE = "state.json"


def save(path: Path, state: dict[str, object]) -> None:
    """Write state.json whole (temporary file, rename): its readers never see half a run. The upgrader
    (root) writes it in the api's folder, as the api's (owned_like_folder)."""
    if not path.parent.is_dir():
        path.parent.mkdir(mode=0o700, parents=True)
        owned_like_folder(path.parent, path.parent.parent)
    tmp = write_temp(path.parent, (json.dumps(state, indent=2) + "\n").encode("utf-8"), 0o600, ".state-")
    os.replace(tmp, path)


def queued(path: Path) -> dict[str, object]:
    """The run the api queued (its versions and first step), continued rather than overwritten."""
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return dict(state) if isinstance(state, dict) and state.get("state") == "queued" else {}
