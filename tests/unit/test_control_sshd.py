"""appliance.control.sshd on systemctl's answers: the state words systemd 257 prints (its exit code with
each), and systemctl failing with no state at all, which must never read as "SSH off"."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from appliance.control import sshd
from appliance.control.errors import BadOutput, CommandFailed
from appliance.control.gateway import Gateway, Result

IS_ENABLED = ("systemctl", "is-enabled", "ssh.service")
NO_BUS = "Failed to get unit file state for ssh.service: Connection timed out\n"


class Systemctl:
    """Answers is-enabled with the given exit code and words; records enable and disable."""

    def __init__(self, exit_code: int, stdout: str, stderr: str = "") -> None:
        self.answer = (exit_code, stdout, stderr)
        self.calls: list[tuple[str, ...]] = []

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        key = tuple(argv)
        self.calls.append(key)
        if key == IS_ENABLED:
            return Result(key, *self.answer)
        assert key[:2] in (("systemctl", "enable"), ("systemctl", "disable")), key
        return Result(key, 0, "", "")


@pytest.mark.parametrize(
    ("exit_code", "stdout", "on"),
    [
        (0, "enabled\n", True),
        (0, "enabled-runtime\n", True),
        (1, "disabled\n", False),
        (1, "masked\n", False),
        (1, "masked-runtime\n", False),
    ],
)
def test_the_state_systemctl_prints_decides(exit_code: int, stdout: str, on: bool) -> None:
    assert sshd.enabled(Gateway(Systemctl(exit_code, stdout))) is on


def test_systemctl_failing_is_an_error_not_off() -> None:
    with pytest.raises(CommandFailed) as caught:
        sshd.enabled(Gateway(Systemctl(1, "", NO_BUS)))
    assert "Connection timed out" in str(caught.value)


@pytest.mark.parametrize("stdout", ["static\n", "", "enabled disabled\n"])
def test_a_state_it_does_not_know_is_bad_output(stdout: str) -> None:
    with pytest.raises(BadOutput):
        sshd.enabled(Gateway(Systemctl(0, stdout)))


@pytest.mark.parametrize(
    ("exit_code", "stdout", "on", "sent"),
    [
        (0, "enabled\n", True, None),
        (1, "disabled\n", False, None),
        (1, "disabled\n", True, ("systemctl", "enable", "--now", "ssh.service")),
        (0, "enabled\n", False, ("systemctl", "disable", "--now", "ssh.service")),
    ],
)
def test_switch_changes_only_what_differs(
    exit_code: int, stdout: str, on: bool, sent: tuple[str, ...] | None
) -> None:
    systemctl = Systemctl(exit_code, stdout)
    assert sshd.switch(Gateway(systemctl), on) is (sent is not None)
    assert systemctl.calls == [IS_ENABLED] + ([sent] if sent else [])


def test_switch_does_nothing_when_the_state_is_unknown() -> None:
    systemctl = Systemctl(1, "", NO_BUS)
    with pytest.raises(CommandFailed):
        sshd.switch(Gateway(systemctl), False)
    assert systemctl.calls == [IS_ENABLED]
