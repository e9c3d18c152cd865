"""Pools on this appliance's LUNs that are not imported: listed with their numeric ids, imported by id.

An admin who presents LUNs from another appliance (or keeps an old pool's LUN attached) can find two
pools of one name: ``zpool import NAME`` then refuses ("more than one matching pool"). The id tells them
apart, and a new name lets the second one in beside the first. ``zpool import`` has no JSON output
(OpenZFS 2.3), so its report is parsed here: one block per pool, ``pool:``/``id:``/``state:`` lines,
wrapped ``status:``/``action:`` text, then the ``config:`` tree of vdevs.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from appliance.control import names, pools
from appliance.control.errors import InvalidName, NotFound
from appliance.control.gateway import Gateway
from appliance.control.pools import ZfsPoolHealth

ID = re.compile(r"[1-9][0-9]{0,19}")  # a pool GUID: a 64-bit unsigned integer in decimal
_FIELD = re.compile(r"^\s*(pool|id|state|status|action|see|comment|config):\s?(.*)$")
_GROUPS = {"logs": "log", "cache": "cache", "spares": "spare", "special": "special", "dedup": "dedup"}


class ImportableDevice(BaseModel):
    """A leaf or group of an importable pool, as ``zpool import`` shows it."""

    name: str = Field(description="vdev name (by-id name, mirror-0 ...)")
    role: str = Field(description="data, log, cache, spare, special or dedup")
    state: str | None = Field(description="ONLINE, UNAVAIL ...; None where zpool shows none (cache)")
    note: str | None = Field(None, description="zpool's reason beside a state, e.g. 'invalid label'")
    depth: int = Field(description="0 for top-level vdevs, 1 for the disks of a mirror or raidz")


class ImportableZfsPool(BaseModel):
    """A pool found on the LUNs that can be imported (or that says why it cannot)."""

    name: str = Field(description="the pool's name (two pools may share one)")
    id: str = Field(description="the pool's GUID in decimal: what imports this pool and no other")
    state: str = Field(description="ONLINE, DEGRADED, UNAVAIL ... as zpool judges the import")
    status: str | None = Field(None, description="zpool's note on the pool, e.g. last used elsewhere")
    action: str | None = Field(None, description="what zpool says can be done")
    devices: list[ImportableDevice] = Field(description="the vdevs zpool found, in its order")


def pool_id(value: str) -> str:
    """A pool's numeric id, checked (zpool takes a pool name and an id in the same argument)."""
    if not isinstance(value, str) or not ID.fullmatch(value) or int(value) >= 1 << 64:
        raise InvalidName(f"not a pool id: {value!r} (the decimal number zpool import shows)")
    return value


def _devices(lines: list[str], pool: str) -> list[ImportableDevice]:
    out: list[ImportableDevice] = []
    role, base = "data", None
    for line in lines:
        words = line.split()
        if not words:
            continue
        indent = len(line) - len(line.lstrip())
        if base is None:  # the first line is the pool itself: it sets the tree's indent
            base = indent
            if words[0] == pool:
                continue
        if indent == base and words[0] in _GROUPS and len(words) == 1:
            role = _GROUPS[words[0]]
            continue
        depth = max(0, (indent - base) // 2 - 1)
        state, note = (words[1] if len(words) > 1 else None), " ".join(words[2:]) or None
        out.append(ImportableDevice(name=words[0], role=role, state=state, note=note, depth=depth))
    return out


def parse(stdout: str) -> list[ImportableZfsPool]:
    """The pools of a ``zpool import`` (list) report."""
    found: list[ImportableZfsPool] = []
    block: dict[str, str] = {}
    tree: list[str] = []
    key = ""

    def close() -> None:
        if "pool" in block and "id" in block:
            found.append(
                ImportableZfsPool(
                    name=block["pool"],
                    id=block["id"],
                    state=block.get("state", "?"),
                    status=block.get("status") or None,
                    action=block.get("action") or None,
                    devices=_devices(tree, block["pool"]),
                )
            )

    for line in stdout.splitlines():
        match = _FIELD.match(line) if key != "config" or line.lstrip().startswith("pool:") else None
        if match:
            if match[1] == "pool":
                close()
                block, tree = {}, []
            key = match[1]
            block[key] = match[2].strip()
        elif key == "config":
            tree.append(line.expandtabs(8))
        elif key and line.strip():  # a wrapped status or action line
            block[key] = f"{block[key]} {line.strip()}".strip()
    close()
    return found


def importable(gw: Gateway) -> list[ImportableZfsPool]:
    """Every pool ``zpool import`` finds on the LUNs (none: zpool says so on stderr, exit 0: an empty list)."""
    result = gw.run(["zpool", "import", *pools.IMPORT_SEARCH], rules=pools.RULES, timeout=pools.TIMEOUT)
    return parse(result.stdout)


def import_by_id(gw: Gateway, ident: str, new_name: str | None = None) -> ZfsPoolHealth:
    """Import the pool with this id, under ``new_name`` if given (a name already taken needs one)."""
    pool_id(ident)
    if new_name is not None:
        names.pool(new_name)
    match = next((p for p in importable(gw) if p.id == ident), None)
    if match is None:
        raise NotFound(f"no pool with id {ident} on this appliance's LUNs (zpool import lists none)")
    argv = ["zpool", "import", *pools.IMPORT_SEARCH, ident]
    gw.run([*argv, new_name] if new_name else argv, rules=pools.IMPORT_RULES, timeout=pools.TIMEOUT)
    return pools.status(gw, new_name or match.name)
