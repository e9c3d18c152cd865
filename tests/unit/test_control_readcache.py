"""Shared answers of read-only commands (appliance.control.readcache), and Gateway.read on real commands."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from appliance.control.errors import CommandFailed, ControlError
from appliance.control.gateway import Gateway
from appliance.control.readcache import ReadCache, WouldWait, waiting_refused, without_waiting


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Counted:
    """A read that answers its call number."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> int:
        self.calls += 1
        return self.calls


def test_an_answer_is_shared_while_fresh_then_read_again() -> None:
    clock, read = Clock(), Counted()
    cache = ReadCache(2.0, clock)
    assert [cache.get("k", read), cache.get("k", read)] == [1, 1]
    clock.now += 1.9
    assert cache.get("k", read) == 1
    clock.now += 0.2
    assert cache.get("k", read) == 2 and read.calls == 2
    assert cache.get("other", read) == 3  # keys do not share


def test_invalidate_ends_every_shared_answer_and_zero_shares_nothing() -> None:
    read = Counted()
    cache = ReadCache(60.0, Clock())
    assert cache.get("k", read) == 1
    cache.invalidate()
    assert cache.get("k", read) == 2
    never = ReadCache(0.0, Clock())
    assert [never.get("k", read), never.get("k", read)] == [3, 4]


def test_concurrent_readers_wait_for_the_one_read_in_flight() -> None:
    cache = ReadCache(2.0)
    started, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def slow() -> str:
        calls.append(1)
        started.set()
        assert release.wait(10)
        return "answer"

    answers: list[str] = []
    first = threading.Thread(target=lambda: answers.append(cache.get("k", slow)))
    first.start()
    assert started.wait(10)
    others = [threading.Thread(target=lambda: answers.append(cache.get("k", slow))) for _ in range(8)]
    for t in others:
        t.start()
    release.set()
    for t in [first, *others]:
        t.join(10)
    assert answers == ["answer"] * 9 and len(calls) == 1


def test_a_control_error_is_shared_like_an_answer_and_other_errors_are_not() -> None:
    cache = ReadCache(2.0, Clock())
    failures: list[int] = []

    def failing() -> str:
        failures.append(1)
        raise CommandFailed(("zpool", "list"), 1, "pool I/O is currently suspended")

    for _ in range(3):
        with pytest.raises(ControlError, match="suspended"):
            cache.get("k", failing)
    assert len(failures) == 1

    def broken() -> str:
        failures.append(1)
        raise RuntimeError("bug")

    for _ in range(2):
        with pytest.raises(RuntimeError):
            cache.get("b", broken)
    assert len(failures) == 3


def test_a_read_that_overlapped_a_change_answers_its_caller_only() -> None:
    cache = ReadCache(60.0, Clock())
    read = Counted()

    def read_during_change() -> int:
        cache.invalidate()  # a change finished while this read ran: its answer may predate it
        return read()

    assert cache.get("k", read_during_change) == 1
    assert cache.get("k", read) == 2


class Later:
    """``start`` for a stale answer's refresh: runs it when the test says so, not on a thread."""

    def __init__(self) -> None:
        self.pending: list[object] = []

    def __call__(self, work: object) -> None:
        self.pending.append(work)

    def run(self) -> None:
        work, self.pending = self.pending, []
        for job in work:
            job()  # type: ignore[operator]


def test_a_stale_answer_is_served_while_one_refresh_runs_then_replaced() -> None:
    clock, read, later = Clock(), Counted(), Later()
    cache = ReadCache(2.0, clock, stale_for=10.0, start=later)
    assert cache.get("k", read) == 1
    clock.now += 5.0  # past fresh, within stale: no caller waits, one refresh for all of them
    assert [cache.get("k", read) for _ in range(3)] == [1, 1, 1]
    assert len(later.pending) == 1 and read.calls == 1
    later.run()
    assert cache.get("k", read) == 2 and read.calls == 2  # the refresh's answer, fresh
    clock.now += 12.1  # past fresh + stale: the caller reads for itself
    assert cache.get("k", read) == 3 and not later.pending


def test_an_error_is_never_served_stale_and_a_refresh_error_is_the_next_answer() -> None:
    clock, later = Clock(), Later()
    cache = ReadCache(2.0, clock, stale_for=10.0, start=later)
    outcomes: list[object] = [
        "healthy",
        CommandFailed(("zpool", "list"), 1, "pool I/O is currently suspended"),
    ]

    def read() -> str:
        outcome = outcomes.pop(0)
        if isinstance(outcome, ControlError):
            raise outcome
        return str(outcome)

    assert cache.get("k", read) == "healthy"
    clock.now += 3.0
    assert cache.get("k", read) == "healthy"  # stale while the refresh runs
    later.run()  # the LUN failed meanwhile
    with pytest.raises(ControlError, match="suspended"):
        cache.get("k", read)
    clock.now += 3.0
    outcomes.append("back")
    assert cache.get("k", read) == "back"  # an error past fresh is read again, never served stale
    assert not later.pending


