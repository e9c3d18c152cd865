"""iSCSI targets: a request becomes a target's desired state, stored (CHAP secret sealed) once
appliance.control.lio has converged LIO on it; the poller's reconcile holds LIO to the stored targets.

Refused before LIO is touched: a bad name or CHAP secret (422 with its field, by the request model), an
IQN stored or in LIO already (409), a zvol that is missing, not a zvol, or another target's (409). Reads
come from configfs through rtslib and run no process.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import re
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.exports.table import StorageSetting
from api.iscsi.schemas import TargetCreate
from api.iscsi.table import IscsiTarget
from api.secretbox import SecretBox
from api.settings import Settings
from appliance.control import datasets, iscsi, lio, lock, names
from appliance.control.errors import AlreadyExists, Conflict, ControlError, InvalidRequest, NotFound
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.iscsi import Chap, TargetInfo, TargetSpec

log = logging.getLogger(__name__)
# Set once the targets LIO held before they were stored have been adopted (storage_settings).
ADOPTED_KEY = "iscsi_targets_adopted"


def backstore(zvol: str) -> str:
    """The LIO backstore name arcvsa gives a zvol: tank/lun0 -> tank_lun0 (hashed when too long)."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", names.child_dataset(zvol))
    if len(name) > 48:
        name = f"{name[:39]}_{hashlib.sha256(zvol.encode()).hexdigest()[:8]}"
    return names.object_name(name)


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
        chap = Chap(user=row.chap_user, secret=box.open(row.chap_secret))
    return TargetSpec(
        iqn=row.iqn,
        zvol=row.zvol,
        backstore=backstore(row.zvol),
        initiators=json.loads(row.initiators_json),
        chap=chap,
    )


def _row(spec: TargetSpec, box: SecretBox) -> IscsiTarget:
    return IscsiTarget(
        iqn=spec.iqn,
        zvol=spec.zvol,
        initiators_json=json.dumps(spec.initiators),
        chap_user=spec.chap.user if spec.chap else None,
        chap_secret=box.seal(spec.chap.secret) if spec.chap else None,
        created_at=datetime.now(UTC),
    )


def desired(db: Session, box: SecretBox) -> list[TargetSpec]:
    """Every stored target, by IQN."""
    return [_spec(row, box) for row in db.scalars(select(IscsiTarget).order_by(IscsiTarget.iqn))]


def _adopt(db: Session, box: SecretBox) -> None:
    """Once: the targets an older release made in LIO alone (one LUN on a zvol each) become stored
    targets; one arcvsa's rules do not admit stays LIO's own, logged. The caller holds ``changing``."""
    if db.get(StorageSetting, ADOPTED_KEY) is not None or not lio.restored():  # not yet: the next time
        return
    for info in lio.targets():
        try:
            zvol = iscsi.arcvsa_zvol(info)
            if db.get(IscsiTarget, info.iqn) is None:
                spec = iscsi.as_spec(info.iqn, zvol, backstore(zvol), lio.observe(info.iqn, backstore(zvol)))
                db.add(_row(spec, box))
                log.info("iSCSI target %s on %s is now stored", info.iqn, zvol)
        except InvalidRequest as err:
            log.warning("iSCSI target %s left to LIO, not stored: %s", info.iqn, err)
    db.add(StorageSetting(key=ADOPTED_KEY, value="1", updated_at=datetime.now(UTC)))
    db.commit()


def add(db: Session, box: SecretBox, settings: Settings, spec: TargetSpec) -> list[str]:
    """A new target converged on in LIO, then stored; what LIO changed. AlreadyExists where the IQN is
    stored or in LIO, Conflict where the zvol is another stored target's; nothing stored when LIO
    refused (lio undid what it had made)."""
    with changing(settings):
        _adopt(db, box)
        if db.get(IscsiTarget, spec.iqn) is not None or lio.target(spec.iqn) is not None:
            raise AlreadyExists(f"iSCSI target {spec.iqn} exists")
        other = db.scalar(select(IscsiTarget.iqn).where(IscsiTarget.zvol == spec.zvol))
        if other is not None:
            raise Conflict(f"{spec.zvol} is exported already by {other}")
        changed = lio.reconcile(spec)
        db.add(_row(spec, box))
        db.commit()
    return changed


def stored(db: Session, box: SecretBox, settings: Settings) -> list[TargetSpec]:
    """Every stored target (those LIO held before they were stored adopted first)."""
    with changing(settings):
        _adopt(db, box)
        return desired(db, box)


def create(gw: Gateway, db: Session, box: SecretBox, settings: Settings, body: TargetCreate) -> TargetInfo:
    """Backstore, target, TPG, portal, LUN, ACLs (and CHAP) for an existing zvol: all of it or none,
    stored only once LIO holds it."""
    found = datasets.get(gw, body.zvol)
    if found.type != "VOLUME":
        raise InvalidRequest(f"{body.zvol} is not a zvol (type {found.type})")
    changed = add(db, box, settings, spec_of(body))
    log.info(
        "iSCSI target %s on %s for %s (chap %s): %d change(s)",
        body.iqn,
        body.zvol,
        body.initiators,
        bool(body.chap),
        len(changed),
    )
    made = lio.target(body.iqn)
    if made is None:
        raise NotFound(f"iSCSI target {body.iqn} is missing from LIO after creation")
    return made


def delete(db: Session, box: SecretBox, settings: Settings, iqn: str) -> None:
    """Remove a target and its backstore, and what is stored of it; the zvol and its data stay."""
    iqn = names.iqn(iqn)
    with changing(settings):
        _adopt(db, box)
        row = db.get(IscsiTarget, iqn)
        target = lio.target(iqn)
        if row is None and target is None:
            raise NotFound(f"no iSCSI target {iqn}")
        zvol = row.zvol if row is not None else iscsi.arcvsa_zvol(target)  # type: ignore[arg-type]
        if target is not None:
            lio.remove(iqn, backstore(zvol))
        if row is not None:
            db.delete(row)
            db.commit()
    log.info("iSCSI target %s removed (zvol %s kept)", iqn, zvol)


def reconcile(gw: Gateway, db: Session, box: SecretBox) -> list[str]:
    """LIO converged on every stored target (lio.reconcile), each on its own; what that changed. A target
    whose zvol has no device is an error (NotFound) without the device wait; none is touched while LIO
    is being restored (ServiceDown). The caller holds ``changing``; LIO's targets that are not stored are
    left as they are."""
    _adopt(db, box)
    changes: list[str] = []
    failed: list[tuple[str, ControlError]] = []
    specs = desired(db, box)
    if specs:
        lio.hold_off_while_restoring(gw)
    for spec in specs:
        try:
            if not lio.block_device(spec.dev):
                raise NotFound(f"zvol {spec.zvol} has no block device {spec.dev}")
            changes += [f"{spec.iqn}: {step}" for step in lio.reconcile(spec)]
        except ControlError as err:
            failed.append((spec.iqn, err))
    if failed:  # the outcome holds the first; the log has every one, and what did converge
        for iqn, error in failed:
            log.error("iSCSI target %s not converged: %s", iqn, error)
        if changes:
            log.info("iSCSI targets converged in part: %s", "; ".join(changes))
        raise failed[0][1]
    return changes
