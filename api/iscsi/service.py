"""iSCSI targets: a request becomes a target's desired state, stored (CHAP secret sealed, the LUN's unit
serial kept) once appliance.control.lio has converged LIO on it; the poller's reconcile holds LIO to the
stored targets.

Refused before LIO is touched: a bad name or CHAP secret (422 with its field, by the request model), an
IQN stored or in LIO already (409), a zvol that is missing, not a zvol, or another target's (409). Reads
come from configfs through rtslib and run no process.
"""

from __future__ import annotations

import contextlib
import json
import logging
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.exports.table import StorageSetting
from api.iscsi.schemas import TargetCreate, TargetUpdate
from api.iscsi.table import IscsiTarget
from api.secretbox import SecretBox
from api.settings import Settings
from appliance.control import datasets, iscsi, lio, lock, names
from appliance.control.errors import (
    AlreadyExists,
    BadOutput,
    Conflict,
    ControlError,
    InvalidRequest,
    NotFound,
    SystemFault,
)
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.iscsi import Chap, TargetInfo, TargetSpec

log = logging.getLogger(__name__)
# Set once the targets LIO saved before they were stored have been adopted (storage_settings).
ADOPTED_KEY = "iscsi_targets_adopted"
backstore = iscsi.backstore_name


def targets() -> list[TargetInfo]:
    """Every target LIO has (none where LIO's iSCSI fabric is not loaded)."""
    return lio.targets()


def saved_targets(files: Files) -> list[TargetInfo]:
    """Targets in LIO's saved configuration, the one restored at boot (none when it was never saved)."""
    text = files.read(iscsi.SAVECONFIG)
    return [] if text is None else iscsi.parse_saveconfig(text)


def spec_of(body: TargetCreate) -> TargetSpec:
    """The desired state of the requested target."""
    return TargetSpec(
        iqn=body.iqn,
        zvol=body.zvol,
        backstore=backstore(body.zvol),
        initiators=body.initiators,
        chap=body.chap,
    )


def changing(settings: Settings) -> contextlib.AbstractContextManager[None]:
    """Held by every change of the iSCSI targets, from reading the stored ones to committing: the api's
    routes, a restore, and the poller's reconcile (another process)."""
    return lock.held(settings.data_dir / "iscsi.lock")


def _spec(row: IscsiTarget, box: SecretBox) -> TargetSpec:
    chap = None
    if row.chap_user is not None and row.chap_secret is not None:
        try:
            chap = Chap(user=row.chap_user, secret=box.open(row.chap_secret))
        except Exception as err:  # a key file replaced since: the secret is lost, not the target
            raise SystemFault(
                f"the CHAP secret of {row.iqn} cannot be opened ({type(err).__name__})"
            ) from None
    return TargetSpec(
        iqn=row.iqn,
        zvol=row.zvol,
        backstore=backstore(row.zvol),
        initiators=json.loads(row.initiators_json),
        chap=chap,
        wwn=row.wwn,
    )


def _store(row: IscsiTarget, spec: TargetSpec, box: SecretBox) -> IscsiTarget:
    row.iqn, row.zvol, row.wwn = spec.iqn, spec.zvol, spec.wwn
    row.initiators_json = json.dumps(spec.initiators)
    row.chap_user = spec.chap.user if spec.chap else None
    row.chap_secret = box.seal(spec.chap.secret) if spec.chap else None
    return row


def stored_row(spec: TargetSpec, box: SecretBox) -> IscsiTarget:
    """A new row holding ``spec`` (to add to the session)."""
    return _store(IscsiTarget(created_at=datetime.now(UTC)), spec, box)


def desired(db: Session, box: SecretBox) -> list[TargetSpec]:
    """Every stored target, by IQN."""
    return [_spec(row, box) for row in db.scalars(select(IscsiTarget).order_by(IscsiTarget.iqn))]


