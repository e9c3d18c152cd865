"""The iSCSI targets as stored desired state (api.iscsi.service): a target is stored, its CHAP secret
sealed and its LUN's unit serial kept, only once LIO holds it; the poller's reconcile gives LIO back what
it lost with the same serial, keeps an ACL it does not know and says so, and waits for
rtslib-fb-targetctl; the targets an older release saved in LIO are adopted once, from what LIO saved.

LIO here is a table of targets by IQN that refuses on demand (a real refusal of the real LIO, and its
undo, are tests/lab/storage/test_lio.py's); what the service hands it is what is checked. What LIO saved
is the lab's saveconfig.json (the ``iscsi`` recording), changed one thing at a time.
"""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance.replay import ReplayRunner, load
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker
from support.api import client_for, make_settings

from api.exports.table import StorageSetting
from api.iscsi import service
from api.iscsi.schemas import TargetUpdate
from api.iscsi.table import IscsiTarget
from api.secretbox import SecretBox
from api.settings import Settings
from appliance.control import iscsi, lio
from appliance.control.errors import AlreadyExists, Conflict, NotFound, ServiceDown, SystemFault
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway
from appliance.control.iscsi import (
    Chap,
    Observed,
    ObservedAcl,
    ObservedBackstore,
    ObservedTpg,
    TargetInfo,
    TargetSpec,
)

IQN = "iqn.2026-01.org.arcvsa:tank-lun0"  # the recording's target
IQN2 = "iqn.2026-01.org.arcvsa:tank-lun1"
ESXI = "iqn.1998-01.com.vmware:esxi-01"
ESXI2 = "iqn.1998-01.com.vmware:esxi-02"
SECRET = "lab-only-secret-7"
SAVED = load("iscsi")["reads"][iscsi.SAVECONFIG]
SAVED_WWN = "9816a30f-9aaf-4754-b99d-530e502792db"  # tank_lun0's unit serial in it
GW = Gateway(ReplayRunner({"commands": []}))  # no command: LIO is read and written through configfs


def spec(iqn: str = IQN, zvol: str = "tank/lun0", chap: Chap | None = None) -> TargetSpec:
    return TargetSpec(iqn=iqn, zvol=zvol, backstore=service.backstore(zvol), initiators=[ESXI], chap=chap)


class TableLio:
    """LIO's targets by IQN: what each reconcile was given, a refusal on demand, a new unit serial for
    each new backstore, ACLs added by hand, rtslib-fb-targetctl's state."""

    def __init__(self) -> None:
        self.held: dict[str, TargetSpec] = {}
        self.given: list[tuple[TargetSpec, bool]] = []
        self.refuse: Exception | None = None
        self.restorer = "active"
        self.serials = 0
        self.devices = {"/dev/zvol/tank/lun0", "/dev/zvol/tank/lun1"}
        self.by_hand: dict[str, list[str]] = {}  # ACLs added with targetcli

    def reconcile(self, wanted: TargetSpec, drop_stale: bool = True) -> list[str]:
        self.given.append((wanted, drop_stale))
        if self.refuse is not None:
            raise self.refuse
        have = self.held.get(wanted.iqn)
        if drop_stale:
            self.by_hand.pop(wanted.iqn, None)
        if have is not None and (have.initiators, have.chap) == (wanted.initiators, wanted.chap):
            return []
        serial = wanted.wwn or (have.wwn if have else None)
        if serial is None:
            self.serials += 1
            serial = f"{self.serials:08x}-0000-4000-8000-000000000000"
        self.held[wanted.iqn] = wanted.model_copy(update={"wwn": serial})
        return [f"CreateTarget(iqn={wanted.iqn!r})"]

    def info(self, iqn: str) -> TargetInfo | None:
        held = self.held.get(iqn)
        if held is None:
            return None
        return TargetInfo(
            iqn=iqn, luns=[held.dev], initiators=held.initiators, chap=held.chap is not None, vaai={}
        )

    def observe(self, iqn: str, backstore: str) -> Observed:
        held = self.held.get(iqn)
        if held is None:
            return Observed()
        acls = {i: ObservedAcl() for i in [*held.initiators, *self.by_hand.get(iqn, [])]}
        store = ObservedBackstore(backstore, held.dev, {}, {iqn}, held.wwn or "")
        return Observed(backstore=store, target=True, tpg=ObservedTpg(acls=acls))

    def hold_off(self, _gw: object) -> None:
        if self.restorer == "activating":
            raise ServiceDown("rtslib-fb-targetctl.service is activating")
        if self.restorer != "active":
            raise SystemFault(f"rtslib-fb-targetctl.service is {self.restorer}")

    def remove(self, iqn: str, backstore: str) -> None:
        assert service.backstore(self.held[iqn].zvol) == backstore
        del self.held[iqn]


