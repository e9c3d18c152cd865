"""ZFS module parameters: a tuning plan (the desired state, stored by the api) held in effect through
/sys/module/zfs/parameters and at every module load through /etc/modprobe.d.

Two files, which modprobe merges: the tuning plan's (``MODPROBE``) and the device wait every appliance
holds where its plan does not set it (``DEVICES``). Idempotent: a value already in effect is not written
again, and a file is rewritten only when its content changes (the initramfs is not rebuilt: zfs loads
from the root file system here).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from appliance.control.errors import BadOutput, InvalidName, NotFound, Refused, SystemFault
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
# What no plan may set: each trades acknowledged sync writes for speed (no ZIL replay after a crash, no
# cache flush to the LUNs), which arcvsa never does to win a benchmark.
LOSES_WRITES = frozenset({"zil_replay_disable", "zfs_nocacheflush", "zil_nocacheflush"})
MAX_VALUE = (1 << 63) - 1
DEVICES_HEADER = (
    "# Written by arcvsa (appliance.control.modparams), which holds it: how long a new partition's\n"
    "# link is waited for (pools.py retries what outlasts it). zfs-arcvsa.conf holds the tuning plan's.\n"
)


class Held(BaseModel):
    """What hold() changed: values set in effect and files rewritten (or removed)."""

    live: list[tuple[str, int, int]] = Field(description="(parameter, value before, value set)")
    files: list[str] = Field(description="modprobe.d files rewritten or removed")

    def said(self) -> list[str]:
        """One line per change, for a reconcile's outcome and the log."""
        return [
            *(f"{name} set to {new} (was {old})" for name, old, new in self.live),
            *(f"{path} rewritten from the tuning plan" for path in self.files),
        ]


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
    try:
        return int(text.strip())
    except ValueError:  # a parameter that takes a word or a list, which no plan sets
        raise BadOutput(f"{SYSFS}/{name} holds {text.strip()!r}, not a whole number") from None


def check(params: dict[str, int]) -> None:
    """InvalidName for the first name that is not a zfs module parameter's, Refused for one that would
    lose acknowledged writes or a value that is not a whole number of 0 to 2^63-1. The api's routes and
    the control service (a plan it reads back from the api's database) check alike."""
    for name, value in params.items():
        if not NAME.fullmatch(name):
            raise InvalidName(f"not a zfs module parameter name: {name!r}")
        if name in LOSES_WRITES:
            raise Refused(f"{name} is not set by arcvsa: with it, a power cut loses acknowledged writes")
        if type(value) is not int or not 0 <= value <= MAX_VALUE:
            raise Refused(f"{name}: {value!r} is not a whole number from 0 to {MAX_VALUE}")


def hold(files: Files, plan: dict[str, int]) -> Held:
    """``plan`` in effect and at every module load, with the device wait where the plan does not set it.

    The values in effect first: a value the module refuses (SystemFault) is then never written where the
    module loads from, which would keep zfs from loading at the next boot. A parameter the plan leaves out
    keeps its value in effect until the next module load."""
    check(plan)
    device = {k: v for k, v in DEVICE_WAIT.items() if k not in plan}
    live = _set_live(files, {**device, **plan})
    rewritten = [
        path
        for path, params, header in ((MODPROBE, plan, HEADER), (DEVICES, device, DEVICES_HEADER))
        if (files.write(path, render(params, header)) if params else files.remove(path))
    ]
    return Held(live=live, files=rewritten)


def _set_live(files: Files, params: dict[str, int]) -> list[tuple[str, int, int]]:
    """Write each value that differs from the one in effect: (name, old, new) for each written."""
    olds = {name: current(files, name) for name in sorted(params)}  # NotFound before any write
    done = []
    for name, old in olds.items():
        new = int(params[name])
        if old == new:
            continue
        try:
            files.poke(f"{SYSFS}/{name}", f"{new}\n")
        except OSError as exc:  # EINVAL: out of the module's range for this value of another parameter
            raise SystemFault(f"the zfs module refused {name}={new}: {exc.strerror or exc}") from exc
        done.append((name, old, new))
    return done
