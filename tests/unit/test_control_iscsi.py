"""iSCSI with LIO on targetcli output recorded in the lab VM: zvol LUN, ACLs, CHAP, VAAI, delete."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance.replay import ReplayRunner, UnrecordedCommand, load, replay
from pydantic import ValidationError

from appliance.control import iscsi
from appliance.control.errors import AlreadyExists, BadOutput, CommandFailed, InvalidName, NotFound
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway, Result, translate

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


class TimedReplay(ReplayRunner):
    """The recorded answers, also noting the timeout each command was given."""

    def __init__(self) -> None:
        super().__init__(load("iscsi"))
        self.timeouts: list[float] = []

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        self.timeouts.append(timeout)
        return super().execute(argv, timeout=timeout, input_text=input_text)


TPG = f"/iscsi/{IQN}/tpg1"
CREATED = [
    ["targetcli", "/backstores/block", "create", "name=tank_lun0", "dev=/dev/zvol/tank/lun0"],
    [
        "targetcli",
        "/backstores/block/tank_lun0",
        "set",
        "attribute",
        "emulate_3pc=1",
        "emulate_caw=1",
        "emulate_tpu=1",
    ],
    ["targetcli", "/iscsi", "create", IQN],
    ["targetcli", f"{TPG}/luns", "create", "/backstores/block/tank_lun0"],
    [
        "targetcli",
        TPG,
        "set",
        "attribute",
        "authentication=1",
        "generate_node_acls=0",
        "demo_mode_write_protect=1",
    ],
    ["targetcli", f"{TPG}/acls", "create", ESXI],
    ["targetcli", f"{TPG}/acls/{ESXI}", "set", "auth", "userid=esxi", "password=lab-only-secret-1"],
    ["targetcli", "saveconfig"],
]


def test_create_runs_exactly_these_targetcli_commands_and_saves() -> None:
    runner = TimedReplay()
    iscsi.create(Gateway(runner), spec())
    assert runner.calls == CREATED
    assert runner.timeouts == [60] * len(CREATED)


@pytest.mark.xfail(
    strict=True,
    reason="known gap: the CHAP secret is passed on targetcli's argv (see iscsi.py's docstring); "
    "docs/operations.md promises it never reaches a command line",
)
def test_the_chap_secret_never_reaches_a_command_line() -> None:
    runner = TimedReplay()
    iscsi.create(Gateway(runner), spec())
    assert not [argv for argv in runner.calls if any("lab-only-secret-1" in word for word in argv)]


def test_delete_removes_target_then_backstore_then_saves() -> None:
    runner = TimedReplay()
    gw = Gateway(runner)
    iscsi.create(gw, spec())
    del runner.calls[:]
    iscsi.delete(gw, IQN, "tank_lun0")
    assert runner.calls == [
        ["targetcli", "/iscsi", "delete", IQN],
        ["targetcli", "/backstores/block", "delete", "tank_lun0"],
        ["targetcli", "saveconfig"],
    ]


@pytest.mark.parametrize(
    ("iqn", "backstore", "ran"),
    [
        ("iqn.2026-01.org.arcvsa:x;y", "tank_lun0", []),
        (IQN, "a;b", [["targetcli", "/iscsi", "delete", IQN]]),
    ],
)
def test_delete_checks_each_name_before_it_reaches_targetcli(
    iqn: str, backstore: str, ran: list[list[str]]
) -> None:
    runner = TimedReplay()
    with pytest.raises(InvalidName):
        iscsi.delete(Gateway(runner), iqn, backstore)
    assert runner.calls == ran


def test_without_chap_authentication_is_off_and_no_secret_is_set() -> None:
    # The recording has CHAP on, so the first command that differs is the one the replay refuses.
    runner = TimedReplay()
    with pytest.raises(UnrecordedCommand):
        iscsi.create(Gateway(runner), spec(chap=None))
    assert runner.calls[:4] == CREATED[:4]
    assert runner.calls[4] == [
        "targetcli",
        TPG,
        "set",
        "attribute",
        "authentication=0",
        "generate_node_acls=0",
        "demo_mode_write_protect=1",
    ]


def test_a_failing_chap_command_never_shows_the_secret() -> None:
    # The auth command answered with the recorded refusal of a second create: the error, which reaches
    # the log and the api, carries the argv with the secret masked.
    recording = load("iscsi")
    refusal = next(c for c in recording["commands"] if c["exit_code"] == 1 and "create" in c["argv"])
    auth = next(c for c in recording["commands"] if "auth" in c["argv"])
    auth.update(exit_code=refusal["exit_code"], stderr="")
    with pytest.raises(CommandFailed) as caught:
        iscsi.create(Gateway(ReplayRunner(recording)), spec())
    assert caught.value.argv[-1] == "password=***"
    assert "lab-only-secret-1" not in repr(caught.value.argv) + str(caught.value)


@pytest.mark.parametrize(
    ("stderr", "error"),
    [
        ("Storage object block/tank_lun0 exists", AlreadyExists),
        ("This NodeACL already exists in configfs", AlreadyExists),
        ("Target already in use", AlreadyExists),
        ("LUN exists already", AlreadyExists),
        ("No such Target in configfs: /sys/kernel/config/target/iscsi/x", NotFound),
        ("Storage object does not exist", NotFound),
        ("No storage object named tank_lun0", NotFound),
        ("Path not found", NotFound),
    ],
)
def test_targetcli_refusals_are_typed(stderr: str, error: type[Exception]) -> None:
    said = Result(("targetcli",), 1, "", stderr + "\n")
    assert type(translate(said, iscsi.RULES)) is error


def test_other_targetcli_failures_stay_command_failed() -> None:
    said = Result(("targetcli",), 1, "", "Storage object  exists\n")
    assert type(translate(said, iscsi.RULES)) is CommandFailed


@pytest.mark.parametrize("length", [12, 64])
def test_chap_secret_length_edges_are_accepted(length: int) -> None:
    secret = ("Ab1_.+-" * 10)[:length]
    assert spec(chap={"user": "esxi", "secret": secret}).chap == iscsi.Chap(user="esxi", secret=secret)


@pytest.mark.parametrize("secret", ["x" * 11, "x" * 65, ""])
def test_chap_secret_length_beyond_the_edges_is_refused(secret: str) -> None:
    with pytest.raises(InvalidName, match="12-64"):
        iscsi.Chap(user="esxi", secret=secret)


@pytest.mark.parametrize("bad", [";", "$", "@", " ", "/", "'", '"', "\n", "="])
@pytest.mark.parametrize("where", [0, 6, 12])
def test_chap_secret_refuses_one_bad_character_anywhere(bad: str, where: int) -> None:
    secret = "abcdefghijkl"
    with pytest.raises(InvalidName):
        iscsi.Chap(user="esxi", secret=secret[:where] + bad + secret[where:])


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
        vaai={"emulate_3pc": 1, "emulate_caw": 1, "emulate_tpu": 1},
    )


def test_parse_saveconfig_without_authentication_or_offloads() -> None:
    data = _saveconfig()
    data["targets"][0]["tpgs"][0]["attributes"]["authentication"] = 0
    del data["storage_objects"][0]["attributes"]["emulate_tpu"]
    data["storage_objects"][0]["attributes"]["emulate_caw"] = 0
    (target,) = iscsi.parse_saveconfig(json.dumps(data))
    assert not target.chap
    assert target.vaai == {"emulate_3pc": 1, "emulate_caw": 0, "emulate_tpu": 0}


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
    assert target.vaai == {"emulate_3pc": 0, "emulate_caw": 0, "emulate_tpu": 0}
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


def test_targets_of_a_never_configured_lio_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFound, match=r"/etc/rtslib-fb-target/saveconfig\.json"):
        iscsi.targets(LocalFiles(tmp_path))
