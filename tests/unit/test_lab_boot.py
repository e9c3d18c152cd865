"""The lab tests' boot (tests/support/lab_boot.py): a boot that panics or hangs before the api answers is
booted once more from a fresh disk, its console kept; any other failure, or a second one, fails. A
panic in early boot (before ZFS loaded: the emulator's) gets two more boots on top.

A stand-in takes qemu's place (the real one needs the image); its console is a real panic of this lab
(tests/unit/test_lab_console.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import lab_boot
from test_lab_console import PANICKED

from lab import console
from lab.appliance_vm import VmConfig
from lab.san import Lun


class _Qemu:
    def __init__(self) -> None:
        self.running = True

    def alive(self) -> bool:
        return self.running


def _vm_class(consoles: list[bytes], made: list[Any]) -> type:
    """An ApplianceVm stand-in whose boot writes ``consoles``' next text and stays up until killed;
    every one made is appended to ``made``."""

    class _Vm:
        def __init__(self, config: VmConfig) -> None:
            self.console = config.directory / "console.log"
            self.daemon: _Qemu | None = None
            self.started_at = 0.0
            self.killed = False
            made.append(self)

        def start(self) -> _Vm:
            self.console.write_bytes(consoles.pop(0))
            self.daemon = _Qemu()
            return self

        def kill(self) -> None:
            self.killed = True
            assert self.daemon is not None
            self.daemon.running = False

    return _Vm


def _config(tmp_path: Path) -> VmConfig:
    lun = Lun("lun0", tmp_path / "lun0", 1 << 20)
    return VmConfig(tmp_path / "image.qcow2", tmp_path, tmp_path / "san.sock", [lun], tmp_path / "key")


def test_a_panicked_boot_is_killed_and_its_console_kept(tmp_path: Path, monkeypatch: Any) -> None:
    made: list[Any] = []
    monkeypatch.setattr(lab_boot, "ApplianceVm", _vm_class([PANICKED], made))
    with pytest.raises(console.GuestPanicked, match="double fault"):
        lab_boot._boot_once(_config(tmp_path), {}, "console-failed-1.log")
    assert len(made) == 1 and made[0].killed
    assert (tmp_path / "console-failed-1.log").read_bytes() == PANICKED
    assert not (tmp_path / "console.log").exists()  # the next boot's console starts empty


def _boots(monkeypatch: Any, outcomes: list[BaseException | str | tuple[BaseException, bytes]]) -> list[str]:
    """lab_boot.boot with each try's outcome given: an error raised (with the console it leaves as the
    failed one, when given), or a booted appliance."""
    tried: list[str] = []

    def once(config: VmConfig, properties: dict[str, str], failed: str) -> Any:
        tried.append(failed)
        outcome = outcomes.pop(0)
        if isinstance(outcome, tuple):
            error, kept = outcome
            (config.directory / failed).write_bytes(kept)
            raise error
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    monkeypatch.setattr(lab_boot, "_boot_once", once)
    monkeypatch.setattr(lab_boot.appliance_env, "prepare", lambda *a: (Path("env.iso"), {"k": "v"}))
    return tried


class _San:
    socket = Path("san.sock")
    luns: list[Lun] = []


@pytest.mark.parametrize(
    "first", [console.GuestPanicked("[ 2.5] Oops: int3"), console.BootStalled("stood still for 240 s")]
)
def test_a_panic_or_a_hang_is_booted_once_more(tmp_path: Path, monkeypatch: Any, first: Exception) -> None:
    tried = _boots(monkeypatch, [first, "booted"])
    assert lab_boot.boot(Path("image"), Path("key"), _San(), tmp_path) == "booted"
    assert tried == ["console-failed-1.log", "console-failed-2.log"]


def test_a_second_panic_fails(tmp_path: Path, monkeypatch: Any) -> None:
    tried = _boots(monkeypatch, [console.BootStalled("hung"), console.GuestPanicked("[ 3.1] Oops: again")])
    with pytest.raises(console.GuestPanicked, match="again"):
        lab_boot.boot(Path("image"), Path("key"), _San(), tmp_path)
    assert len(tried) == 2


@pytest.mark.parametrize(
    "error", [console.ConsoleError("qemu ended"), TimeoutError("no health in 600 s"), KeyboardInterrupt()]
)
def test_any_other_failure_is_not_retried(tmp_path: Path, monkeypatch: Any, error: BaseException) -> None:
    tried = _boots(monkeypatch, [error, "booted"])
    with pytest.raises(type(error)):
        lab_boot.boot(Path("image"), Path("key"), _San(), tmp_path)
    assert tried == ["console-failed-1.log"]


# An int3 Oops of TCG's while the kernel patches its own text, before ZFS loaded; and the same after it.
EARLY = b"[   16.49] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n"
LATE = b"[   30.10] ZFS: Loaded module v2.3.9-0+deb13u1, ZFS pool version 5000\n" + EARLY


def test_early_panics_get_two_more_boots(tmp_path: Path, monkeypatch: Any) -> None:
    early = (console.GuestPanicked("[ 16.4] Oops: int3"), EARLY)
    tried = _boots(monkeypatch, [early, early, early, "booted"])
    assert lab_boot.boot(Path("image"), Path("key"), _San(), tmp_path) == "booted"
    assert len(tried) == 4


def test_a_fourth_early_panic_fails(tmp_path: Path, monkeypatch: Any) -> None:
    early = (console.GuestPanicked("[ 16.4] Oops: int3"), EARLY)
    tried = _boots(monkeypatch, [early, early, early, (console.GuestPanicked("[ 16.4] again"), EARLY)])
    with pytest.raises(console.GuestPanicked, match="again"):
        lab_boot.boot(Path("image"), Path("key"), _San(), tmp_path)
    assert len(tried) == 4


def test_a_panic_after_zfs_loaded_gets_one_more_boot_only(tmp_path: Path, monkeypatch: Any) -> None:
    late = (console.GuestPanicked("[ 30.1] Oops: int3"), LATE)
    tried = _boots(monkeypatch, [late, (console.GuestPanicked("[ 30.1] again"), LATE), "booted"])
    with pytest.raises(console.GuestPanicked, match="again"):
        lab_boot.boot(Path("image"), Path("key"), _San(), tmp_path)
    assert tried == ["console-failed-1.log", "console-failed-2.log"]


def test_a_boot_that_oopses_in_early_boot_is_booted_again_twice_and_no_more(tmp_path: Path) -> None:
    log = tmp_path / "console.log"
    early = "[   26.227285] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n"
    said: list[str] = []
    stopped: list[int] = []

    def boots(outcomes: list[str | None]) -> Callable[[], str]:
        def start() -> str:
            found = outcomes.pop(0)
            if found is None:
                return "up"
            log.write_text(found)
            raise console.GuestPanicked(found.strip())

        return start

    assert console.booting(boots([early, early, None]), log, lambda: stopped.append(1), said.append) == "up"
    assert len(stopped) == 2 and len(said) == 2 and "before ZFS loaded" in said[0]
    with pytest.raises(console.GuestPanicked):  # a third early panic: the host's emulator, reported
        console.booting(boots([early, early, early]), log, lambda: None, said.append)
    late = f"{console.EARLY_BOOT_DONE}\n{early}"
    stopped.clear()
    with pytest.raises(console.GuestPanicked):  # after ZFS loaded: the appliance's, never retried
        console.booting(boots([late, None]), log, lambda: stopped.append(1), said.append)
    assert stopped == []
