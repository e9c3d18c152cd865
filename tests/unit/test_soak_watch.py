"""The soak's watch on the guest (reliability.soak.GuestWatch): a panic on the console or an ended qemu
stops the soak's fio at once, with the kernel's words; a healthy guest is watched until halted.

The console text is a real panic of the lab VM under the soak (tests/unit/test_lab_console.py)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import cast

from test_lab_console import PANICKED

from lab import console
from reliability.powercut import Lab
from reliability.soak import GuestWatch

BOOTED = b"Debian GNU/Linux 13 arcvsa ttyS0\r\n\r\narcvsa login: \r\n[  212.1] watchdog: BUG: soft lockup - CPU#1 stuck for 22s!\n"


class _Vm:
    def __init__(self, path: Path) -> None:
        self.console, self.alive = path, True

    def check(self) -> None:
        console.check(self.console, self.alive)


class _Lab:
    def __init__(self, path: Path) -> None:
        self.vm = _Vm(path)


def _watch(tmp_path: Path) -> tuple[GuestWatch, _Lab]:
    (tmp_path / "console.log").write_bytes(BOOTED)
    lab = _Lab(tmp_path / "console.log")
    watch = GuestWatch(cast(Lab, lab), every=0.05)
    watch.start()
    return watch, lab


def test_a_panic_is_seen_and_said(tmp_path: Path) -> None:
    watch, lab = _watch(tmp_path)
    time.sleep(0.2)
    assert not watch.dead.is_set()  # a soft lockup is a slow guest, not a dead one
    with lab.vm.console.open("ab") as out:
        out.write(PANICKED)
    assert watch.dead.wait(5)
    assert "double fault" in watch.why and "ganesha.nfsd" in watch.why
    watch.join(5)
    assert not watch.is_alive()


def test_an_ended_qemu_is_seen(tmp_path: Path) -> None:
    watch, lab = _watch(tmp_path)
    lab.vm.alive = False
    assert watch.dead.wait(5)
    assert watch.why.startswith("qemu ended") and "arcvsa login:" in watch.why


def test_a_healthy_guest_is_watched_until_halted(tmp_path: Path) -> None:
    watch, _ = _watch(tmp_path)
    time.sleep(0.2)
    watch.halt.set()
    watch.join(5)
    assert not watch.is_alive() and not watch.dead.is_set() and watch.why == ""
