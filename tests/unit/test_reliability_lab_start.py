"""The reliability lab's boot (reliability.powercut.Lab.start): qemu ending before the guest printed a
line is started again (a forward's host port taken meanwhile is the lab's), at most three starts in all;
once the guest has printed anything its end is the appliance's and fails the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lab import console as vmconsole
from reliability import powercut


class _Vm:
    def __init__(self, tmp_path: Path, outcomes: list[bytes | None]) -> None:
        self.console, self.log = tmp_path / "console.log", tmp_path / "qemu.log"
        self.outcomes, self.started_at, self.starts = outcomes, 0.0, 0

    def start(self) -> _Vm:
        self.starts += 1
        self.console.write_bytes(b"")
        self.log.write_text(
            "qemu-system-x86_64: Could not set up host forwarding rule 'tcp:127.0.0.1:4242-:22'\n"
        )
        return self

    def check(self) -> None:
        printed = self.outcomes.pop(0)
        if printed is None:
            return  # up
        self.console.write_bytes(printed)
        raise vmconsole.ConsoleError("qemu ended")


class _Client:
    def __init__(self, vm: _Vm) -> None:
        self.vm = vm

    def wait_health(self, started: float, timeout: float, check: Any, console: Path) -> tuple[float, Any]:
        check()
        return 42.0, None


def _lab(tmp_path: Path, outcomes: list[bytes | None], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, _Vm]:
    vm = _Vm(tmp_path, outcomes)
    lab: Any = object.__new__(powercut.Lab)
    lab.vm, lab.tap, lab.early_panics = vm, None, []
    lab.api = type("Api", (), {"client": _Client(vm), "login": lambda self: None})()
    monkeypatch.setattr(lab, "wait_ssh", lambda: None, raising=False)
    monkeypatch.setattr(lab, "power_cut", lambda: 0.0, raising=False)
    monkeypatch.setattr(powercut.time, "sleep", lambda _s: None)
    return lab, vm


def test_qemu_ending_before_the_guest_printed_is_started_again_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lab, vm = _lab(tmp_path, [b"", b"", None], monkeypatch)
    assert lab.start() == 42.0 and vm.starts == 3
    assert len(lab.early_panics) == 2 and "Could not set up host forwarding rule" in lab.early_panics[0]


def test_a_third_such_end_fails_with_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lab, vm = _lab(tmp_path, [b"", b"", b""], monkeypatch)
    with pytest.raises(RuntimeError, match=r"did not come up in three starts.*host forwarding"):
        lab.start()
    assert vm.starts == 3


def test_an_end_after_the_guest_printed_is_the_appliance_s_and_not_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lab, vm = _lab(tmp_path, [b"[    3.1] systemd[1]: Reached target basic.target\n", None], monkeypatch)
    with pytest.raises(vmconsole.ConsoleError):
        lab.start()
    assert vm.starts == 1
