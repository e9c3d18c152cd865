"""The tuning plan: ZFS module parameters stored as the desired state (SQLite) and held in effect and at
module load by appliance.control.modparams."""

from __future__ import annotations

import contextlib
import logging
from datetime import UTC, datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from api.exports.table import StorageSetting
from api.settings import Settings
from api.tuning.schemas import Applied, Parameter
from api.tuning.table import ZfsParameter
from appliance.control import lock, modparams
from appliance.control.errors import ControlError
from appliance.control.files import Files

log = logging.getLogger(__name__)
# Set once the plan a release before it was stored kept in modprobe.d has been adopted (storage_settings).
ADOPTED_KEY = "tuning_plan_adopted"

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


def plan(db: Session) -> dict[str, int]:
    """The stored tuning plan (empty: none chosen)."""
    return {row.name: row.value for row in db.scalars(select(ZfsParameter))}


def store(db: Session, params: dict[str, int]) -> None:
    """``params`` as the plan, replacing the stored one (not committed)."""
    db.execute(delete(ZfsParameter))
    db.add_all(ZfsParameter(name=name, value=value) for name, value in params.items())


def parameters(files: Files, db: Session) -> list[Parameter]:
    """The tuned parameters (and any planned one) present in sysfs, with their planned values."""
    planned = plan(db)
    out = []
    for name in sorted(set(TUNED) | set(planned)):
        if files.read(f"{modparams.SYSFS}/{name}") is not None:
            out.append(
                Parameter(name=name, value=modparams.current(files, name), persisted=planned.get(name))
            )
    return out


def changing(settings: Settings) -> contextlib.AbstractContextManager[None]:
    """Held by every change of the module parameters, from reading the plan to committing it: the api's,
    a restore's and the poller's reconcile (another process), so a reconcile never holds a plan being
    replaced."""
    return lock.held(settings.data_dir / "tuning.lock")


def check(files: Files, params: dict[str, int]) -> None:
    """A plan refused for a bad name or value, or a parameter this zfs does not have (NotFound)."""
    modparams.check(params)
    for name in params:
        modparams.current(files, name)


def apply(files: Files, settings: Settings, db: Session, params: dict[str, int]) -> Applied:
    """A new plan, in effect and stored, or refused whole: a bad or unknown name before any value is
    written; a value the module refuses with the values the old plan holds set back, nothing stored."""
    check(files, params)
    with changing(settings):
        before = adopted_plan(files, db)
        try:
            held = modparams.hold(files, params)
        except ControlError:
            with contextlib.suppress(ControlError):  # best effort: the next reconcile tries again
                modparams.hold(files, before)
            raise
        store(db, params)
        db.commit()
    return Applied(
        changed_live={name: new for name, _, new in held.live}, persisted=modparams.MODPROBE in held.files
    )


def adopted_plan(files: Files, db: Session) -> dict[str, int]:
    """The stored plan. Releases before it was stored kept it in modprobe.d alone: the first time, with
    none stored, that file's values become the plan; after that the file is only the plan's rendering."""
    wanted = plan(db)
    if db.get(StorageSetting, ADOPTED_KEY) is None:
        if not wanted and (found := modparams.persisted(files)):
            store(db, found)
            log.info("the tuning plan in %s is now stored: %s", modparams.MODPROBE, found)
            wanted = found
        db.add(StorageSetting(key=ADOPTED_KEY, value="1", updated_at=datetime.now(UTC)))
        db.commit()
    return wanted


def reconcile(files: Files, db: Session) -> list[str]:
    """The stored plan held (modparams.hold); what that changed. The caller holds ``changing``."""
    return modparams.hold(files, adopted_plan(files, db)).said()
