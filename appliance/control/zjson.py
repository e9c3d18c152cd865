"""OpenZFS 2.3 JSON output (``-j --json-int``): version check and property values.

Quirks seen on 2.3.9: ratios (``compressratio``, ``dedupratio``) stay strings like "1.82" even with
``--json-int``; "-" stands for "not applicable"; ``zpool iostat`` and ``zpool import`` have no ``-j``; ``zpool list -j`` prints nothing when no pool is
imported.
"""

from __future__ import annotations

import json
from typing import Any

from appliance.control.errors import BadOutput

SUPPORTED_MAJOR = 0


def load(stdout: str, command: str) -> dict[str, Any]:
    """Parse one JSON document from ``command`` (e.g. "zpool status") and check its output_version."""
    try:
        data = json.loads(stdout)
    except json.JSONDecodeError as err:
        raise BadOutput(f"{command}: not JSON: {err}") from None
    version = data.get("output_version") if isinstance(data, dict) else None
    if not isinstance(version, dict) or version.get("command") != command:
        raise BadOutput(f"{command}: unexpected output_version {version!r}")
    if version.get("vers_major") != SUPPORTED_MAJOR:
        raise BadOutput(f"{command}: output version {version.get('vers_major')} is not supported")
    return data


def values(properties: dict[str, Any]) -> dict[str, Any]:
    """{name: value} from a JSON ``properties`` block; "-" becomes None."""
    out: dict[str, Any] = {}
    for name, prop in properties.items():
        value = prop.get("value") if isinstance(prop, dict) else None
        out[name] = None if value == "-" else value
    return out


def sources(properties: dict[str, Any]) -> dict[str, str]:
    """{name: source type} (LOCAL, DEFAULT, INHERITED, NONE, TEMPORARY, RECEIVED)."""
    return {name: str(prop.get("source", {}).get("type", "NONE")) for name, prop in properties.items()}


def ratio(value: Any) -> float:
    """A ratio property ("1.82" or "1.82x") as a float."""
    try:
        return float(str(value).rstrip("x"))
    except ValueError:
        raise BadOutput(f"not a ratio: {value!r}") from None