@pytest.fixture
def table(monkeypatch: pytest.MonkeyPatch) -> TableLio:
    t = TableLio()
    monkeypatch.setattr(lio, "reconcile", t.reconcile)
    monkeypatch.setattr(lio, "target", t.info)
    monkeypatch.setattr(lio, "targets", lambda: [i for q in sorted(t.held) if (i := t.info(q))])
    monkeypatch.setattr(lio, "observe", t.observe)
    monkeypatch.setattr(lio, "remove", t.remove)
    monkeypatch.setattr(lio, "block_device", lambda dev: dev in t.devices)
    monkeypatch.setattr(lio, "hold_off_while_restoring", t.hold_off)
    return t


class Appliance:
    def __init__(self, tmp_path: Path) -> None:
        self.settings: Settings = make_settings(tmp_path / "data")
        state = client_for(self.settings).app.state  # type: ignore[attr-defined]
        self.factory: sessionmaker[Session] = state.sessionmaker
        self.box: SecretBox = state.secretbox
        self.files = LocalFiles(tmp_path / "root")

    def add(self, wanted: TargetSpec) -> list[str]:
        with self.factory() as db:
            return service.add(db, self.box, self.files, self.settings, wanted)

    def reconcile(self) -> list[str]:
        with self.factory() as db:
            return service.reconcile(GW, self.files, db, self.box)

    def desired(self) -> list[TargetSpec]:
        with self.factory() as db:
            return service.desired(db, self.box)

    def rows(self) -> list[IscsiTarget]:
        with self.factory() as db:
            return list(db.scalars(select(IscsiTarget).order_by(IscsiTarget.iqn)))


@pytest.fixture
def appliance(tmp_path: Path) -> Appliance:
    return Appliance(tmp_path)


def test_a_target_is_stored_with_its_secret_sealed_and_its_serial_once_lio_holds_it(
    table: TableLio, appliance: Appliance
) -> None:
    wanted = spec(chap=Chap(user="esxi", secret=SECRET))
    assert appliance.add(wanted) == [f"CreateTarget(iqn={IQN!r})"]
    [row] = appliance.rows()
    assert row.iqn == IQN and row.zvol == "tank/lun0" and row.chap_user == "esxi"
    assert row.chap_secret is not None and SECRET.encode() not in row.chap_secret
    assert appliance.box.open(row.chap_secret) == SECRET
    assert row.wwn == table.held[IQN].wwn == "00000001-0000-4000-8000-000000000000"
    assert appliance.desired() == [wanted.model_copy(update={"wwn": row.wwn})]


def test_a_target_lio_refuses_is_not_stored(table: TableLio, appliance: Appliance) -> None:
    table.refuse = lio.LioFault("LIO refused CreateAcl; nothing of this change is left")
    with pytest.raises(lio.LioFault, match="nothing of this change is left"):
        appliance.add(spec())
    assert appliance.rows() == [] and table.held == {}


def test_a_target_the_store_refuses_is_taken_out_of_lio(
    table: TableLio, appliance: Appliance, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*_: object) -> bytes:
        raise OSError("disk full")

    monkeypatch.setattr(appliance.box, "seal", full)
    with pytest.raises(OSError, match="disk full"):
        appliance.add(spec(chap=Chap(user="esxi", secret=SECRET)))
    assert appliance.rows() == [] and table.held == {}


def test_an_iqn_or_a_zvol_taken_already_is_refused_before_lio(table: TableLio, appliance: Appliance) -> None:
    appliance.add(spec())
    given = len(table.given)
    with pytest.raises(AlreadyExists, match=f"iSCSI target {IQN} exists"):
        appliance.add(spec(zvol="tank/lun1"))
    with pytest.raises(Conflict, match=f"tank/lun0 is exported already by {IQN}"):
        appliance.add(spec(iqn=IQN2))
    assert len(table.given) == given  # LIO was not asked
    del table.held[IQN]  # LIO lost it: the IQN is still the stored target's
    with pytest.raises(AlreadyExists):
        appliance.add(spec(zvol="tank/lun1"))


