"""Pools: create / import / export / destroy, grow by a LUN, replace, scrub, health per vdev.

Layouts: stripe (the whitepaper's: the SAN array gives redundancy), mirror (pairs), raidz1, raidz2.
A log vdev (the SLOG; two devices make a mirror) and cache vdevs (L2ARC, persistent since 2.0).
ashift and autotrim come from the devices. Pools use by-id paths so they import after a reboot
whatever order the disks appear in (the default cachefile brings them back at boot).
"""

from __future__ import annotations

import logging
import math
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, model_validator

from appliance.control import disks, names, zjson
from appliance.control.errors import (
    AlreadyExists,
    Conflict,
    DeviceInUse,
    DeviceVanished,
    InvalidRequest,
    NotFound,
)
from appliance.control.gateway import Gateway, Rules

TIMEOUT = 300.0  # creating on a slow SAN LUN writes labels to every device
RULES: Rules = (
    (r"pool already exists|already exists", AlreadyExists),
    (r"no such pool|no pools available|cannot import .*: no such|does not exist", NotFound),
    (
        r"is in use|is part of (active|exported|potentially active) pool|contains a|resource busy|is busy",
        DeviceInUse,
    ),
    (r"no such device|cannot open '/dev|cannot resolve path", NotFound),
)
# zpool create, add and replace label whole disks, then the module opens each new partition. There ENOENT
# or ENXIO is that partition's link or node, re-made by udev as it was opened (see DeviceVanished), never a
# missing pool: add and replace open the pool first ("cannot open 'x': no such pool").
LABEL_RULES: Rules = (
    (
        r"cannot (create '[^']*'|add to '[^']*'|replace \S+ with \S+): "
        r"(no such pool or dataset|one or more devices is currently unavailable)",
        DeviceVanished,
    ),
    *RULES,
)
SETTLE_TIMEOUT = 120  # seconds udevadm may wait for udev's queue (a boot's backlog on a slow CPU)
# Properties of every pool's root dataset; ganesha 6.5 on FSAL_VFS needs POSIX ACLs (DESIGN.md section 5).
ROOT_PROPERTIES = {"acltype": "posix", "xattr": "sa", "compression": "lz4", "atime": "off"}
log = logging.getLogger("arcvsa.pools")


class ZfsPoolLayout(StrEnum):
    """How the data LUNs are combined."""

    stripe = "stripe"
    mirror = "mirror"
    raidz1 = "raidz1"
    raidz2 = "raidz2"


MIN_DEVICES = {
    ZfsPoolLayout.stripe: 1,
    ZfsPoolLayout.mirror: 2,
    ZfsPoolLayout.raidz1: 3,
    ZfsPoolLayout.raidz2: 4,
}


class ZfsPoolSpec(BaseModel):
    """A pool to create."""

    name: names.Pool = Field(description="pool name (strict pattern, see names.pool)")
    layout: ZfsPoolLayout = Field(ZfsPoolLayout.stripe, description="how the data devices are combined")
    data: list[names.Device] = Field(min_length=1, description="data device paths (SAN LUNs)")
    log: list[names.Device] = Field(
        default_factory=list, max_length=2, description="SLOG devices; two make a mirror"
    )
    cache: list[names.Device] = Field(default_factory=list, description="L2ARC devices")
    force: bool = Field(False, description="use devices that hold data (their contents are lost)")

    @model_validator(mode="after")
    def _shape(self) -> ZfsPoolSpec:
        if len(self.data) < MIN_DEVICES[self.layout]:
            raise InvalidRequest(f"{self.layout} needs at least {MIN_DEVICES[self.layout]} devices")
        if self.layout is ZfsPoolLayout.mirror and len(self.data) % 2:
            raise InvalidRequest("mirror needs an even number of devices (pairs)")
        every = self.data + self.log + self.cache
        if len(set(every)) != len(every):
            raise InvalidRequest("a device is listed twice")
        return self

    def devices(self) -> list[str]:
        """Every device of the spec, data first."""
        return self.data + self.log + self.cache


