"""appliance.control.sshd: SSH is on exactly while Debian's switch file is absent, and a switch writes or
removes that file before it starts or stops sshd (never enable or disable: no daemon-reload)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from appliance.control import sshd
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway, Result

START = ("systemctl", "start", "ssh.service")
STOP = ("systemctl", "stop", "ssh.service")
SEAL = Path(__file__).resolve().parents[2] / "packer" / "scripts" / "90-seal.sh"


class Systemctl:
    """Takes start and stop of ssh.service, noting whether the switch file was there at that moment."""

    def __init__(self, files: LocalFiles) -> None:
        self.files = files
        self.calls: list[tuple[tuple[str, ...], bool]] = []

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        key = tuple(argv)
        assert key in (START, STOP), key
        self.calls.append((key, self.files.read(sshd.OFF_FILE) is not None))
        return Result(key, 0, "", "")


@pytest.fixture
def files(tmp_path: Path) -> LocalFiles:
    return LocalFiles(tmp_path)


def test_on_is_the_switch_file_absent(files: LocalFiles) -> None:
    assert sshd.enabled(files)
    files.write(sshd.OFF_FILE, "")  # its content is nobody's business: being there is what counts
    assert not sshd.enabled(files)


def test_turning_on_removes_the_file_before_starting(files: LocalFiles) -> None:
    files.write(sshd.OFF_FILE, sshd.OFF_TEXT)
    systemctl = Systemctl(files)
    assert sshd.switch(Gateway(systemctl), files, True)
    assert systemctl.calls == [(START, False)] and sshd.enabled(files)


def test_turning_off_writes_the_file_before_stopping(files: LocalFiles) -> None:
    systemctl = Systemctl(files)
    assert sshd.switch(Gateway(systemctl), files, False)
    assert systemctl.calls == [(STOP, True)] and files.read(sshd.OFF_FILE) == sshd.OFF_TEXT


@pytest.mark.parametrize("on", [True, False])
def test_no_change_runs_nothing(files: LocalFiles, on: bool) -> None:
    if not on:
        files.write(sshd.OFF_FILE, sshd.OFF_TEXT)
    systemctl = Systemctl(files)
    assert not sshd.switch(Gateway(systemctl), files, on)
    assert systemctl.calls == [] and sshd.enabled(files) is on


def test_the_seal_writes_the_same_file_with_the_same_words() -> None:
    script = SEAL.read_text(encoding="utf-8")
    assert f"cat >{sshd.OFF_FILE} <<'EOF'\n{sshd.OFF_TEXT}EOF\n" in script
