"""ZFS module parameters: applied live through /sys/module/zfs/parameters, persisted in /etc/modprobe.d.

Two files, which modprobe merges: the tuning plan's (``MODPROBE``, the admin's choice) and the device
wait every appliance holds whatever its plan (``DEVICES``). Idempotent: a value already in effect is not
written again, and a file is rewritten only when its content changes (the initramfs is not rebuilt: zfs
loads from the root file system here).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from appliance.control.errors import InvalidName, NotFound, SystemFault
from appliance.control.files import Files

SYSFS = "/sys/module/zfs/parameters"
MODPROBE = "/etc/modprobe.d/zfs-arcvsa.conf"
NAME = re.compile(r"(zfs|l2arc|zil|spa|metaslab|zio|dbuf|vdev)_[a-z0-9_]{1,64}")
OPTION = re.compile(r"([a-z0-9_]+)=(\d+)")
HEADER = "# Written by arcvsa (appliance.control.modparams) from the tuning plan.\n"
DEVICES = "/etc/modprobe.d/zfs-arcvsa-devices.conf"
# zpool create/add/replace label a whole disk, then the kernel opens its -part1 link, which udev may be
# removing and re-adding meanwhile (a partition rescan). OpenZFS retries that open for
# zfs_vdev_open_timeout_ms, 1 s by default, which a slow udev can outlast. 10 s covers it; a LUN that is
# really missing at import is declared missing 9 s later.
DEVICE_WAIT = {"zfs_vdev_open_timeout_ms": 10_000}
DEVICES_HEADER = (
    "# Written by arcvsa (appliance.control.modparams) at every api start: how long a new partition's\n"
    "# link is waited for (pools.py retries what outlasts it). zfs-arcvsa.conf holds the tuning plan's.\n"
)


class Applied(BaseModel):
    """What apply() did."""

    changed_live: dict[str, int] = Field(description="parameters written to sysfs (new value)")
    persisted: bool = Field(description="the modprobe.d file was (re)written")


def render(params: dict[str, int], header: str = HEADER) -> str:
    """A modprobe.d file: one options line, parameters sorted for a stable diff."""
    words = " ".join(f"{k}={int(v)}" for k, v in sorted(params.items()))
    return f"{header}options zfs {words}\n"


def persisted(files: Files, path: str = MODPROBE) -> dict[str, int]:
    """The values a modprobe.d file (the tuning plan's unless told) sets at module load."""
    text = files.read(path) or ""
    lines = [line.split()[2:] for line in text.splitlines() if line.startswith("options zfs ")]
    return {m[1]: int(m[2]) for words in lines for w in words if (m := OPTION.fullmatch(w))}


def current(files: Files, name: str) -> int:
    """The value in effect now."""
    text = files.read(f"{SYSFS}/{name}")
    if text is None:
        raise NotFound(f"no such zfs module parameter: {name} (is zfs loaded?)")
    return int(text.strip())


def apply(files: Files, params: dict[str, int], path: str = MODPROBE, header: str = HEADER) -> Applied:
    """Apply ``params`` live where they differ and persist them all in ``path``."""
    for name in params:
        if not NAME.fullmatch(name):
            raise InvalidName(f"not a zfs module parameter name: {name!r}")
    changed = {name: new for name, _, new in _set_live(files, params)}
    return Applied(changed_live=changed, persisted=files.write(path, render(params, header)))


def converge(files: Files) -> list[str]:
    """The values in effect brought back to what modprobe.d sets at module load (the tuning plan's over
    the device wait's): one changed by hand is set again, and said. Neither file is written."""
    wanted = {**persisted(files, DEVICES), **persisted(files)}
    return [f"{name} set to {new} (was {old})" for name, old, new in _set_live(files, wanted)]


def _set_live(files: Files, params: dict[str, int]) -> list[tuple[str, int, int]]:
    """Write each value that differs from the one in effect: (name, old, new) for each written."""
    done = []
    for name, value in sorted(params.items()):
        old, new = current(files, name), int(value)
        if old == new:
            continue
        try:
            files.poke(f"{SYSFS}/{name}", f"{new}\n")
        except OSError as exc:  # EINVAL: out of the module's range for this value of another parameter
            raise SystemFault(f"the zfs module refused {name}={new}: {exc.strerror or exc}") from exc
        done.append((name, old, new))
    return done


def hold_device_wait(files: Files) -> Applied:
    """The device wait in effect now and at every module load. The api does this at each start rather
    than the image carrying the file: an in-place upgrade installs code and units, not /etc, so an
    appliance first built without it gets it from the first release that runs this. A value the admin
    put in the tuning plan stands: then there is no device file to contradict it."""
    chosen = persisted(files)
    wanted = {k: v for k, v in DEVICE_WAIT.items() if k not in chosen}
    if not wanted:
        return Applied(changed_live={}, persisted=files.remove(DEVICES))
    return apply(files, wanted, DEVICES, DEVICES_HEADER)