def vdev_args(layout: ZfsPoolLayout, devices: list[str]) -> list[str]:
    """The zpool words for the data devices in ``layout``."""
    if layout is ZfsPoolLayout.stripe:
        return list(devices)
    if layout is ZfsPoolLayout.mirror:
        return [w for i in range(0, len(devices), 2) for w in ("mirror", devices[i], devices[i + 1])]
    return [layout.value, *devices]


def choose_ashift(chosen: list[disks.Disk]) -> int:
    """log2 of the largest physical sector, never below 12: SAN LUNs often claim 512 over 4K+ pages."""
    return max(12, max(int(math.log2(d.physical_sector)) for d in chosen))


def create_argv(spec: ZfsPoolSpec, ashift: int, autotrim: bool) -> list[str]:
    """The ``zpool create`` command line for a validated spec."""
    argv = ["zpool", "create", "-o", f"ashift={ashift}", "-o", f"autotrim={'on' if autotrim else 'off'}"]
    for prop, value in ROOT_PROPERTIES.items():
        argv += ["-O", f"{prop}={value}"]
    if spec.force:
        argv.append("-f")
    argv += [spec.name, *vdev_args(spec.layout, spec.data)]
    if spec.log:
        argv += ["log", *(["mirror"] if len(spec.log) == 2 else []), *spec.log]
    if spec.cache:
        argv += ["cache", *spec.cache]
    return argv


def _labelling(gw: Gateway, argv: list[str], pool: str) -> None:
    """Run a zpool command that labels whole disks; if it loses the race with udev, run it once more,
    forced (``-f`` before the pool's name), when udev is idle.

    udev still busy (an appliance's first minutes, a burst of disk events) re-makes a new partition's
    by-id link just as the module opens it; the module's own wait for it (``modparams.DEVICE_WAIT``)
    did not always hold in the lab. Nothing was added; the disks, checked free by the caller, hold
    only the labels this call wrote, which force lets the second try overwrite. (zpool's other checks that
    force skips, replication level and ashift, come before labelling: the first try passed them.)
    """
    try:
        gw.run(argv, rules=LABEL_RULES, timeout=TIMEOUT)
    except DeviceVanished as err:
        log.warning("%s: retrying once, forced, when udev is idle", err.line)
        gw.run(["udevadm", "settle", f"--timeout={SETTLE_TIMEOUT}"], timeout=SETTLE_TIMEOUT + 30)
        at = argv.index(pool, 2)  # a pool name never equals zpool's words or options before it
        gw.run(argv if "-f" in argv else [*argv[:at], "-f", *argv[at:]], rules=LABEL_RULES, timeout=TIMEOUT)


def create(gw: Gateway, spec: ZfsPoolSpec) -> ZfsPoolHealth:
    """Create the pool after checking its devices are free (or forced); return its health."""
    chosen = disks.resolve(gw, spec.devices(), force=spec.force)
    _labelling(gw, create_argv(spec, choose_ashift(chosen), all(d.trim for d in chosen)), spec.name)
    return status(gw, spec.name)


def add(
    gw: Gateway,
    pool: str,
    devices: list[str],
    *,
    layout: ZfsPoolLayout = ZfsPoolLayout.stripe,
    force: bool = False,
) -> ZfsPoolHealth:
    """Grow a pool by LUNs (scale-up); the new vdev should match the pool's layout."""
    names.pool(pool)
    chosen = disks.resolve(gw, devices, force=force)
    argv = ["zpool", "add", "-o", f"ashift={choose_ashift(chosen)}", *(["-f"] if force else []), pool]
    _labelling(gw, [*argv, *vdev_args(layout, devices)], pool)
    return status(gw, pool)


