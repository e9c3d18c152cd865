"""LIO through rtslib-fb (configfs): read a target's objects, apply a plan, undo it on failure, save.

rtslib-fb is Debian's ``python3-rtslib-fb`` (targetcli-fb's own library): the api's venv sees Debian's
packages after its locked ones, so the library that writes the configuration is the one
``rtslib-fb-targetctl.service`` restores it with at boot, in the same saveconfig.json format. It is
imported on first use: machines that are not appliances (a developer's, the fleet manager) have no
LIO and never reach this module's writes.

Everything goes through configfs files: the CHAP secret is written to the ACL's ``auth/password``,
never on a process's argv. Reads run no process (RTSRoot only mounts configfs or loads a module when
they are missing, and :func:`targets` does not call it then).

A reconcile either converges or leaves LIO as it found it: each step that creates an object pushes its
removal, each attribute it sets pushes the old value, and any failure (a refusal of LIO, a missing
device, the save) replays them in reverse before the typed error is raised. Stale ACLs are removed
last, after everything else has succeeded.

LIO keeps SCSI-3 persistent reservations made with APTPL in ``DBROOT/pr/aptpl_<unit serial>``; the
kernel fails every PERSISTENT RESERVE OUT with NOT READY when that directory is missing, and rtslib
re-reads the file when it restores a backstore at boot. The reconciler makes the directory before it
touches any object: upgrades replace only /opt/arcvsa, so an image file would never reach appliances
already deployed, and the reconciler runs on every change.
"""

from __future__ import annotations

import importlib
import logging
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from appliance.control import iscsi, lock
from appliance.control.errors import NotFound, ServiceDown, SystemFault, ToolMissing
from appliance.control.gateway import Gateway
from appliance.control.iscsi import Observed, ObservedAcl, ObservedBackstore, ObservedTpg, Step, TargetInfo

log = logging.getLogger(__name__)
CONFIGFS = Path("/sys/kernel/config/target")
LOCK = Path("/run/arcvsa-lio.lock")
PR_DIR_MODE = 0o700
# The unit that clears LIO and restores it from saveconfig.json, at boot and on a restart.
RESTORER = "rtslib-fb-targetctl.service"
TRANSIENT = {"activating", "deactivating", "reloading"}
DEVICE_WAIT, DEVICE_POLL = 30.0, 0.2


class LioFault(SystemFault):
    """LIO (configfs, rtslib) refused a change; what this reconcile had made is undone."""


Undo = Callable[[], None]


class Executes(Protocol):
    """What applies one step and says how to undo it (:class:`Lio`)."""

    def execute(self, step: Step) -> Undo | None: ...


def _rtslib() -> ModuleType:
    try:
        return importlib.import_module("rtslib_fb")
    except ImportError:
        raise ToolMissing("rtslib-fb is not installed: LIO is driven only on an appliance") from None


