"""The reconcile's all-or-nothing rule, step by step: a failure at any step (or at the save) undoes
every step before it, in reverse, and leaves what existed before as it was.

The LIO here is a table of objects and attribute values with LIO's own rules for the parts the rule
depends on: an object cannot be made twice nor removed when absent, an object cannot be made under a
missing parent, nor removed while it has children. The real LIO does the same on the lab VM
(tests/lab/storage/test_lio.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from appliance.control import iscsi, lio
from appliance.control.iscsi import Observed, ObservedAcl, ObservedBackstore, ObservedTpg, Step

IQN = "iqn.2026-01.org.arcvsa:tank-lun0"
ESXI = "iqn.1998-01.com.vmware:esxi-01"
ESXI2 = "iqn.1998-01.com.vmware:esxi-02"


ROOTS = {"b", "t"}  # the block backstores and the iSCSI fabric


class Refused(Exception):
    pass


class TableLio:
    """Objects by path (a child's path starts with its parent's) and attribute values by path."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.objects: set[str] = set(ROOTS)
        self.values: dict[str, object] = {}
        self.fail_at = fail_at
        self.executed = 0

    def _make(self, path: str) -> Callable[[], None]:
        parent = path.rsplit("/", 1)[0]
        if path in self.objects or (parent and parent not in self.objects):
            raise Refused(f"cannot make {path}")
        self.objects.add(path)
        return lambda: self._remove(path)

    def _remove(self, path: str) -> None:
        if path not in self.objects or any(o.startswith(path + "/") for o in self.objects):
            raise Refused(f"cannot remove {path}")
        self.objects.remove(path)

    def _set(self, path: str, value: object, old: object) -> Callable[[], None] | None:
        self.values[path] = value
        return None if old is None else lambda: self.values.__setitem__(path, old)

    def execute(self, step: Step) -> Callable[[], None] | None:
        if self.executed == self.fail_at:
            raise Refused(f"refused {step.describe()}")
        self.executed += 1
        t = f"t/{step.iqn}"
        match step:
            case iscsi.CreateBackstore(name=name):
                return self._make(f"b/{name}")
            case iscsi.SetBackstoreAttribute(name=name, key=key, value=value, old=old):
                return self._set(f"b/{name}/{key}", value, old)
            case iscsi.CreateTarget():
                return self._make(t)
            case iscsi.CreateTpg():
                return self._make(f"{t}/tpg")
            case iscsi.SetTpgAttribute(key=key, value=value, old=old):
                return self._set(f"{t}/tpg/{key}", value, old)
            case iscsi.CreatePortal():
                return self._make(f"{t}/tpg/portal")
            case iscsi.CreateLun():
                return self._make(f"{t}/tpg/lun0")
            case iscsi.CreateAcl(initiator=i):
                return self._make(f"{t}/tpg/acl:{i}")
            case iscsi.SetAclChap(initiator=i, userid=u, password=p, old_userid=ou, old_password=op):
                return self._set(f"{t}/tpg/acl:{i}/auth", (u, p), (ou, op))
            case iscsi.CreateMappedLun(initiator=i):
                return self._make(f"{t}/tpg/acl:{i}/lun0")
            case iscsi.EnableTpg():
                return self._set(f"{t}/tpg/enable", True, False)
            case iscsi.DeleteAcl(initiator=i, userid=u, password=p, mapped=mapped):
                acl, auth = f"{t}/tpg/acl:{i}", (u, p)
                luns = [f"{acl}/lun{m}" for m, _ in mapped]
                for path in [*luns, acl]:
                    self._remove(path)
                self.values.pop(f"{acl}/auth", None)

                def recreate() -> None:
                    self._make(acl)
                    self._set(f"{acl}/auth", auth, None)
                    for path in luns:
                        self._make(path)

                return recreate
        raise AssertionError(step)


