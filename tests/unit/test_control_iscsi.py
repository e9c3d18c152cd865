"""iSCSI with LIO on targetcli output recorded in the lab VM: zvol LUN, ACLs, CHAP, VAAI, delete."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.appliance.replay import replay
from pydantic import ValidationError

from appliance.control import iscsi
from appliance.control.errors import AlreadyExists, InvalidName, NotFound

IQN = "iqn.2026-01.org.arcvsa:tank-lun0"
ESXI = "iqn.1998-01.com.vmware:esxi-01"


def spec(**overrides: object) -> iscsi.TargetSpec:
    base: dict[str, object] = {
        "iqn": IQN,
        "zvol": "tank/lun0",
        "backstore": "tank_lun0",
        "initiators": [ESXI],
        "chap": {"user": "esxi", "secret": "lab-only-secret-1"},
    }
    return iscsi.TargetSpec.model_validate(base | overrides)


def test_target_with_acl_chap_and_vaai(tmp_path: Path) -> None:
    gw, files, runner = replay("iscsi", tmp_path)
    iscsi.create(gw, spec())
    assert ["targetcli", "/backstores/block/tank_lun0", "set", "attribute", *iscsi.VAAI] in runner.calls
    (target,) = iscsi.targets(files)
    assert target.iqn == IQN and target.initiators == [ESXI]
    assert target.luns == ["/dev/zvol/tank/lun0"]
    assert target.chap and target.vaai == {"emulate_3pc": 1, "emulate_caw": 1, "emulate_tpu": 1}


def test_duplicates_and_missing_targets_are_typed(tmp_path: Path) -> None:
    gw, _, _ = replay("iscsi", tmp_path)
    iscsi.create(gw, spec())
    with pytest.raises(AlreadyExists):
        iscsi.create(gw, spec())
    iscsi.delete(gw, IQN, "tank_lun0")
    with pytest.raises(NotFound):
        iscsi.delete(gw, IQN, "tank_lun0")


def test_secret_is_hidden_from_repr() -> None:
    assert "lab-only-secret-1" not in repr(spec())


@pytest.mark.parametrize(
    "bad",
    [
        {"iqn": "iqn.2026-01.org.arcvsa:x y"},
        {"initiators": ["esxi-01"]},
        {"zvol": "tank"},
        {"backstore": "a/b"},
        {"chap": {"user": "esxi", "secret": "short"}},
        {"chap": {"user": "esxi", "secret": "has spaces in it"}},
        {"initiators": []},
    ],
)
def test_bad_specs_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises((InvalidName, ValidationError)):
        spec(**bad)
