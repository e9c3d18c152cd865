"""The run's cancel switch: a blocking call, a sleep and a check each end within POLL of a cancel."""

from __future__ import annotations

import threading
import time

import pytest

from provisioning import cancel
from provisioning.errors import Cancelled


def test_call_hands_back_the_result_and_the_exception_of_its_function() -> None:
    assert cancel.call(lambda: 42, cancel.never, "x") == 42
    with pytest.raises(KeyError, match="gone"):
        cancel.call(lambda: {}["gone"], cancel.never, "x")


def test_call_stops_waiting_for_a_blocked_function_once_cancelled() -> None:
    switch, release = threading.Event(), threading.Event()
    threading.Timer(0.5, switch.set).start()
    started = time.monotonic()
    with pytest.raises(Cancelled, match=r"^cancelled during the upload$"):
        cancel.call(lambda: release.wait(30), switch.is_set, "during the upload")
    took = time.monotonic() - started
    release.set()
    assert 0.5 <= took < 0.5 + cancel.POLL + 0.2


def test_the_words_of_a_cancel_are_asked_for_when_it_happens() -> None:
    said = []
    with pytest.raises(Cancelled, match="after 3 of 4"):
        cancel.check(lambda: True, lambda: said.append(1) or "after 3 of 4")
    cancel.check(lambda: False, lambda: said.append(1) or "never")
    assert said == [1], "the words are made only for a cancel"


def test_sleep_ends_early_on_a_cancel_and_sleeps_in_full_without_one() -> None:
    started = time.monotonic()
    cancel.sleep(0.3, cancel.never, "x")
    assert time.monotonic() - started >= 0.3
    switch = threading.Event()
    threading.Timer(0.2, switch.set).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        cancel.sleep(30, switch.is_set, "x")
    assert time.monotonic() - started < 0.2 + cancel.POLL + 0.2