def test_delete_removes_the_target_from_lio_and_the_store(table: TableLio, appliance: Appliance) -> None:
    appliance.add(spec())
    with appliance.factory() as db:
        service.delete(db, appliance.box, appliance.files, appliance.settings, IQN)
    assert appliance.rows() == [] and table.held == {}
    with appliance.factory() as db, pytest.raises(NotFound, match=f"no iSCSI target {IQN}"):
        service.delete(db, appliance.box, appliance.files, appliance.settings, IQN)


def test_an_update_replaces_the_hosts_and_chap_and_keeps_the_serial(
    table: TableLio, appliance: Appliance
) -> None:
    appliance.add(spec(chap=Chap(user="esxi", secret=SECRET)))
    serial = table.held[IQN].wwn
    body = TargetUpdate(initiators=[ESXI, ESXI2], chap=None)
    with appliance.factory() as db:
        found = service.update(db, appliance.box, appliance.files, appliance.settings, IQN, body)
    assert found.initiators == [ESXI, ESXI2] and found.chap is False
    wanted, dropping = table.given[-1]
    assert wanted.initiators == [ESXI, ESXI2] and wanted.chap is None and wanted.wwn == serial and dropping
    [row] = appliance.rows()
    assert json.loads(row.initiators_json) == [ESXI, ESXI2] and row.chap_secret is None and row.wwn == serial
    table.refuse = lio.LioFault("LIO refused CreateAcl")
    with appliance.factory() as db, pytest.raises(lio.LioFault):
        service.update(
            db, appliance.box, appliance.files, appliance.settings, IQN, TargetUpdate(initiators=[ESXI2])
        )
    assert json.loads(appliance.rows()[0].initiators_json) == [ESXI, ESXI2]  # refused: the stored one stays
    with appliance.factory() as db, pytest.raises(NotFound, match=f"no iSCSI target {IQN2} is stored"):
        service.update(db, appliance.box, appliance.files, appliance.settings, IQN2, body)


def test_the_reconcile_gives_lio_back_a_target_it_lost_with_its_secret_and_serial(
    table: TableLio, appliance: Appliance
) -> None:
    appliance.add(spec(chap=Chap(user="esxi", secret=SECRET)))
    serial = table.held[IQN].wwn
    assert appliance.reconcile() == []  # LIO holds it: nothing to do
    del table.held[IQN]  # a restart without its saved configuration
    assert appliance.reconcile() == [f"{IQN}: CreateTarget(iqn={IQN!r})"]
    wanted, dropping = table.given[-1]
    assert wanted.chap == Chap(user="esxi", secret=SECRET) and wanted.wwn == serial and not dropping
    assert table.held[IQN].wwn == serial  # ESXi sees the same LUN


def test_an_acl_added_by_hand_is_kept_and_is_the_outcome(table: TableLio, appliance: Appliance) -> None:
    """Only the admin knows whether that host should reach the LUN: removing its ACL could stop its VMs."""
    appliance.add(spec())
    table.by_hand[IQN] = [ESXI2]
    with pytest.raises(Conflict, match=f"{IQN} has ACLs in LIO for {ESXI2}, not among its initiators"):
        appliance.reconcile()
    assert table.by_hand[IQN] == [ESXI2] and not table.given[-1][1]


def test_a_target_whose_zvol_is_gone_is_the_outcome_and_the_others_converge(
    table: TableLio, appliance: Appliance, caplog: pytest.LogCaptureFixture
) -> None:
    appliance.add(spec())
    appliance.add(spec(iqn=IQN2, zvol="tank/lun1"))
    table.held.clear()
    table.devices.discard("/dev/zvol/tank/lun0")
    with pytest.raises(NotFound, match="zvol tank/lun0 has no block device /dev/zvol/tank/lun0"):
        appliance.reconcile()
    assert list(table.held) == [IQN2]  # converged beside the one that could not be
    assert f"iSCSI target {IQN} not converged" in caplog.text


def test_an_error_of_rtslib_itself_is_a_typed_outcome(table: TableLio, appliance: Appliance) -> None:
    appliance.add(spec())
    del table.held[IQN]
    table.refuse = RuntimeError("RTSLibError: Cannot find a block device")
    with pytest.raises(SystemFault, match=f"{IQN}: RuntimeError: RTSLibError: Cannot find a block device"):
        appliance.reconcile()


