"""iSCSI targets: the request becomes a target's desired state, which appliance.control.lio converges on.

Refused before LIO is touched: a bad name or CHAP secret (422 with its field, by the request model), an
IQN LIO has already (409), a zvol that is missing or not a zvol. Reads come from configfs through rtslib
and run no process.
"""

from __future__ import annotations

import hashlib
import logging
import re

from api.iscsi.schemas import TargetCreate
from appliance.control import datasets, iscsi, lio, names
from appliance.control.errors import AlreadyExists, InvalidRequest, NotFound
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.iscsi import TargetInfo, TargetSpec

log = logging.getLogger(__name__)


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


def create(gw: Gateway, body: TargetCreate) -> TargetInfo:
    """Backstore, target, TPG, portal, LUN, ACLs (and CHAP) for an existing zvol: all of it or none."""
    spec = spec_of(body)
    if lio.target(body.iqn) is not None:
        raise AlreadyExists(f"iSCSI target {body.iqn} exists")
    found = datasets.get(gw, body.zvol)
    if found.type != "VOLUME":
        raise InvalidRequest(f"{body.zvol} is not a zvol (type {found.type})")
    changed = lio.reconcile(spec)
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


def delete(iqn: str) -> None:
    """Remove a target and its backstore; the zvol and its data stay."""
    target = lio.target(names.iqn(iqn))
    if target is None:
        raise NotFound(f"no iSCSI target {iqn}")
    zvol = iscsi.arcvsa_zvol(target)
    lio.remove(iqn, backstore(zvol))
    log.info("iSCSI target %s removed (zvol %s kept)", iqn, zvol)
