"""The iSCSI target's desired state against what LIO holds: the plan of steps, its refusals, validation.

Pure: the LIO side is :class:`iscsi.Observed` as appliance.control.lio reads it from configfs; applying
the steps and undoing them on a failure is proven on the real LIO in tests/lab/storage/test_lio.py.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import pytest
from fixtures.appliance.replay import load
from pydantic import ValidationError

from appliance.control import iscsi
from appliance.control.errors import BadOutput, Conflict, InvalidRequest
from appliance.control.iscsi import (
    CreateAcl,
    CreateBackstore,
    CreateLun,
    CreateMappedLun,
    CreatePortal,
    CreateTarget,
    CreateTpg,
    DeleteAcl,
    EnableTpg,
    Observed,
    ObservedAcl,
    ObservedBackstore,
    ObservedTpg,
    SetAclChap,
    SetBackstoreAttribute,
    SetTpgAttribute,
    TargetSpec,
)

IQN = "iqn.2026-01.org.arcvsa:tank-lun0"
ESXI = "iqn.1998-01.com.vmware:esxi-01"
ESXI2 = "iqn.1998-01.com.vmware:esxi-02"
SECRET = "lab-only-secret-1"
DEV = "/dev/zvol/tank/lun0"


def spec(**overrides: object) -> iscsi.TargetSpec:
    base: dict[str, object] = {
        "iqn": IQN,
        "zvol": "tank/lun0",
        "backstore": "tank_lun0",
        "initiators": [ESXI],
        "chap": {"user": "esxi", "secret": SECRET},
    }
    return iscsi.TargetSpec.model_validate(base | overrides)


def converged(want: iscsi.TargetSpec) -> Observed:
    """What LIO holds once ``want`` is applied (as lio.Lio.observe reads it)."""
    user, secret = (want.chap.user, want.chap.secret) if want.chap else ("", "")
    return Observed(
        backstore=ObservedBackstore("tank_lun0", DEV, dict(iscsi.VAAI), {IQN}),
        target=True,
        tpg=ObservedTpg(
            enabled=True,
            attributes=want.tpg_attributes(),
            portals={iscsi.PORTAL},
            luns={0: "tank_lun0"},
            acls={i: ObservedAcl(user, secret, {0: 0}) for i in want.initiators},
        ),
    )


def test_an_empty_lio_gets_every_object_in_order() -> None:
    steps = iscsi.plan(spec(), Observed())
    assert steps == [
        CreateBackstore(IQN, "tank_lun0", DEV),
        SetBackstoreAttribute(IQN, "tank_lun0", "emulate_3pc", 1, None),
        SetBackstoreAttribute(IQN, "tank_lun0", "emulate_caw", 1, None),
        SetBackstoreAttribute(IQN, "tank_lun0", "emulate_tpu", 1, None),
        SetBackstoreAttribute(IQN, "tank_lun0", "emulate_tpws", 0, None),
        CreateTarget(IQN),
        CreateTpg(IQN, 1),
        SetTpgAttribute(IQN, "authentication", "1", None),
        SetTpgAttribute(IQN, "generate_node_acls", "0", None),
        SetTpgAttribute(IQN, "demo_mode_write_protect", "1", None),
        CreatePortal(IQN, "0.0.0.0", 3260),  # every address, iSCSI's port: where ESXi looks  # noqa: S104
        CreateLun(IQN, 0, "tank_lun0"),
        CreateAcl(IQN, ESXI),
        SetAclChap(IQN, ESXI, "esxi", SECRET, "", ""),
        CreateMappedLun(IQN, ESXI, 0, 0),
        EnableTpg(IQN),
    ]


def test_a_target_needs_one_initiator_at_least() -> None:
    assert spec(initiators=[ESXI]).initiators == [ESXI]
    with pytest.raises(ValidationError, match="initiators"):
        spec(initiators=[])  # a target nobody may log in to exports nothing


def test_an_observed_acl_never_shows_its_chap_password() -> None:
    acl = ObservedAcl("esxi", SECRET, {0: 0})
    assert SECRET not in repr(acl) and SECRET not in str(acl) and "esxi" in repr(acl)


def test_a_converged_target_needs_nothing() -> None:
    want = spec(initiators=[ESXI, ESXI2])
    assert iscsi.plan(want, converged(want)) == []
    open_target = spec(chap=None)
    assert iscsi.plan(open_target, converged(open_target)) == []


def test_without_chap_authentication_is_off_and_acls_carry_no_credentials() -> None:
    steps = iscsi.plan(spec(chap=None), Observed())
    assert SetTpgAttribute(IQN, "authentication", "0", None) in steps
    assert [s for s in steps if isinstance(s, SetAclChap)] == []


@pytest.mark.parametrize(
    ("key", "value"), [("emulate_3pc", 0), ("emulate_caw", 0), ("emulate_tpu", 0), ("emulate_tpws", 1)]
)
def test_one_vaai_attribute_that_differs_is_set_back(key: str, value: int) -> None:
    seen = converged(spec())
    assert seen.backstore is not None
    seen.backstore.attributes[key] = value
    assert iscsi.plan(spec(), seen) == [SetBackstoreAttribute(IQN, "tank_lun0", key, iscsi.VAAI[key], value)]


def test_tpws_is_decided_off() -> None:
    assert iscsi.VAAI["emulate_tpws"] == 0


def test_a_changed_secret_is_rewritten_with_the_old_one_kept_for_undo() -> None:
    seen = converged(spec())
    want = spec(chap={"user": "esxi", "secret": "another-secret-2"})
    assert iscsi.plan(want, seen) == [SetAclChap(IQN, ESXI, "esxi", "another-secret-2", "esxi", SECRET)]


def test_dropping_chap_clears_the_credentials_and_authentication() -> None:
    steps = iscsi.plan(spec(chap=None), converged(spec()))
    assert steps == [
        SetTpgAttribute(IQN, "authentication", "0", "1"),
        SetAclChap(IQN, ESXI, "", "", "esxi", SECRET),
    ]


def test_a_new_initiator_is_added_and_a_stale_one_removed_last() -> None:
    seen = converged(spec())
    steps = iscsi.plan(spec(initiators=[ESXI2]), seen)
    assert steps == [
        CreateAcl(IQN, ESXI2),
        SetAclChap(IQN, ESXI2, "esxi", SECRET, "", ""),
        CreateMappedLun(IQN, ESXI2, 0, 0),
        DeleteAcl(IQN, ESXI, "esxi", SECRET, ((0, 0),)),  # all it takes to make it again
    ]
    assert SECRET not in steps[-1].describe()


def test_a_half_made_target_gets_only_what_is_missing() -> None:
    seen = converged(spec())
    assert seen.tpg is not None
    seen.tpg.enabled = False
    seen.tpg.portals = set()
    seen.tpg.acls[ESXI].mapped = {}
    assert iscsi.plan(spec(), seen) == [
        CreatePortal(IQN, *iscsi.PORTAL),
        CreateMappedLun(IQN, ESXI, 0, 0),
        EnableTpg(IQN),
    ]


def test_a_target_without_its_tpg_gets_one() -> None:
    seen = Observed(backstore=ObservedBackstore("tank_lun0", DEV, dict(iscsi.VAAI)), target=True)
    steps = iscsi.plan(spec(), seen)
    assert steps[0] == CreateTpg(IQN, 1) and CreateTarget(IQN) not in steps


def test_an_unused_backstore_on_the_same_zvol_is_reused() -> None:
    seen = Observed(backstore=ObservedBackstore("tank_lun0", DEV, dict(iscsi.VAAI)))
    steps = iscsi.plan(spec(), seen)
    assert steps[0] == CreateTarget(IQN)


def test_a_backstore_on_another_device_is_never_repointed() -> None:
    seen = Observed(backstore=ObservedBackstore("tank_lun0", "/dev/zvol/tank/other", dict(iscsi.VAAI)))
    with pytest.raises(Conflict, match="tank/other"):
        iscsi.plan(spec(), seen)


def test_a_zvol_another_target_exports_is_refused() -> None:
    other = "iqn.2026-01.org.arcvsa:other"
    seen = Observed(backstore=ObservedBackstore("tank_lun0", DEV, dict(iscsi.VAAI), {other}))
    with pytest.raises(Conflict, match=other):
        iscsi.plan(spec(), seen)


def test_lun_0_on_another_backstore_is_refused() -> None:
    seen = converged(spec())
    assert seen.tpg is not None
    seen.tpg.luns[0] = "tank_other"
    with pytest.raises(Conflict, match="tank_other"):
        iscsi.plan(spec(), seen)


def test_an_acl_whose_lun_0_maps_elsewhere_is_refused() -> None:
    seen = converged(spec())
    assert seen.tpg is not None
    seen.tpg.acls[ESXI].mapped = {0: 3}
    with pytest.raises(Conflict, match="maps TPG LUN 3"):
        iscsi.plan(spec(), seen)


def test_no_step_shows_the_secret() -> None:
    steps = iscsi.plan(spec(), converged(spec(chap={"user": "esxi", "secret": "old-secret-0000"})))
    assert steps and all(SECRET not in s.describe() and "old-secret-0000" not in s.describe() for s in steps)
    assert SECRET not in repr(spec())


@pytest.mark.parametrize("length", [12, 64])
def test_chap_secret_length_edges_are_accepted(length: int) -> None:
    secret = ("Ab1_.+-" * 10)[:length]
    assert spec(chap={"user": "esxi", "secret": secret}).chap == iscsi.Chap(user="esxi", secret=secret)


@pytest.mark.parametrize("secret", ["x" * 11, "x" * 65, ""])
def test_chap_secret_length_beyond_the_edges_is_refused(secret: str) -> None:
    with pytest.raises(ValidationError, match="12-64") as caught:
        iscsi.Chap(user="esxi", secret=secret)
    assert caught.value.errors()[0]["loc"] == ("secret",)


@pytest.mark.parametrize("bad", [";", "$", "@", " ", "/", "'", '"', "\n", "="])
@pytest.mark.parametrize("where", [0, 6, 12])
def test_chap_secret_refuses_one_bad_character_anywhere(bad: str, where: int) -> None:
    secret = "abcdefghijkl"
    with pytest.raises(ValidationError):
        iscsi.Chap(user="esxi", secret=secret[:where] + bad + secret[where:])


def test_arcvsa_zvol_of_a_target() -> None:
    made = iscsi.TargetInfo(iqn=IQN, luns=[DEV], initiators=[ESXI], chap=True, vaai={})
    assert iscsi.arcvsa_zvol(made) == "tank/lun0"
    for luns in ([], [DEV, DEV], ["/dev/sdb"]):
        with pytest.raises(InvalidRequest, match="not made by arcvsa"):
            iscsi.arcvsa_zvol(made.model_copy(update={"luns": luns}))


# --- saveconfig.json: what rtslib saves and restores at boot (the backup reads it too) -------------


def _saveconfig() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(load("iscsi")["reads"][iscsi.SAVECONFIG])
    return data


def test_parse_saveconfig_reads_the_recorded_target() -> None:
    (target,) = iscsi.parse_saveconfig(json.dumps(_saveconfig()))
    assert target == iscsi.TargetInfo(
        iqn=IQN,
        luns=["/dev/zvol/tank/lun0"],
        initiators=[ESXI],
        chap=True,
        vaai={"emulate_3pc": 1, "emulate_caw": 1, "emulate_tpu": 1, "emulate_tpws": 0},
    )


def test_parse_saveconfig_without_authentication_or_offloads() -> None:
    data = _saveconfig()
    data["targets"][0]["tpgs"][0]["attributes"]["authentication"] = 0
    del data["storage_objects"][0]["attributes"]["emulate_tpu"]
    data["storage_objects"][0]["attributes"]["emulate_caw"] = 0
    (target,) = iscsi.parse_saveconfig(json.dumps(data))
    assert not target.chap
    assert target.vaai == {"emulate_3pc": 1, "emulate_caw": 0, "emulate_tpu": 0, "emulate_tpws": 0}


def test_parse_saveconfig_chap_on_any_tpg_counts() -> None:
    data = _saveconfig()
    tpg = data["targets"][0]["tpgs"][0]
    off = json.loads(json.dumps(tpg))
    off["attributes"]["authentication"] = 0
    off["luns"], off["node_acls"] = [], []
    data["targets"][0]["tpgs"] = [tpg, off]
    assert iscsi.parse_saveconfig(json.dumps(data))[0].chap
    data["targets"][0]["tpgs"] = [off, tpg]
    assert iscsi.parse_saveconfig(json.dumps(data))[0].chap


def test_parse_saveconfig_lun_without_a_known_backstore_shows_its_path() -> None:
    data = _saveconfig()
    data["storage_objects"] = []
    (target,) = iscsi.parse_saveconfig(json.dumps(data))
    assert target.luns == ["/backstores/block/tank_lun0"]
    assert target.vaai == {"emulate_3pc": 0, "emulate_caw": 0, "emulate_tpu": 0, "emulate_tpws": 0}
    del data["targets"][0]["tpgs"][0]["luns"][0]["storage_object"]
    assert iscsi.parse_saveconfig(json.dumps(data))[0].luns == [""]


def test_parse_saveconfig_of_an_empty_lio() -> None:
    assert iscsi.parse_saveconfig("{}") == []
    data = _saveconfig()
    data["targets"][0]["tpgs"] = []
    (target,) = iscsi.parse_saveconfig(json.dumps(data))
    assert target == iscsi.TargetInfo(iqn=IQN, luns=[], initiators=[], chap=False, vaai={})


def test_parse_saveconfig_refuses_what_is_not_json() -> None:
    with pytest.raises(BadOutput, match=r"saveconfig\.json"):
        iscsi.parse_saveconfig('{"targets": [')


# --- a target LIO held before arcvsa stored targets, as its desired state ----------------------------


@pytest.mark.parametrize(
    ("acls", "why"),
    [
        ({}, r"rules admit \(initiators\)$"),  # no ACL: nobody may log in, not a target arcvsa makes
        (
            {ESXI: ObservedAcl("esxi", "short", {0: 0})},
            r"its CHAP is not one arcvsa's rules admit \(chap.secret\)$",
        ),
        ({ESXI: ObservedAcl("esxi", SECRET, {0: 0}), ESXI2: ObservedAcl("", "", {0: 0})}, "different CHAP"),
        ({"iqn.1998-01.com.VMware:esxi": ObservedAcl()}, "not a valid iSCSI qualified name"),  # upper case
    ],
)
def test_a_target_arcvsa_s_rules_do_not_admit_is_not_adopted(acls: dict[str, ObservedAcl], why: str) -> None:
    seen = Observed(target=True, tpg=ObservedTpg(acls=acls))
    with pytest.raises(InvalidRequest, match=why) as caught:
        iscsi.as_spec(IQN, "tank/lun0", "tank_lun0", seen)
    assert SECRET not in str(caught.value) and "short" not in str(caught.value)


def test_a_target_without_chap_is_adopted_without_it() -> None:
    seen = Observed(target=True, tpg=ObservedTpg(acls={ESXI2: ObservedAcl(), ESXI: ObservedAcl()}))
    assert iscsi.as_spec(IQN, "tank/lun0", "tank_lun0", seen) == TargetSpec(
        iqn=IQN, zvol="tank/lun0", backstore="tank_lun0", initiators=[ESXI, ESXI2], chap=None
    )


# --- the LUN's identity, ACLs kept, and the targets LIO saved ----------------------------------------

WWN = "9816a30f-9aaf-4754-b99d-530e502792db"  # the recording's tank_lun0


def test_a_backstore_is_made_with_the_serial_the_lun_had() -> None:
    steps = iscsi.plan(spec().model_copy(update={"wwn": WWN}), Observed())
    assert steps[0] == CreateBackstore(IQN, "tank_lun0", DEV, WWN)


def test_a_backstore_of_the_name_with_another_serial_is_a_conflict_before_any_step() -> None:
    seen = converged(spec())
    assert seen.backstore is not None
    seen.backstore.wwn = "00000000-0000-4000-8000-000000000000"
    with pytest.raises(
        Conflict,
        match=f"backstore tank_lun0 has unit serial 00000000-0000-4000-8000-000000000000, not the LUN's {WWN}",
    ):
        iscsi.plan(spec().model_copy(update={"wwn": WWN}), seen)
    assert iscsi.plan(spec(), seen) == []  # no serial stored yet: the one LIO has is kept


def test_acls_of_hosts_a_target_does_not_list_can_be_kept() -> None:
    seen = converged(spec())
    want = spec(initiators=[ESXI2])
    assert DeleteAcl in [type(s) for s in iscsi.plan(want, seen)]
    kept = iscsi.plan(want, seen, drop_stale=False)
    assert DeleteAcl not in [type(s) for s in kept] and CreateAcl(IQN, ESXI2) in kept


@pytest.mark.parametrize(
    "wwn",
    ["", "ABCDEF01", "g0", "-0", "0" * 37, *[f"{c}0" for c in "'$./;@ "], *[f"0{c}" for c in "'$./;@ "]],
)
def test_a_serial_that_is_not_lios_is_refused(wwn: str) -> None:
    with pytest.raises(ValidationError) as caught:
        TargetSpec.model_validate({**spec().model_dump(), "wwn": wwn})
    assert caught.value.errors()[0]["loc"] == ("wwn",)


@pytest.mark.parametrize("wwn", ["0", "0" * 36, WWN])
def test_serials_lio_gives_are_taken(wwn: str) -> None:
    assert TargetSpec.model_validate({**spec().model_dump(), "wwn": wwn}).wwn == wwn


SAVED = load("iscsi")["reads"][iscsi.SAVECONFIG]


def test_the_saved_target_is_its_desired_state() -> None:
    specs, others = iscsi.saved_specs(SAVED)
    assert others == {}
    assert specs == [
        TargetSpec(
            iqn=IQN,
            zvol="tank/lun0",
            backstore="tank_lun0",
            initiators=[ESXI],
            chap=iscsi.Chap(user="esxi", secret=SECRET),
            wwn=WWN,
        )
    ]


def _changed(change: Any) -> str:
    data = json.loads(SAVED)
    change(data)
    return json.dumps(data)


def _tpg(data: dict[str, Any]) -> dict[str, Any]:
    tpg: dict[str, Any] = data["targets"][0]["tpgs"][0]
    return tpg


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda d: d["storage_objects"][0].update(name="lun0_by_hand"), "not made by arcvsa"),
        (lambda d: d["storage_objects"][0].update(dev="/dev/sdb"), "not made by arcvsa"),
        (lambda d: _tpg(d)["luns"].append(dict(_tpg(d)["luns"][0], index=1)), "not made by arcvsa"),
        (lambda d: _tpg(d).update(luns=[]), "not made by arcvsa"),
        (lambda d: d["targets"][0]["tpgs"].append(_tpg(d)), "not made by arcvsa"),
        (lambda d: _tpg(d)["node_acls"][0].update(chap_password="short"), r"\(chap.secret\)"),
        (lambda d: _tpg(d).update(node_acls=[]), r"\(initiators\)"),
        (lambda d: _tpg(d).pop("node_acls"), "not LIO's layout"),
    ],
)
def test_a_saved_target_arcvsa_did_not_make_is_named_with_why(change: Any, why: str) -> None:
    specs, others = iscsi.saved_specs(_changed(change))
    assert specs == [] and list(others) == [IQN]
    assert re.search(why, others[IQN]) and SECRET not in others[IQN] and "short" not in others[IQN]


def test_a_saved_target_without_chap_is_adopted_without_it() -> None:
    def no_chap(d: dict[str, Any]) -> None:
        for key in ("chap_userid", "chap_password"):
            _tpg(d)["node_acls"][0].pop(key)

    [found], _ = iscsi.saved_specs(_changed(no_chap))
    assert found.chap is None and found.initiators == [ESXI]


def test_a_saved_target_without_a_serial_is_adopted_without_one() -> None:
    [found], _ = iscsi.saved_specs(_changed(lambda d: d["storage_objects"][0].pop("wwn")))
    assert found.wwn is None


def test_targets_of_other_fabrics_are_not_iscsi_s() -> None:
    assert iscsi.saved_specs(_changed(lambda d: d["targets"][0].update(fabric="qla2xxx"))) == ([], {})


@pytest.mark.parametrize("text", ["", "{", "[]", '{"targets": 3}', '{"storage_objects": [{"name": "x"}]}'])
def test_a_file_that_is_not_lios_is_bad_output(text: str) -> None:
    with pytest.raises(BadOutput, match=r"saveconfig\.json"):
        iscsi.saved_specs(text)


def test_backstore_names() -> None:
    assert iscsi.backstore_name("tank/lun0") == "tank_lun0"
    assert iscsi.backstore_name("tank/vdi/lun.0") == "tank_vdi_lun_0"
    long = "tank/" + "a" * 60
    assert (
        iscsi.backstore_name(long) == "tank_" + "a" * 34 + "_" + hashlib.sha256(long.encode()).hexdigest()[:8]
    )
    assert iscsi.backstore_name("tank/" + "a" * 43) == "tank_" + "a" * 43  # 48: the longest kept as it is
    just_over = "tank/" + "a" * 44
    assert iscsi.backstore_name(just_over).endswith("_" + hashlib.sha256(just_over.encode()).hexdigest()[:8])
