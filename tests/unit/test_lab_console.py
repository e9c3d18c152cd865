"""The lab VM's serial console: its tail, the guest kernel's panic, the wait for the login prompt.

A real process stands in for qemu (alive or ended); the console lines are real ones from this lab."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lab import console

# The end of a real traced boot's console (Debian 13's serial getty), escapes and all.
CONSOLE_END = (
    b"[\x1b[0;32m  OK  \x1b[0m] Reached target \x1b[0;1;39mgraphical.target\x1b[0m - Graphical Interface.\r\n"
    b"\x1b[!p\x1b]104\x07\x1b[?7h\x1b[6n\x1b[32766;32766H\x1b[6n\r\n"
    b"Debian GNU/Linux 13 arcvsa ttyS0\r\n\r\narcvsa login: "
)
# A real panic of the lab VM under the soak (qemu 7.2 TCG), after its boot.
PANICKED = b"""\
[   39.105981]  vdd: vdd1 vdd9
[  535.618958] traps: PANIC: double fault, error_code: 0x0
[  535.620728] Oops: double fault: 0000 [#1] PREEMPT SMP NOPTI
[  535.621121] CPU: 1 UID: 0 PID: 2615 Comm: ganesha.nfsd Tainted: P           OE      6.12.117+deb13-amd64 #1
[  535.621406] RIP: 0010:kmem_cache_alloc_node_noprof+0x6e/0x310
"""
# Said by a slow TCG guest that goes on: not a panic.
SOFT_LOCKUP = "[  212.1] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [kworker/1:2:91]\n"

SLEEPER = [sys.executable, "-c", "import time; time.sleep(30)"]  # stands in for qemu


def test_the_tail_drops_terminal_escapes(tmp_path: Path) -> None:
    path = tmp_path / "console.log"
    path.write_bytes(CONSOLE_END)
    assert console.tail(path, lines=2) == "Debian GNU/Linux 13 arcvsa ttyS0\narcvsa login:"
    assert "[  OK  ] Reached target graphical.target" in console.tail(path)
    assert console.tail(tmp_path / "none.log") == "(no console output)"
    assert console.text(tmp_path / "none.log") == ""


def test_a_panic_is_found_from_its_first_line() -> None:
    text = PANICKED.decode()
    found = console.panic(text, lines=3)
    assert found is not None and found.splitlines() == [line.strip() for line in text.splitlines()[1:4]]
    assert console.panic(text.splitlines()[0] + "\narcvsa-lab login: ") is None
    assert console.panic(SOFT_LOCKUP) is None


def test_check_names_a_panic_before_a_dead_qemu(tmp_path: Path) -> None:
    path = tmp_path / "console.log"
    path.write_bytes(CONSOLE_END)
    console.check(path, alive=True)
    with pytest.raises(console.ConsoleError, match=r"(?s)qemu ended.*arcvsa login:") as ended:
        console.check(path, alive=False)
    assert not isinstance(ended.value, console.GuestPanicked)
    path.write_bytes(PANICKED)
    for alive in (True, False):
        with pytest.raises(console.GuestPanicked, match="double fault") as panicked:
            console.check(path, alive=alive)
        assert panicked.value.lines.startswith("[  535.618958] traps: PANIC")


def test_wait_login_returns_at_the_login_prompt(tmp_path: Path) -> None:
    path = tmp_path / "console.log"  # qemu creates it a moment after it starts
    with subprocess.Popen(SLEEPER) as proc:
        try:
            started = time.monotonic()
            threading.Timer(0.6, path.write_bytes, [CONSOLE_END]).start()
            alive = lambda: proc.poll() is None  # noqa: E731
            assert 0.6 <= console.wait_login(path, alive, started, timeout=10, stall=5) < 5
        finally:
            proc.kill()


def test_wait_login_calls_a_silent_console_stalled_and_shows_its_end(tmp_path: Path) -> None:
    path = tmp_path / "console.log"
    path.write_bytes(b"Starting \x1b[0;1;39marcvsa-firstboot.service\x1b[0m...\r\n")
    with pytest.raises(console.BootStalled, match=r"(?s)stood still for 0 s.*Starting arcvsa-firstboot"):
        console.wait_login(path, lambda: True, time.monotonic(), timeout=10, stall=0.3)


def test_wait_login_stops_at_a_panic_at_once(tmp_path: Path) -> None:
    path = tmp_path / "console.log"
    path.write_bytes(PANICKED)
    started = time.monotonic()
    with pytest.raises(console.GuestPanicked):
        console.wait_login(path, lambda: True, started, timeout=10, stall=5)
    assert time.monotonic() - started < 2


def test_wait_login_fails_when_qemu_ends_or_time_runs_out(tmp_path: Path) -> None:
    path = tmp_path / "console.log"
    path.write_bytes(b"SeaBIOS\r\n")
    with subprocess.Popen([sys.executable, "-c", "pass"]) as proc:
        proc.wait()
        with pytest.raises(console.ConsoleError, match=r"(?s)qemu ended.*SeaBIOS") as ended:
            console.wait_login(path, lambda: proc.poll() is None, time.monotonic(), timeout=10, stall=5)
        assert not isinstance(ended.value, console.BootStalled | console.GuestPanicked)
    with pytest.raises(console.ConsoleError, match="no login prompt within 0 s") as slow:
        console.wait_login(path, lambda: True, time.monotonic() - 1, timeout=0.5, stall=5)
    assert not isinstance(slow.value, console.BootStalled)


# The appliance's greeting as agetty drew it on a lab VM's serial console: first without an address
# (the fallback to the host name's), then again when networkd had configured it.
GREETED = (
    b"Debian GNU/Linux 13 arcvsa-lab ttyS0\r\n\r\n"
    b"arcvsa 0.9.0-3-gabc1234 - virtual storage appliance\r\n\r\n"
    b"  Web interface   https://127.0.1.1/\r\n"
    b"  First boot      applied\r\n\r\narcvsa-lab login: "
    b"[   31.2] ganesha.nfsd[812]: started\r\n"
    b"\r\nDebian GNU/Linux 13 arcvsa-lab ttyS0\r\n\r\n"
    b"arcvsa 0.9.0-3-gabc1234 - virtual storage appliance\r\n\r\n"
    b"  Web interface   https://10.0.2.15/\r\n"
    b"                  https://arcvsa-lab.lab.arcvsa.test/\r\n"
    b"  First boot      applied\r\n\r\narcvsa-lab login: "
    b"\r\nDebian GNU/Linux 13 arcvsa-lab ttyS0\r\n\r\n"
    b"arcvsa 0.9.0-3-gabc1234 - virtual storage appliance\r\n\r\n"
    b"  Web interface   https://10."  # being drawn: not a greeting yet
)


def test_greetings_are_those_drawn_up_to_a_login_prompt(tmp_path: Path) -> None:
    path = tmp_path / "console.log"
    path.write_bytes(GREETED)
    first, last = console.greetings(path)
    assert first.splitlines()[2] == "  Web interface   https://127.0.1.1/"
    assert last == (
        "arcvsa 0.9.0-3-gabc1234 - virtual storage appliance\n\n"
        "  Web interface   https://10.0.2.15/\n"
        "                  https://arcvsa-lab.lab.arcvsa.test/\n"
        "  First boot      applied\n\n"
    )
    path.write_bytes(CONSOLE_END)
    assert console.greetings(path) == []
    assert console.greetings(tmp_path / "none.log") == []


@pytest.mark.parametrize(
    ("kept", "early"),
    [
        (b"[   16.49] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n", True),
        (
            b"[   30.10] ZFS: Loaded module v2.3.9\n[   31.00] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n",
            False,
        ),
        (SOFT_LOCKUP.encode(), False),  # no panic at all
    ],
)
def test_panicked_early_is_a_panic_before_zfs_loaded(tmp_path: Path, kept: bytes, early: bool) -> None:
    path = tmp_path / "console.log"
    path.write_bytes(kept)
    assert console.panicked_early(path) is early