class Lio:
    """The live LIO configuration through rtslib; one instance per reconcile or read."""

    def __init__(self) -> None:
        self.rts = _rtslib()
        self.root = self.rts.RTSRoot()
        self.fabric = self.rts.FabricModule("iscsi")

    # --- reads -----------------------------------------------------------------------------------

    def _target(self, iqn: str) -> Any | None:
        try:
            return self.rts.Target(self.fabric, iqn, mode="lookup")
        except self.rts.RTSLibError:
            return None

    def _backstore(self, name: str) -> Any | None:
        try:
            return self.rts.BlockStorageObject(name)
        except self.rts.RTSLibError:
            return None

    def observe(self, iqn: str, backstore: str) -> Observed:
        """What LIO holds of the target ``iqn`` and the backstore ``backstore``."""
        seen = Observed()
        store = self._backstore(backstore)
        if store is not None:
            seen.backstore = ObservedBackstore(
                name=backstore,
                dev=store.udev_path,
                attributes={k: _int(store.get_attribute(k)) for k in iscsi.VAAI},
                used_by={lun.parent_tpg.parent_target.wwn for lun in store.attached_luns},
                wwn=store.wwn,
            )
        target = self._target(iqn)
        if target is None:
            return seen
        seen.target = True
        tpg = next((t for t in target.tpgs if t.tag == iscsi.TPG_TAG), None)
        if tpg is None:
            return seen
        seen.tpg = ObservedTpg(
            enabled=bool(tpg.enable),
            attributes={k: tpg.get_attribute(k) for k in iscsi.TPG_ATTRIBUTES},
            portals={(p.ip_address, int(p.port)) for p in tpg.network_portals},
            luns={int(lun.lun): lun.storage_object.name for lun in tpg.luns},
            acls={
                acl.node_wwn: ObservedAcl(
                    userid=acl.chap_userid or "",
                    password=acl.chap_password or "",
                    mapped={int(m.mapped_lun): int(m.tpg_lun.lun) for m in acl.mapped_luns},
                )
                for acl in tpg.node_acls
            },
        )
        return seen

    def info(self, target: Any) -> TargetInfo:
        """The api's view of one target."""
        luns, initiators, vaai, chap = [], [], {}, False
        for tpg in target.tpgs:
            chap = chap or tpg.get_attribute("authentication") == "1"
            for lun in tpg.luns:
                store = lun.storage_object
                luns.append(store.udev_path)
                vaai = {k: _int(store.get_attribute(k)) for k in iscsi.VAAI}
            initiators += [acl.node_wwn for acl in tpg.node_acls]
        return TargetInfo(iqn=target.wwn, luns=luns, initiators=initiators, chap=chap, vaai=vaai)

    def all_targets(self) -> list[TargetInfo]:
        """Every iSCSI target LIO has."""
        return [self.info(t) for t in self.fabric.targets]

    def target(self, iqn: str) -> TargetInfo | None:
        """One target, None when LIO has no target of that IQN."""
        found = self._target(iqn)
        return None if found is None else self.info(found)

    # --- writes ----------------------------------------------------------------------------------

    def ensure_pr_dir(self) -> None:
        """LIO's directory for APTPL reservation metadata, under the dbroot the kernel uses."""
        os.makedirs(Path(self.root.dbroot) / "pr", mode=PR_DIR_MODE, exist_ok=True)

    def _tpg(self, iqn: str) -> Any:
        return self.rts.TPG(self.rts.Target(self.fabric, iqn, mode="lookup"), iscsi.TPG_TAG, mode="lookup")

    def _acl(self, iqn: str, initiator: str) -> Any:
        return self.rts.NodeACL(self._tpg(iqn), initiator, mode="lookup")

    def execute(self, step: Step) -> Undo | None:
        """Apply one step; returns what undoes it (None: nothing to undo)."""
        rts = self.rts
        match step:
            case iscsi.CreateBackstore(name=name, dev=dev, wwn=wwn):
                wait_for_block_device(dev)
                store = rts.BlockStorageObject(name, dev=dev, wwn=wwn)  # its reservations come back with it
                return store.delete
            case iscsi.SetBackstoreAttribute(name=name, key=key, value=value, old=old):
                store = rts.BlockStorageObject(name)
                store.set_attribute(key, str(value))
                return None if old is None else lambda: store.set_attribute(key, str(old))
            case iscsi.CreateTarget(iqn=iqn):
                target = rts.Target(self.fabric, iqn, mode="create")
                return target.delete
            case iscsi.CreateTpg(iqn=iqn, tag=tag):
                tpg = rts.TPG(rts.Target(self.fabric, iqn, mode="lookup"), tag, mode="create")
                return tpg.delete
            case iscsi.SetTpgAttribute(iqn=iqn, key=key, value=value, old=old):
                tpg = self._tpg(iqn)
                tpg.set_attribute(key, value)
                return None if old is None else lambda: tpg.set_attribute(key, old)
            case iscsi.CreatePortal(iqn=iqn, ip=ip, port=port):
                portal = rts.NetworkPortal(self._tpg(iqn), ip, port, mode="create")
                return portal.delete
            case iscsi.CreateLun(iqn=iqn, lun=lun, backstore=name):
                made = rts.LUN(self._tpg(iqn), lun, rts.BlockStorageObject(name))
                return made.delete
            case iscsi.CreateAcl(iqn=iqn, initiator=initiator):
                acl = rts.NodeACL(self._tpg(iqn), initiator, mode="create")
                return acl.delete
            case iscsi.SetAclChap(iqn=iqn, initiator=initiator) as chap:
                acl = self._acl(iqn, initiator)
                acl.chap_userid, acl.chap_password = chap.userid, chap.password

                def restore() -> None:
                    acl.chap_userid, acl.chap_password = chap.old_userid, chap.old_password

                return restore
            case iscsi.CreateMappedLun(iqn=iqn, initiator=initiator, mapped_lun=mapped, tpg_lun=lun):
                mlun = rts.MappedLUN(self._acl(iqn, initiator), mapped, lun, write_protect=False)
                return mlun.delete
            case iscsi.EnableTpg(iqn=iqn):
                tpg = self._tpg(iqn)
                tpg.enable = True
                return lambda: setattr(tpg, "enable", False)
            case iscsi.DeleteAcl(iqn=iqn, initiator=initiator) as stale:
                self._acl(iqn, initiator).delete()

                def recreate() -> None:
                    acl = rts.NodeACL(self._tpg(iqn), initiator, mode="create")
                    if stale.userid:
                        acl.chap_userid, acl.chap_password = stale.userid, stale.password
                    for mapped, lun in stale.mapped:
                        rts.MappedLUN(acl, mapped, lun, write_protect=False)

                return recreate
        raise AssertionError(f"no handler for {step!r}")

    def save(self) -> None:
        """Write the live configuration where rtslib-fb-targetctl.service restores it from at boot."""
        self.root.save_to_file(iscsi.SAVECONFIG)

    def remove(self, iqn: str, backstore: str) -> None:
        """Remove a target (TPG, portal, LUN, ACLs), its backstore and the backstore's APTPL file."""
        target = self._target(iqn)
        if target is None:
            raise NotFound(f"no iSCSI target {iqn}")
        target.delete()
        store = self._backstore(backstore)
        if store is not None:
            aptpl = Path(self.root.dbroot) / "pr" / f"aptpl_{store.wwn}"
            store.delete()
            aptpl.unlink(missing_ok=True)