def test_a_refresh_that_overlapped_a_change_is_dropped() -> None:
    clock, read, later = Clock(), Counted(), Later()
    cache = ReadCache(2.0, clock, stale_for=10.0, start=later)
    assert cache.get("k", read) == 1
    clock.now += 3.0
    assert cache.get("k", read) == 1
    cache.invalidate()  # a change through this process: its past is never shown after it
    assert cache.get("k", read) == 2
    later.run()  # the refresh started before the change answers 3, and nobody sees it
    assert cache.get("k", read) == 2 and read.calls == 3


def test_a_refresh_that_hit_a_bug_leaves_the_next_caller_to_read() -> None:
    clock, later = Clock(), Later()
    cache = ReadCache(2.0, clock, stale_for=10.0, start=later)
    calls: list[int] = []

    def read() -> int:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("bug")
        return len(calls)

    assert cache.get("k", read) == 1
    clock.now += 3.0
    assert cache.get("k", read) == 1
    later.run()
    assert cache.get("k", read) == 3


def test_a_stale_refresh_runs_on_a_thread_by_default() -> None:
    clock, read = Clock(), Counted()
    cache = ReadCache(2.0, clock, stale_for=10.0)
    assert cache.get("k", read) == 1
    clock.now += 3.0
    assert cache.get("k", read) == 1  # served at once; the refresh runs on its own thread
    for _ in range(1000):  # the clock stands still, so the refresh's answer stays fresh once stored
        if cache.get("k", read) == 2:
            break
        threading.Event().wait(0.01)
    assert cache.get("k", read) == 2 and read.calls == 2


def test_gateway_read_shares_a_real_command_until_any_run() -> None:
    gw = Gateway(reads_fresh_for=60.0)
    stamp = ["date", "+%s%N"]  # a new answer every time it really runs
    first = gw.read(stamp).stdout
    assert gw.read(stamp).stdout == first
    assert gw.read(["date", "+%N"]).stdout != first  # another argv is its own read
    gw.run(["true"])  # any command may change state: reads run again
    assert gw.read(stamp).stdout != first
    shared = gw.read(stamp).stdout
    assert gw.query(stamp).stdout != shared  # a query answers afresh ...
    assert gw.read(stamp).stdout == shared  # ... and leaves the shared answers alone
    plain = Gateway()  # the default shares nothing
    assert plain.read(stamp).stdout != plain.read(stamp).stdout


def test_without_waiting_serves_shared_answers_and_refuses_what_would_wait() -> None:
    clock, read = Clock(), Counted()
    refreshes: list[object] = []
    cache = ReadCache(2.0, clock, stale_for=10.0, start=refreshes.append)
    with without_waiting(), pytest.raises(WouldWait):  # nothing shared yet: the read would run here
        cache.get("k", read)
    assert read.calls == 0 and cache.get("k", read) == 1  # the refusal left no entry behind
    with without_waiting():
        assert cache.get("k", read) == 1  # fresh
        clock.now += 5
        assert cache.get("k", read) == 1  # stale: served, its refresh handed to ``start``
    assert len(refreshes) == 1 and read.calls == 1
    clock.now += 20
    with without_waiting(), pytest.raises(WouldWait):  # past stale_for: it would be read again
        cache.get("k", read)
    assert not waiting_refused()


def test_without_waiting_refuses_to_wait_for_a_read_in_flight() -> None:
    cache = ReadCache(2.0)
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait(5)
        return "answer"

    reader = threading.Thread(target=lambda: cache.get("k", slow))
    reader.start()
    assert started.wait(5)
    with without_waiting(), pytest.raises(WouldWait):
        cache.get("k", slow)
    release.set()
    reader.join(5)
    with without_waiting():
        assert cache.get("k", slow) == "answer"


def test_the_gateway_starts_no_tool_without_waiting(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    gw = Gateway(reads_fresh_for=60.0)
    argv = ["touch", str(marker)]
    gw.reads.get("other", lambda: "shared")
    for call in (gw.query, gw.read, gw.run):
        with without_waiting(), pytest.raises(WouldWait):
            call(argv)
    assert not marker.exists()
    with without_waiting():  # the refused change ended no shared answer
        assert gw.reads.get("other", lambda: "read again") == "shared"
    gw.read(argv)  # outside it, the tool runs; its answer is then served without waiting
    assert marker.exists()
    with without_waiting():
        assert gw.read(argv).exit_code == 0
