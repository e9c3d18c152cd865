"""iSCSI targets: refused before any tool runs when the IQN exists or the zvol is missing."""

from __future__ import annotations

import hashlib
import logging
import re

from api.iscsi.schemas import TargetCreate
from appliance.control import datasets, iscsi, names
from appliance.control.errors import AlreadyExists, InvalidRequest, NotFound
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.iscsi import TargetInfo, TargetSpec

log = logging.getLogger(__name__)
ZVOL_DEV = "/dev/zvol/"


def backstore(zvol: str) -> str:
    """The LIO backstore name arcvsa gives a zvol: tank/lun0 -> tank_lun0 (hashed when too long)."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", names.child_dataset(zvol))
    if len(name) > 48:
        name = f"{name[:39]}_{hashlib.sha256(zvol.encode()).hexdigest()[:8]}"
    return names.object_name(name)


def targets(files: Files) -> list[TargetInfo]:
    """Every target in LIO's saved config (none when LIO was never configured)."""
    try:
        return iscsi.targets(files)
    except NotFound:
        return []


def _find(files: Files, iqn: str) -> TargetInfo | None:
    return next((t for t in targets(files) if t.iqn == iqn), None)


def create(gw: Gateway, files: Files, body: TargetCreate) -> TargetInfo:
    """Backstore, target, LUN, ACLs (and CHAP) for an existing zvol; then read back from LIO."""
    if _find(files, body.iqn) is not None:
        raise AlreadyExists(f"iSCSI target {body.iqn} exists")
    found = datasets.get(gw, body.zvol)
    if found.type != "VOLUME":
        raise InvalidRequest(f"{body.zvol} is not a zvol (type {found.type})")
    spec = TargetSpec(
        iqn=body.iqn,
        zvol=body.zvol,
        backstore=backstore(body.zvol),
        initiators=body.initiators,
        chap=body.chap,
    )
    iscsi.create(gw, spec)
    log.info("iSCSI target %s on %s for %s (chap %s)", body.iqn, body.zvol, body.initiators, bool(body.chap))
    made = _find(files, body.iqn)
    if made is None:
        raise NotFound(f"iSCSI target {body.iqn} is missing from LIO's saved config after creation")
    return made


def delete(gw: Gateway, files: Files, iqn: str) -> None:
    """Remove a target and its backstore; the zvol and its data stay."""
    target = _find(files, names.iqn(iqn))
    if target is None:
        raise NotFound(f"no iSCSI target {iqn}")
    zvols = [lun.removeprefix(ZVOL_DEV) for lun in target.luns if lun.startswith(ZVOL_DEV)]
    if len(zvols) != 1 or len(target.luns) != 1:
        raise InvalidRequest(f"{iqn} was not made by arcvsa (one LUN on a zvol): remove it with targetcli")
    iscsi.delete(gw, iqn, backstore(zvols[0]))
    log.info("iSCSI target %s removed (zvol %s kept)", iqn, zvols[0])
