"""lab.guest_clock's pings, run against this host's own python in place of the guest's: the offset it
finds is this host's RAW clock minus its monotonic one, within the error it states."""

from __future__ import annotations

import sys
import time

import pytest

from lab import guest_clock
from process import ProcessError, ProcessFailed


def _here(remote: list[str]) -> list[str]:
    assert remote[:2] == ["python3", "-c"]
    return [sys.executable, *remote[1:]]


def test_the_offset_is_the_raw_clock_on_the_monotonic_one_within_its_error() -> None:
    clock = guest_clock.raw_offset(_here)
    truth = time.clock_gettime(time.CLOCK_MONOTONIC_RAW) - time.monotonic()
    assert 0 < clock.error < 1.0
    assert abs(clock.seconds - truth) <= clock.error + 0.05  # + the raw clock's drift from NTP since
    now_raw = time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)
    assert abs(clock.to_host(now_raw) - time.monotonic()) <= clock.error + 0.05


def test_a_pinger_that_answers_no_clock_is_an_error() -> None:
    def silent(remote: list[str]) -> list[str]:
        return [sys.executable, "-c", "import sys\nfor _ in sys.stdin: print('not a clock', flush=True)"]

    with pytest.raises(ProcessError, match="no clock"):
        guest_clock.raw_offset(silent)


def test_a_pinger_that_ends_is_an_error_not_a_hang() -> None:
    with pytest.raises(ProcessError):
        guest_clock.raw_offset(lambda remote: [sys.executable, "-c", "pass"], timeout=10)


def test_a_pinger_that_fails_says_why() -> None:
    def refused(remote: list[str]) -> list[str]:
        return [sys.executable, "-c", "import sys; sys.exit('Permission denied (publickey)')"]

    with pytest.raises(ProcessFailed, match=r"Permission denied \(publickey\)") as caught:
        guest_clock.raw_offset(refused, timeout=10)
    assert caught.value.exit_code == 1
