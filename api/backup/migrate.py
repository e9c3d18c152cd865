"""A backup payload of an older format read as the current one.

Format 1 named every domain at the top of the payload and its storage by pool name alone; format 2
holds each domain's section under its key (api.backup.section) and each pool with its GUID. A format 1
file keeps its sections' contents: only where they sit changes, and its pools are imported by name.
"""

from __future__ import annotations

from typing import Any


def _v1(payload: dict[str, Any]) -> dict[str, Any]:
    sections: dict[str, Any] = {
        "users": {"users": payload.get("users", [])},
        "vcenters": {"vcenters": payload.get("vcenters", [])},
        "nfs": {"backend": payload.get("nfs_backend"), "exports": payload.get("exports", [])},
        "iscsi": {"targets": payload.get("iscsi_targets", [])},
        "tuning": {"parameters": payload.get("tuning", {})},
        "scrape_tokens": {"tokens": payload.get("scrape_tokens", [])},
    }
    for key in ("notify", "tls"):  # format 1 wrote null for a domain never set
        if payload.get(key) is not None:
            sections[key] = payload[key]
    storage = payload.get("storage") or {}
    return {
        "pools": [{"name": name, "guid": None} for name in storage.get("pools", [])],
        "datasets": storage.get("datasets", []),
        "sections": sections,
        "skipped": payload.get("skipped", []),
    }


def current(version: int, payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` of format ``version`` in the current format (the envelope checked the version)."""
    return _v1(payload) if version == 1 else payload
