"""Module parameters through appliance.control.modparams: every name checked before anything is written."""

from __future__ import annotations

import contextlib

from api.settings import Settings
from api.tuning.schemas import Parameter
from appliance.control import lock, modparams
from appliance.control.errors import InvalidName
from appliance.control.files import Files

# What the calculator sizes and the profiles choose (zfs_tuning.calculator.plan's module keys).
TUNED = (
    "zfs_arc_max",
    "zfs_arc_min",
    "l2arc_write_max",
    "l2arc_write_boost",
    "l2arc_noprefetch",
    "zfs_prefetch_disable",
    "zfs_txg_timeout",
    "l2arc_rebuild_enabled",
    "zio_dva_throttle_enabled",
)


def parameters(files: Files) -> list[Parameter]:
    """The tuned parameters (and any persisted one) present in sysfs, with their persisted values."""
    saved = modparams.persisted(files)
    out = []
    for name in sorted(set(TUNED) | set(saved)):
        if files.read(f"{modparams.SYSFS}/{name}") is not None:
            out.append(Parameter(name=name, value=modparams.current(files, name), persisted=saved.get(name)))
    return out


def changing(settings: Settings) -> contextlib.AbstractContextManager[None]:
    """Held by every change of the module parameters: the api's, a restore's and the poller's reconcile
    (another process), so a reconcile never sets the values of a plan being replaced."""
    return lock.held(settings.data_dir / "tuning.lock")


def apply(files: Files, settings: Settings, params: dict[str, int]) -> modparams.Applied:
    """Apply live and persist; a bad or unknown name is refused before any value is written."""
    for name in params:
        if not modparams.NAME.fullmatch(name):
            raise InvalidName(f"not a zfs module parameter name: {name!r}")
        modparams.current(files, name)  # NotFound for a parameter this zfs does not have
    with changing(settings):
        return modparams.apply(files, params)