def adopt(db: Session, box: SecretBox, files: Files) -> None:
    """Once: the targets an older release made are stored, read from what LIO saved (what it restores at
    boot, whether or not it has yet); one arcvsa did not make, or whose initiators differ in CHAP, stays
    LIO's own, logged. The caller holds ``changing``."""
    if db.get(StorageSetting, ADOPTED_KEY) is not None:
        return
    text = files.read(iscsi.SAVECONFIG)
    try:
        specs, others = iscsi.saved_specs(text) if text is not None else ([], {})
    except BadOutput as err:  # not adopted: tried again at the next reconcile
        log.error("the iSCSI targets LIO saved are not adopted: %s", err)
        return
    for spec in specs:
        taken = db.scalar(select(IscsiTarget.iqn).where(IscsiTarget.zvol == spec.zvol))
        if db.get(IscsiTarget, spec.iqn) is None and taken is None:
            db.add(stored_row(spec, box))
            log.info("iSCSI target %s on %s is now stored", spec.iqn, spec.zvol)
    for iqn, why in others.items():
        log.warning("iSCSI target %s left to LIO, not stored: %s", iqn, why)
    db.add(StorageSetting(key=ADOPTED_KEY, value="1", updated_at=datetime.now(UTC)))
    db.commit()


def stored(db: Session, box: SecretBox, files: Files, settings: Settings) -> list[TargetSpec]:
    """Every stored target (those LIO saved before they were stored adopted first)."""
    with changing(settings):
        adopt(db, box, files)
        return desired(db, box)


def _wwn(spec: TargetSpec) -> str | None:
    seen = lio.observe(spec.iqn, spec.backstore).backstore
    return seen.wwn if seen is not None and seen.wwn else None


def add(db: Session, box: SecretBox, files: Files, settings: Settings, spec: TargetSpec) -> list[str]:
    """A new target converged on in LIO, then stored with the unit serial LIO gave its LUN; what LIO
    changed. AlreadyExists where the IQN is stored or in LIO, Conflict where the zvol is another stored
    target's; nothing stored when LIO refused (lio undid what it had made), nothing left in LIO when the
    store fails."""
    with changing(settings):
        adopt(db, box, files)
        if db.get(IscsiTarget, spec.iqn) is not None or lio.target(spec.iqn) is not None:
            raise AlreadyExists(f"iSCSI target {spec.iqn} exists")
        other = db.scalar(select(IscsiTarget.iqn).where(IscsiTarget.zvol == spec.zvol))
        if other is not None:
            raise Conflict(f"{spec.zvol} is exported already by {other}")
        changed = lio.reconcile(spec)
        try:
            row = stored_row(spec, box)
            row.wwn = _wwn(spec)
            db.add(row)
            db.commit()
        except Exception:
            db.rollback()
            lio.remove(spec.iqn, spec.backstore)
            raise
    return changed


def create(
    gw: Gateway, db: Session, box: SecretBox, files: Files, settings: Settings, body: TargetCreate
) -> TargetInfo:
    """Backstore, target, TPG, portal, LUN, ACLs (and CHAP) for an existing zvol: all of it or none,
    stored only once LIO holds it."""
    found = datasets.get(gw, body.zvol)
    if found.type != "VOLUME":
        raise InvalidRequest(f"{body.zvol} is not a zvol (type {found.type})")
    changed = add(db, box, files, settings, spec_of(body))
    log.info(
        "iSCSI target %s on %s for %s (chap %s): %d change(s)",
        body.iqn,
        body.zvol,
        body.initiators,
        bool(body.chap),
        len(changed),
    )
    return _in_lio(body.iqn)


def _in_lio(iqn: str) -> TargetInfo:
    made = lio.target(iqn)
    if made is None:
        raise NotFound(f"iSCSI target {iqn} is missing from LIO after the change")
    return made