def replace(gw: Gateway, pool: str, old: str, new: str, *, force: bool = False) -> ZfsPoolHealth:
    """Replace a LUN by another; resilvering runs in the background (see status)."""
    names.pool(pool)
    names.device(old)
    disks.resolve(gw, [new], force=force)
    _labelling(gw, ["zpool", "replace", *(["-f"] if force else []), pool, old, new], pool)
    return status(gw, pool)


def clear(gw: Gateway, pool: str) -> ZfsPoolHealth:
    """Clear the pool's error counts and resume a suspended pool once its LUNs answer again.

    ``zpool clear`` of a suspended pool retries the stalled I/O: while a LUN is still failing it exits
    non-zero and the pool stays suspended (a CommandFailed naming zpool's message)."""
    gw.run(["zpool", "clear", names.pool(pool)], rules=RULES, timeout=TIMEOUT)
    return status(gw, pool)


# zpool refuses a scrub while a scan runs: "cannot scrub spool: currently resilvering" (as right after a
# clear resumed a suspended pool) or "currently scrubbing"; the admin waits, nothing failed.
SCRUB_RULES: Rules = ((r"currently (resilvering|scrubbing)", Conflict), *RULES)


def scrub(gw: Gateway, pool: str) -> None:
    """Start a scrub (returns at once; progress is in status)."""
    gw.run(["zpool", "scrub", names.pool(pool)], rules=SCRUB_RULES)


def export(gw: Gateway, pool: str) -> None:
    """Export a pool (unmounts its datasets)."""
    gw.run(["zpool", "export", names.pool(pool)], rules=RULES, timeout=TIMEOUT)


# Two exported pools of one name (a LUN moved from another appliance): zpool wants the pool's id
# (appliance.control.imports). A name already imported here is RULES' "already exists".
IMPORT_RULES: Rules = ((r"more than one matching pool", Conflict), *RULES)
# Where imports look: by-id names, which the next boot's cachefile keeps whatever order the disks appear in.
IMPORT_SEARCH = ("-d", "/dev/disk/by-id")


def import_pool(gw: Gateway, pool: str) -> ZfsPoolHealth:
    """Import a pool by name, scanning by-id paths (stable names for next boot's cachefile)."""
    argv = ["zpool", "import", *IMPORT_SEARCH, names.pool(pool)]
    gw.run(argv, rules=IMPORT_RULES, timeout=TIMEOUT)
    return status(gw, pool)


def destroy(gw: Gateway, pool: str) -> None:
    """Destroy a pool and everything in it."""
    gw.run(["zpool", "destroy", names.pool(pool)], rules=RULES, timeout=TIMEOUT)


class VdevHealth(BaseModel):
    """One vdev of a pool, leaves and groups alike."""

    name: str = Field(description="vdev name as zpool shows it (by-id name, mirror-0 ...)")
    parent: str | None = Field(description="the group it belongs to, None for top-level vdevs")
    vdev_type: str = Field(description="disk, mirror, raidz, root ...")
    role: str = Field(description="data, log or cache")
    path: str | None = Field(description="device path for leaves")
    state: str = Field(description="ONLINE, DEGRADED, FAULTED, UNAVAIL ...")
    read_errors: int = Field(description="read errors since import or clear")
    write_errors: int = Field(description="write errors")
    checksum_errors: int = Field(description="checksum errors")
    slow_ios: int = Field(0, description="I/Os slower than zio_slow_io_ms")


class ZfsPoolHealth(BaseModel):
    """A pool's state and its vdevs."""

    name: str = Field(description="pool name")
    state: str = Field(description="pool state")
    error_count: int = Field(description="data errors (files with permanent errors)")
    scan: dict[str, Any] | None = Field(description="last or running scrub/resilver as zpool reports it")
    vdevs: list[VdevHealth] = Field(description="every vdev, depth first")

    @property
    def healthy(self) -> bool:
        """Online with no errors anywhere."""
        return (
            self.state == "ONLINE"
            and not self.error_count
            and not any(v.read_errors or v.write_errors or v.checksum_errors for v in self.vdevs)
        )


