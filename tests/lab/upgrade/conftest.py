"""The image the upgrade test starts from: the previous commit's build when it can be upgraded."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from lab import previous

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def upgrade_from() -> dict[str, Any]:
    """{"mode": "previous" | "same", "record": the booted image's build record}.

    ARCVSA_UPGRADE_FROM=same starts from this tree's image, so the upgrader under test is this tree's
    (from the previous commit's image, that image's upgrader does the work); ARCVSA_UPGRADE_FROM=REV
    from REV's image instead of HEAD~1's (e.g. the release appliances in the field run)."""
    rev = os.environ.get("ARCVSA_UPGRADE_FROM") or "HEAD~1"
    try:
        if rev == "same":
            raise previous.NotUpgradable("ARCVSA_UPGRADE_FROM=same")
        record = previous.build(rev)
        mode = "previous"
    except previous.NotUpgradable as err:
        print(f"\n{err}: upgrading this tree's image to a next release made from this tree instead")
        record = json.loads((REPO / "build" / "image" / "latest.json").read_text(encoding="utf-8"))
        mode = "same"
    return {"mode": mode, "record": record}


@pytest.fixture(scope="session")
def lab_image(upgrade_from: dict[str, Any]) -> tuple[Path, Path]:
    record = upgrade_from["record"]
    return Path(record["image"]), Path(record["lab_key"])
