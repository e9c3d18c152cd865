"""appliance.control.sshd: SSH is on exactly while Debian's switch file is absent, and a switch writes or
removes that file before it starts or stops sshd (never enable or disable: no daemon-reload)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from appliance.control import sshd
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway, Result
from appliance.firstboot import accounts

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


class Reloads:
    """Takes try-reload-or-restart of ssh.service alone, noting whether root's drop-in was there then."""

    def __init__(self, files: LocalFiles) -> None:
        self.files = files
        self.calls: list[bool] = []

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        assert tuple(argv) == ("systemctl", "try-reload-or-restart", "ssh.service"), argv
        self.calls.append(self.files.read(sshd.ROOT_FILE) is not None)
        return Result(tuple(argv), 0, "", "")


KEYS = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJgZyOYvlx1TrA8RKgeMwHlayUyBxJPtvZEiJcZmWzGS admin\n"


def test_roots_login_on_writes_its_drop_in_and_the_admin_keys_then_reloads(
    files: LocalFiles, tmp_path: Path
) -> None:
    files.write(sshd.ADMIN_KEYS, KEYS, mode=0o600)
    reloads = Reloads(files)
    assert not sshd.root_login(files)
    assert sshd.switch_root(Gateway(reloads), files, True)
    assert reloads.calls == [True], "sshd reloads once, with the drop-in in place"
    assert sshd.root_login(files) and files.read(sshd.ROOT_FILE) == sshd.ROOT_TEXT
    assert files.read(sshd.ROOT_KEYS) == KEYS
    assert (tmp_path / sshd.ROOT_KEYS.lstrip("/")).stat().st_mode & 0o777 == 0o600
    # sshd keeps the first PermitRootLogin it reads: the drop-in sorts before the image's own
    assert Path(sshd.ROOT_FILE).name < "50-arcvsa.conf"
    assert Path(sshd.ROOT_FILE).parent == Path("/etc/ssh/sshd_config.d")


def test_roots_keys_follow_the_admin_accounts_without_a_reload(files: LocalFiles) -> None:
    files.write(sshd.ADMIN_KEYS, KEYS, mode=0o600)
    reloads = Reloads(files)
    sshd.switch_root(Gateway(reloads), files, True)
    assert not sshd.switch_root(Gateway(reloads), files, True), "converged: nothing to do"
    files.write(sshd.ADMIN_KEYS, KEYS + KEYS.replace(" admin", " other"), mode=0o600)
    assert sshd.switch_root(Gateway(reloads), files, True)
    assert files.read(sshd.ROOT_KEYS) == files.read(sshd.ADMIN_KEYS) and reloads.calls == [True]


def test_with_no_admin_keys_root_gets_an_empty_list(files: LocalFiles) -> None:
    assert sshd.switch_root(Gateway(Reloads(files)), files, True)
    assert files.read(sshd.ROOT_KEYS) == ""


def test_the_key_files_are_those_first_boot_writes_for_the_image_accounts() -> None:
    passwd = (Path(__file__).resolve().parents[1] / "fixtures/ovf/firstboot/passwd").read_text()
    assert str(accounts.passwd_account(passwd, accounts.ADMIN_ACCOUNT).authorized_keys) == sshd.ADMIN_KEYS
    assert str(accounts.passwd_account(passwd, "root").authorized_keys) == sshd.ROOT_KEYS


def test_roots_login_off_removes_both_then_reloads(files: LocalFiles) -> None:
    files.write(sshd.ADMIN_KEYS, KEYS, mode=0o600)
    reloads = Reloads(files)
    sshd.switch_root(Gateway(reloads), files, True)
    assert sshd.switch_root(Gateway(reloads), files, False)
    assert reloads.calls == [True, False]
    assert files.read(sshd.ROOT_FILE) is None and files.read(sshd.ROOT_KEYS) is None
    assert files.read(sshd.ADMIN_KEYS) == KEYS
    assert not sshd.switch_root(Gateway(reloads), files, False) and reloads.calls == [True, False]


def test_the_image_keeps_root_out_and_the_seal_removes_the_builds_root_login() -> None:
    overlay = Path(__file__).resolve().parents[2] / "appliance/image/overlay/etc/ssh/sshd_config.d"
    settings = [line.split() for line in (overlay / "50-arcvsa.conf").read_text().splitlines()]
    assert ["PermitRootLogin", "no"] in settings
    assert not (overlay / Path(sshd.ROOT_FILE).name).exists()
    script = SEAL.read_text(encoding="utf-8")
    assert f"rm -f {sshd.ROOT_FILE}\n" in script and "rm -f /root/.ssh/authorized_keys\n" in script
    disk = (Path(__file__).resolve().parents[2] / "appliance/image/disk.sh").read_text(encoding="utf-8")
    assert f"write $out.root-login {sshd.ROOT_FILE}\n" in disk
