"""appliance.control.firewall's steps and their order, on nft's and systemd's answers as the lab VM gave
them (recordings/firewall.json): a rule set nft refuses is never loaded or written, the boot file is
written only after the kernel took the rules, and a trial's rollback is armed before its rules go live.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from pathlib import Path

import pytest
from fixtures.appliance.replay import load
from support.systemd_standin import SystemdStandIn

from appliance.control import firewall
from appliance.control.errors import CommandFailed
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway, Result

RULES = firewall.Rules(management=[ipaddress.ip_network("10.0.2.0/24")], ssh=True)
OTHER = firewall.Rules(management=[ipaddress.ip_network("10.0.3.0/24")], ssh=False)
RECORDED = {tuple(c["argv"]): c for c in load("firewall")["commands"]}
LOAD = ("nft", "-f", "/dev/stdin")
CHECK = ("nft", "-c", "-f", "/dev/stdin")
LISTED = ("nft", "list", "table", "inet", "arcvsa")


class Nft:
    """nft as recorded; ``refuse`` answers a check or a load as nft answers a script it rejects."""

    def __init__(self, systemd: SystemdStandIn, refuse: set[tuple[str, ...]] | None = None) -> None:
        self.systemd = systemd
        self.refuse = refuse or set()
        self.calls: list[tuple[str, ...]] = []
        self.loaded: list[str] = []  # the scripts the kernel took, in order
        self.table = False

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        key = tuple(argv)
        self.calls.append(key)
        if key[0] != "nft":
            return self.systemd.execute(argv, timeout=timeout, input_text=input_text)
        if key in self.refuse:
            said = "/dev/stdin:12:53-57: Error: syntax error, unexpected string\n"
            return Result(key, 1, "", said)
        if key == LISTED:
            entry = RECORDED[key]
            return Result(
                key,
                0 if self.table else 1,
                entry["stdout"] if self.table else "",
                "" if self.table else "Error: No such file or directory\n",
            )
        entry = RECORDED[key]
        if key == LOAD:
            assert input_text is not None
            self.loaded.append(input_text)
            self.table = True
        return Result(key, entry["exit_code"], entry["stdout"], entry["stderr"])


@pytest.fixture
def files(tmp_path: Path) -> LocalFiles:
    return LocalFiles(tmp_path)


def parts(
    files: LocalFiles, refuse: set[tuple[str, ...]] | None = None
) -> tuple[Gateway, Nft, SystemdStandIn]:
    systemd = SystemdStandIn(files)
    nft = Nft(systemd, refuse)
    systemd.runner = nft
    return Gateway(nft), nft, systemd


def test_the_first_apply_checks_loads_then_writes_the_boot_file(files: LocalFiles) -> None:
    gw, nft, _ = parts(files)
    assert firewall.apply(gw, files, RULES)
    assert nft.calls == [CHECK, LOAD]  # no boot file yet: nothing to compare the kernel with
    assert nft.loaded == [firewall.render(RULES)]
    assert files.read(firewall.RULES_FILE) == firewall.render(RULES)


def test_an_unchanged_rule_set_in_the_kernel_is_left_alone(files: LocalFiles) -> None:
    gw, nft, _ = parts(files)
    firewall.apply(gw, files, RULES)
    nft.calls.clear()
    assert not firewall.apply(gw, files, RULES)
    assert nft.calls == [LISTED]


def test_a_table_gone_from_the_kernel_is_loaded_again(files: LocalFiles) -> None:
    gw, nft, _ = parts(files)
    firewall.apply(gw, files, RULES)
    nft.table = False  # nft flush ruleset, by hand
    nft.calls.clear()
    assert firewall.apply(gw, files, RULES)
    assert nft.calls == [LISTED, CHECK, LOAD]


def test_a_changed_rule_set_replaces_the_file(files: LocalFiles) -> None:
    gw, nft, _ = parts(files)
    firewall.apply(gw, files, RULES)
    assert firewall.apply(gw, files, OTHER)
    assert files.read(firewall.RULES_FILE) == firewall.render(OTHER)
    assert nft.loaded == [firewall.render(RULES), firewall.render(OTHER)]


@pytest.mark.parametrize("refused", [CHECK, LOAD])
def test_a_refused_rule_set_changes_neither_kernel_nor_file(
    files: LocalFiles, refused: tuple[str, ...]
) -> None:
    gw, nft, _ = parts(files)
    firewall.apply(gw, files, RULES)
    nft.refuse = {refused}
    with pytest.raises(CommandFailed, match="nft failed"):
        firewall.apply(gw, files, OTHER)
    assert files.read(firewall.RULES_FILE) == firewall.render(RULES)
    assert nft.loaded == [firewall.render(RULES)]


def test_a_trial_arms_its_rollback_before_its_rules_go_live(files: LocalFiles) -> None:
    gw, nft, systemd = parts(files)
    firewall.apply(gw, files, RULES)
    nft.calls.clear()
    firewall.try_out(gw, OTHER, 90)
    run = [c for c in nft.calls if c[0] == "systemd-run"]
    assert len(run) == 1 and "--on-active=90s" in run[0]
    assert nft.calls.index(run[0]) < nft.calls.index(LOAD)
    assert nft.calls.index(CHECK) < nft.calls.index(run[0])  # a rule set nft refuses arms nothing
    assert nft.loaded[-1] == firewall.render(OTHER)
    assert files.read(firewall.RULES_FILE) == firewall.render(RULES)  # the boot file stays
    systemd.fire()
    assert nft.loaded[-1] == firewall.render(RULES)


def test_a_trial_that_fails_to_load_leaves_no_rollback_armed(files: LocalFiles) -> None:
    gw, _, systemd = parts(files, refuse={LOAD})
    with pytest.raises(CommandFailed):
        firewall.try_out(gw, OTHER, 90)
    assert systemd.armed is None


def test_a_trial_nft_refuses_arms_nothing(files: LocalFiles) -> None:
    gw, nft, systemd = parts(files, refuse={CHECK})
    with pytest.raises(CommandFailed):
        firewall.try_out(gw, OTHER, 90)
    assert systemd.armed is None and not any(c[0] == "systemd-run" for c in nft.calls)


def test_keep_disarms_then_writes_what_is_live(files: LocalFiles) -> None:
    gw, nft, systemd = parts(files)
    firewall.apply(gw, files, RULES)
    firewall.try_out(gw, OTHER, 90)
    firewall.keep(gw, files, OTHER)
    assert systemd.armed is None
    assert files.read(firewall.RULES_FILE) == firewall.render(OTHER)
    systemd.fire()
    assert nft.loaded[-1] == firewall.render(OTHER)


def test_roll_back_loads_the_boot_file_and_disarms(files: LocalFiles) -> None:
    gw, nft, systemd = parts(files)
    firewall.apply(gw, files, RULES)
    firewall.try_out(gw, OTHER, 90)
    firewall.roll_back(gw, files)
    assert systemd.armed is None and nft.loaded[-1] == firewall.render(RULES)


def test_disarm_with_nothing_armed_is_quiet(files: LocalFiles) -> None:
    gw, _, systemd = parts(files)
    firewall.disarm(gw)
    assert systemd.calls[0][:2] == ["systemctl", "stop"]


def test_the_rollback_is_the_command_systemd_ran_in_the_lab(files: LocalFiles) -> None:
    # The transient timer's argv as the lab VM's systemd-run took it (there with 600 s): the unit
    # name disarm stops, and the boot file the timer's nft loads.
    recorded = next(argv for argv in RECORDED if argv[0] == "systemd-run")
    gw, nft, _ = parts(files)
    firewall.try_out(gw, OTHER, 600)
    assert next(c for c in nft.calls if c[0] == "systemd-run") == recorded


def test_a_second_trial_replaces_the_first_armed_rollback(files: LocalFiles) -> None:
    # systemd refuses a transient unit whose name is loaded: the earlier timer is stopped first.
    gw, nft, systemd = parts(files)
    firewall.apply(gw, files, RULES)
    firewall.try_out(gw, OTHER, 90)
    firewall.try_out(gw, OTHER, 90)
    assert systemd.armed is not None and nft.loaded[-1] == firewall.render(OTHER)


def test_keep_loads_the_rules_again_when_the_rollback_fired_first(files: LocalFiles) -> None:
    # The confirmation raced the timer and lost: what is kept is what is live afterwards.
    gw, nft, systemd = parts(files)
    firewall.apply(gw, files, RULES)
    firewall.try_out(gw, OTHER, 90)
    systemd.fire()
    firewall.keep(gw, files, OTHER)
    assert nft.loaded[-1] == firewall.render(OTHER) == files.read(firewall.RULES_FILE)