def block_device(dev: str) -> bool:
    """Whether ``dev`` is a block device now."""
    try:
        return stat.S_ISBLK(os.stat(dev).st_mode)
    except OSError:
        return False


def wait_for_block_device(dev: str, timeout: float = DEVICE_WAIT) -> None:
    """Wait for a zvol's device node: ZFS makes it after `zfs create -V` returns, and udev its link."""
    deadline = time.monotonic() + timeout
    while not block_device(dev):
        if time.monotonic() >= deadline:
            raise LioFault(f"{dev} is not a block device (waited {timeout:.0f} s for it)")
        time.sleep(DEVICE_POLL)


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        return -1


def _run(lio: Executes, steps: list[Step], save: Callable[[], None]) -> list[str]:
    """Apply ``steps`` then ``save``; on any failure undo what was applied, in reverse, and raise."""
    undo: list[tuple[Step, Undo]] = []
    current: Step | None = None
    try:
        for current in steps:
            back = lio.execute(current)
            if back is not None:
                undo.append((current, back))
        current = None
        save()
    except Exception as err:
        failed = current.describe() if current else "saving the configuration"
        for step, back in reversed(undo):
            try:
                back()
            except Exception:
                log.exception("LIO: undoing %s failed", step.describe())
        log.warning("LIO: %s failed (%s); undid %d step(s)", failed, err, len(undo))
        raise LioFault(f"LIO refused {failed}: {err}; nothing of this change is left") from None
    return [s.describe() for s in steps]


def reconcile(spec: iscsi.TargetSpec, drop_stale: bool = True) -> list[str]:
    """Converge LIO on ``spec``; returns the steps applied ([] when it matched already). With
    ``drop_stale`` false the ACLs of initiators ``spec`` does not list are kept (iscsi.plan)."""
    with lock.held(LOCK):  # one reconcile of LIO at a time on this machine
        lio = Lio()
        lio.ensure_pr_dir()
        steps = iscsi.plan(spec, lio.observe(spec.iqn, spec.backstore), drop_stale)
        if not steps:
            return []
        changed = _run(lio, steps, lio.save)
        log.info("LIO: target %s converged in %d step(s)", spec.iqn, len(changed))
        return changed


def remove(iqn: str, backstore: str) -> None:
    """Remove a target and its backstore (the zvol stays), then save."""
    with lock.held(LOCK):  # one reconcile of LIO at a time on this machine
        lio = Lio()
        lio.remove(iqn, backstore)
        lio.save()


def observe(iqn: str, backstore: str) -> iscsi.Observed:
    """What LIO holds of a target and its backstore (nothing where LIO's iSCSI fabric is not loaded)."""
    if not configured():
        return iscsi.Observed()
    with lock.held(LOCK):
        return Lio().observe(iqn, backstore)


def configured() -> bool:
    """Whether this machine's kernel has LIO's iSCSI fabric in configfs (never loads or mounts it)."""
    return (CONFIGFS / "iscsi").is_dir()


def hold_off_while_restoring(gw: Gateway) -> None:
    """Unless rtslib-fb-targetctl has restored LIO from what it saved (active): ServiceDown while it clears
    and restores it, SystemFault while it is stopped or failed. A target made then would be one more
    beside the saved ones it has not restored yet, and an admin who stopped it stopped iSCSI."""
    argv = ["systemctl", "show", "--property=ActiveState", "--value", RESTORER]
    state = gw.query(argv, timeout=30).stdout.strip()
    if state in TRANSIENT:
        raise ServiceDown(f"{RESTORER} is {state}: LIO is being restored from its saved configuration")
    if state != "active":
        raise SystemFault(f"{RESTORER} is {state}: LIO holds no restored targets, none is made meanwhile")


def targets() -> list[TargetInfo]:
    """Every iSCSI target in LIO ([] where LIO's iSCSI fabric is not loaded); runs no process."""
    if not configured():
        return []
    return Lio().all_targets()


def target(iqn: str) -> TargetInfo | None:
    """One target as LIO has it, None when absent."""
    if not configured():
        return None
    return Lio().target(iqn)
