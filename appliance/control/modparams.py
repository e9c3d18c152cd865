"""ZFS module parameters: applied live through /sys/module/zfs/parameters, persisted in /etc/modprobe.d.

Idempotent: a value already in effect is not written again, and the modprobe file is rewritten only
when its content changes (the initramfs is not rebuilt: zfs loads from the root file system here).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from appliance.control.errors import InvalidName, NotFound
from appliance.control.files import Files

SYSFS = "/sys/module/zfs/parameters"
MODPROBE = "/etc/modprobe.d/zfs-arcvsa.conf"
NAME = re.compile(r"(zfs|l2arc|zil|spa|metaslab|zio|dbuf|vdev)_[a-z0-9_]{1,64}")
HEADER = "# Written by arcvsa (appliance.control.modparams) from the tuning plan.\n"


class Applied(BaseModel):
    """What apply() did."""

    changed_live: dict[str, int] = Field(description="parameters written to sysfs (new value)")
    persisted: bool = Field(description="the modprobe.d file was (re)written")


def render(params: dict[str, int]) -> str:
    """The modprobe.d file: one options line, parameters sorted for a stable diff."""
    words = " ".join(f"{k}={int(v)}" for k, v in sorted(params.items()))
    return f"{HEADER}options zfs {words}\n"


def current(files: Files, name: str) -> int:
    """The value in effect now."""
    text = files.read(f"{SYSFS}/{name}")
    if text is None:
        raise NotFound(f"no such zfs module parameter: {name} (is zfs loaded?)")
    return int(text.strip())


def apply(files: Files, params: dict[str, int]) -> Applied:
    """Apply ``params`` live where they differ and persist them all."""
    for name in params:
        if not NAME.fullmatch(name):
            raise InvalidName(f"not a zfs module parameter name: {name!r}")
    changed = {}
    for name, value in sorted(params.items()):
        if current(files, name) != int(value):
            files.poke(f"{SYSFS}/{name}", f"{int(value)}\n")
            changed[name] = int(value)
    return Applied(changed_live=changed, persisted=files.write(MODPROBE, render(params)))