def update(
    db: Session, box: SecretBox, files: Files, settings: Settings, iqn: str, body: TargetUpdate
) -> TargetInfo:
    """A stored target's initiators and CHAP replaced: LIO converged on them (an initiator left out loses
    its ACL), then stored; nothing stored when LIO refused (lio undid what it had made)."""
    iqn = names.iqn(iqn)
    with changing(settings):
        adopt(db, box, files)
        row = db.get(IscsiTarget, iqn)
        if row is None:
            raise NotFound(f"no iSCSI target {iqn} is stored")
        spec = TargetSpec(
            iqn=iqn,
            zvol=row.zvol,
            backstore=backstore(row.zvol),
            initiators=body.initiators,
            chap=body.chap,
            wwn=row.wwn,
        )
        changed = lio.reconcile(spec)
        _store(row, spec, box)
        db.commit()
    log.info(
        "iSCSI target %s now for %s (chap %s): %d change(s)",
        iqn,
        body.initiators,
        bool(body.chap),
        len(changed),
    )
    return _in_lio(iqn)


def delete(db: Session, box: SecretBox, files: Files, settings: Settings, iqn: str) -> None:
    """Remove a target and its backstore, and what is stored of it; the zvol and its data stay."""
    iqn = names.iqn(iqn)
    with changing(settings):
        adopt(db, box, files)
        row = db.get(IscsiTarget, iqn)
        target = lio.target(iqn)
        if row is None and target is None:
            raise NotFound(f"no iSCSI target {iqn}")
        zvol = row.zvol if row is not None else iscsi.arcvsa_zvol(target)  # type: ignore[arg-type]
        if row is not None:
            db.delete(row)
            db.flush()  # refused here, LIO is left as it is
        if target is not None:
            lio.remove(iqn, backstore(zvol))
        db.commit()
    log.info("iSCSI target %s removed (zvol %s kept)", iqn, zvol)


def _hold(spec: TargetSpec) -> list[str]:
    """One stored target held in LIO; an ACL LIO has that the target does not list is kept and is the
    error (Conflict): only the admin knows whether that host should reach the LUN."""
    if not lio.block_device(spec.dev):
        raise NotFound(f"zvol {spec.zvol} has no block device {spec.dev}")
    changes = [f"{spec.iqn}: {step}" for step in lio.reconcile(spec, drop_stale=False)]
    seen = lio.observe(spec.iqn, spec.backstore).tpg
    if unlisted := sorted(set(seen.acls if seen else {}) - set(spec.initiators)):
        raise Conflict(
            f"{spec.iqn} has ACLs in LIO for {', '.join(unlisted)}, not among its initiators: add them to the "
            "target (PUT /api/storage/iscsi/targets/{iqn}) or remove them with targetcli"
        )
    return changes


def reconcile(gw: Gateway, files: Files, db: Session, box: SecretBox) -> list[str]:
    """LIO converged on every stored target, each on its own; what that changed. A target whose zvol has
    no device is an error (NotFound) without the device wait; none is touched unless rtslib-fb-targetctl
    has restored LIO (lio.hold_off_while_restoring). The caller holds ``changing``; LIO's targets that are
    not stored are left as they are."""
    adopt(db, box, files)
    rows = list(db.scalars(select(IscsiTarget).order_by(IscsiTarget.iqn)))
    if rows:
        lio.hold_off_while_restoring(gw)
    changes: list[str] = []
    failed: list[tuple[str, ControlError]] = []
    for row in rows:
        try:
            changes += _hold(_spec(row, box))
        except ControlError as err:
            failed.append((row.iqn, err))
        except Exception as err:  # rtslib's own errors, an OSError of configfs: this target's outcome
            failed.append((row.iqn, SystemFault(f"{row.iqn}: {type(err).__name__}: {err}")))
    if failed:  # the outcome holds the first; the log has every one, and what did converge
        for iqn, error in failed:
            log.error("iSCSI target %s not converged: %s", iqn, error)
        if changes:
            log.info("iSCSI targets converged in part: %s", "; ".join(changes))
        raise failed[0][1]
    return changes
