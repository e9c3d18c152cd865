"""appliance.json, as first boot left it (appliance.firstboot.plan): the role, the NFS server and the
management networks it was deployed with. Read where each is needed: an in-place upgrade or a redeploy
rewrites it, and a missing or unreadable file (a developer's machine, the tests, a release before a key)
is an empty one, each reader keeping its own default.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from api.settings import Settings

# path -> (inode, mtime, size) when parsed, and what it held
_parsed: dict[Path, tuple[tuple[int, int, int], dict[str, Any] | None]] = {}


def json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``; None when there is none or it is not one. A shallow copy: a reader
    may set its own keys, never change a value it holds.

    Parsed again only when the file changes (another inode, mtime or size): health and every storage
    route read these small files on each request, and a stat costs less than an open, a read and a
    parse. A rewrite by rename brings another inode, one in place another mtime (first boot and upgrades
    write these files, never twice within a tick of the kernel's clock)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
    seen = _parsed.get(path)
    if seen is None or seen[0] != key:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        seen = (key, data if isinstance(data, dict) else None)
        _parsed[path] = seen
    return None if seen[1] is None else dict(seen[1])


def read(settings: Settings) -> dict[str, Any]:
    """The file's keys; {} when there is none or it is not a JSON object."""
    return json_object(settings.appliance_config) or {}