def spec(initiators: list[str]) -> iscsi.TargetSpec:
    return iscsi.TargetSpec(
        iqn=IQN,
        zvol="tank/lun0",
        backstore="tank_lun0",
        initiators=initiators,
        chap=iscsi.Chap(user="esxi", secret="lab-only-secret-1"),
    )


STEPS = iscsi.plan(spec([ESXI, ESXI2]), Observed())


def test_the_whole_plan_applies_and_saves() -> None:
    table, saved = TableLio(), []
    changed = lio._run(table, STEPS, lambda: saved.append(True))
    assert saved == [True] and len(changed) == len(STEPS)
    assert f"t/{IQN}/tpg/acl:{ESXI2}/lun0" in table.objects and table.values[f"t/{IQN}/tpg/enable"] is True


@pytest.mark.parametrize("k", range(len(STEPS)))
def test_a_failure_at_any_step_leaves_nothing_behind(k: int) -> None:
    table = TableLio(fail_at=k)
    with pytest.raises(lio.LioFault, match="nothing of this change is left") as caught:
        lio._run(table, STEPS, lambda: None)
    assert STEPS[k].describe() in str(caught.value)
    assert table.objects == ROOTS, table.objects
    assert "lab-only-secret-1" not in str(caught.value)


def test_a_failed_save_undoes_every_step() -> None:
    table = TableLio()

    def save() -> None:
        raise OSError("read-only file system")

    with pytest.raises(lio.LioFault, match="saving the configuration"):
        lio._run(table, STEPS, save)
    assert table.objects == ROOTS


HAVE = spec([ESXI])
SEEN = Observed(
    backstore=ObservedBackstore("tank_lun0", "/dev/zvol/tank/lun0", {**iscsi.VAAI, "emulate_caw": 0}, {IQN}),
    target=True,
    tpg=ObservedTpg(
        enabled=True,
        attributes=HAVE.tpg_attributes(),
        portals={iscsi.PORTAL},
        luns={0: "tank_lun0"},
        acls={ESXI: ObservedAcl("esxi", "lab-only-secret-1", {0: 0})},
    ),
)
UPDATE = iscsi.plan(spec([ESXI2]), SEEN)  # caw back on, ESXI2 in, ESXI out (last)


def test_an_update_sets_a_value_back_adds_an_initiator_and_drops_the_stale_one_last() -> None:
    assert isinstance(UPDATE[0], iscsi.SetBackstoreAttribute) and isinstance(UPDATE[-1], iscsi.DeleteAcl)


@pytest.mark.parametrize("k", range(len(UPDATE) + 1))  # the last: every step applied, the save fails
def test_an_update_that_fails_anywhere_restores_what_existed(k: int) -> None:
    table = TableLio(fail_at=k)
    existing = ROOTS | {"b/tank_lun0", f"t/{IQN}", f"t/{IQN}/tpg", f"t/{IQN}/tpg/portal", f"t/{IQN}/tpg/lun0"}
    existing |= {f"t/{IQN}/tpg/acl:{ESXI}", f"t/{IQN}/tpg/acl:{ESXI}/lun0"}
    table.objects |= existing
    values = {"b/tank_lun0/emulate_caw": 0, f"t/{IQN}/tpg/acl:{ESXI}/auth": ("esxi", "lab-only-secret-1")}
    table.values |= values

    def save() -> None:
        raise OSError("read-only file system")

    with pytest.raises(lio.LioFault):
        lio._run(table, UPDATE, save)
    assert table.objects == existing
    assert {path: table.values.get(path) for path in values} == values  # the stale ACL's CHAP too


def test_a_path_that_never_becomes_a_block_device_is_a_fault(tmp_path: Path) -> None:
    regular = tmp_path / "not-a-zvol"
    regular.write_bytes(b"")
    for dev in (regular, tmp_path / "absent"):
        started = time.monotonic()
        with pytest.raises(lio.LioFault, match="is not a block device"):
            lio.wait_for_block_device(str(dev), timeout=0.5)
        assert time.monotonic() - started >= 0.5