@pytest.mark.parametrize(
    ("state", "error"), [("activating", ServiceDown), ("inactive", SystemFault), ("failed", SystemFault)]
)
def test_no_target_is_touched_unless_lio_was_restored(
    table: TableLio, appliance: Appliance, state: str, error: type[Exception]
) -> None:
    """A target made while rtslib-fb-targetctl restores LIO, or while an admin has it stopped, would be one
    more beside the saved ones it has not restored yet."""
    appliance.add(spec())
    table.held.clear()
    table.restorer = state
    given = len(table.given)
    with pytest.raises(error, match=state):
        appliance.reconcile()
    assert len(table.given) == given
    table.restorer = "active"
    assert appliance.reconcile() == [f"{IQN}: CreateTarget(iqn={IQN!r})"]


# --- adoption: the targets an older release saved in LIO --------------------------------------------


def _saved(change: Any = None) -> str:
    data = json.loads(SAVED)
    if change is not None:
        change(data)
    return json.dumps(data)


def test_the_targets_lio_saved_are_adopted_once_with_their_secret_and_serial(
    table: TableLio, appliance: Appliance, caplog: pytest.LogCaptureFixture
) -> None:
    appliance.files.write(iscsi.SAVECONFIG, SAVED)
    with caplog.at_level(logging.INFO, logger="api.iscsi.service"):
        assert appliance.reconcile() == [f"{IQN}: CreateTarget(iqn={IQN!r})"]  # not restored here: made
    assert appliance.desired() == [
        TargetSpec(
            iqn=IQN,
            zvol="tank/lun0",
            backstore="tank_lun0",
            initiators=[ESXI],
            chap=Chap(user="esxi", secret="lab-only-secret-1"),
            wwn=SAVED_WWN,
        )
    ]
    assert table.held[IQN].wwn == SAVED_WWN
    assert f"iSCSI target {IQN} on tank/lun0 is now stored" in caplog.text
    assert "lab-only-secret-1" not in caplog.text
    with appliance.factory() as db:
        service.delete(db, appliance.box, appliance.files, appliance.settings, IQN)
    appliance.reconcile()  # adopted once: a target deleted since is not adopted again
    assert appliance.desired() == []


def _second_target(data: dict[str, Any], user: str) -> None:
    """A second target like the first, on tank/lun1, its one ACL's CHAP user ``user``."""
    store = copy.deepcopy(data["storage_objects"][0]) | {"name": "tank_lun1", "dev": "/dev/zvol/tank/lun1"}
    target = copy.deepcopy(data["targets"][0]) | {"wwn": IQN2}
    target["tpgs"][0]["luns"][0]["storage_object"] = "/backstores/block/tank_lun1"
    acl = copy.deepcopy(target["tpgs"][0]["node_acls"][0]) | {"node_wwn": ESXI2, "chap_userid": user}
    target["tpgs"][0]["node_acls"].append(acl)
    data["storage_objects"].append(store)
    data["targets"].append(target)


def test_a_target_whose_hosts_differ_in_chap_is_left_to_lio(
    table: TableLio, appliance: Appliance, caplog: pytest.LogCaptureFixture
) -> None:
    appliance.files.write(iscsi.SAVECONFIG, _saved(lambda d: _second_target(d, "other")))
    appliance.reconcile()
    assert [t.iqn for t in appliance.desired()] == [IQN]
    assert (
        f"iSCSI target {IQN2} left to LIO, not stored: {IQN2}: its initiators have different CHAP"
        in caplog.text
    )
    assert "lab-only-secret-1" not in caplog.text


def test_two_alike_targets_are_both_adopted(table: TableLio, appliance: Appliance) -> None:
    appliance.files.write(iscsi.SAVECONFIG, _saved(lambda d: _second_target(d, "esxi")))
    appliance.reconcile()
    assert [(t.iqn, t.initiators) for t in appliance.desired()] == [(IQN, [ESXI]), (IQN2, [ESXI, ESXI2])]


def test_a_file_lio_cannot_restore_from_adopts_nothing_and_is_tried_again(
    table: TableLio, appliance: Appliance, caplog: pytest.LogCaptureFixture
) -> None:
    appliance.files.write(iscsi.SAVECONFIG, SAVED[: len(SAVED) // 2])  # a save cut short
    assert appliance.reconcile() == []
    assert "the iSCSI targets LIO saved are not adopted: saveconfig.json" in caplog.text
    with appliance.factory() as db:
        assert db.get(StorageSetting, service.ADOPTED_KEY) is None
    appliance.files.write(iscsi.SAVECONFIG, SAVED)
    appliance.reconcile()
    assert [t.iqn for t in appliance.desired()] == [IQN]