def _walk(tree: dict[str, Any], role: str, parent: str | None, out: list[VdevHealth]) -> None:
    for name, vdev in tree.items():
        if vdev.get("vdev_type") != "root":
            out.append(
                VdevHealth(
                    name=name,
                    parent=parent,
                    vdev_type=vdev.get("vdev_type", "?"),
                    role=role,
                    path=vdev.get("path"),
                    state=vdev.get("state", "?"),
                    read_errors=int(vdev.get("read_errors", 0)),
                    write_errors=int(vdev.get("write_errors", 0)),
                    checksum_errors=int(vdev.get("checksum_errors", 0)),
                    slow_ios=int(vdev.get("slow_ios", 0)),
                )
            )
        nested_parent = None if vdev.get("vdev_type") == "root" else name
        _walk(vdev.get("vdevs", {}), role, nested_parent, out)


def parse_status(stdout: str, pool: str) -> ZfsPoolHealth:
    """ZfsPoolHealth from ``zpool status -j --json-int POOL``."""
    data = zjson.load(stdout, "zpool status")
    raw = data.get("pools", {}).get(pool)
    if raw is None:
        raise NotFound(f"no such pool: {pool}")
    vdevs: list[VdevHealth] = []
    for key, role in (("vdevs", "data"), ("logs", "log"), ("l2cache", "cache"), ("spares", "spare")):
        _walk(raw.get(key, {}), role, None, vdevs)
    return ZfsPoolHealth(
        name=pool,
        state=raw.get("state", "?"),
        error_count=int(raw.get("error_count", 0)),
        scan=raw.get("scan_stats"),
        vdevs=vdevs,
    )


def status(gw: Gateway, pool: str) -> ZfsPoolHealth:
    """Health of one pool."""
    return parse_status(
        gw.query(["zpool", "status", "-j", "--json-int", names.pool(pool)], rules=RULES).stdout, pool
    )


class ZfsPoolSpace(BaseModel):
    """One pool's line of ``zpool list``: its space and health."""

    name: str = Field(description="pool name")
    guid: str | None = Field(None, description="the pool's GUID in decimal (what tells it from any other)")
    size: int = Field(0, description="bytes in the pool (0 when the pool cannot say)")
    allocated: int = Field(0, description="bytes allocated")
    free: int = Field(0, description="bytes free")
    health: str = Field("UNKNOWN", description="zpool's health (SUSPENDED for a pool whose I/O failed)")

    @property
    def percent(self) -> float:
        return 100.0 * self.allocated / self.size if self.size else 0.0


def space(gw: Gateway) -> list[ZfsPoolSpace]:
    """Every imported pool's space and health from one ``zpool list``, sorted by name."""
    stdout = gw.query(["zpool", "list", "-j", "--json-int"], rules=RULES).stdout
    if not stdout.strip():
        return []  # 2.3.9 prints nothing at all, not an empty "pools", when no pool is imported
    out = []
    for name, raw in sorted(zjson.load(stdout, "zpool list").get("pools", {}).items()):
        props = zjson.values(raw.get("properties", {}))
        out.append(
            ZfsPoolSpace(
                name=name,
                guid=_guid(raw.get("pool_guid")),
                size=_count(props.get("size")),
                allocated=_count(props.get("allocated")),
                free=_count(props.get("free")),
                health=str(props.get("health") or raw.get("state") or "UNKNOWN"),
            )
        )
    return out


def _guid(value: Any) -> str | None:
    """A pool GUID as zpool's JSON gives it (a number with --json-int), in decimal."""
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isdigit():
        return None
    return str(int(value))


def _count(value: Any) -> int:
    """A byte count; 0 when the pool cannot say (a faulted pool prints '-')."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def list_names(gw: Gateway) -> list[str]:
    """Names of the imported pools."""
    return [p.name for p in space(gw)]
