"""appliance.json, as first boot left it (appliance.firstboot.plan): the role, the NFS server and the
management networks it was deployed with. Read where each is needed, never cached: an in-place upgrade or
a redeploy rewrites it, and a missing or unreadable file (a developer's machine, the tests, a release
before a key) is an empty one, each reader keeping its own default.
"""

from __future__ import annotations

import json
from typing import Any

from api.settings import Settings


def read(settings: Settings) -> dict[str, Any]:
    """The file's keys; {} when there is none or it is not a JSON object."""
    try:
        data = json.loads(settings.appliance_config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
