"""The api's cgroup split for background reads (appliance.control.cgroup), and the runner's placement.

The kernel's cgroupfs is not writable from a test: the split is checked on a folder laid out as the
unit's delegated cgroup (the files it writes are plain files there), and the runner's placement with a
Leaf that records what it is given, on real commands.
"""

from __future__ import annotations

import errno
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from appliance.control import cgroup
from appliance.control.gateway import Gateway, SubprocessRunner
from appliance.control.readcache import refreshing

UNIT = "/arcvsa.slice/arcvsa-api.service"


def _delegated_tree(tmp_path: Path, mark: bool) -> tuple[Path, Path, Path]:
    root, own = tmp_path / "cgroup", tmp_path / "cgroup" / UNIT.lstrip("/")
    own.mkdir(parents=True)
    if mark:
        try:
            os.setxattr(own, "trusted.delegate", b"1")  # what systemd sets on a Delegate= unit's cgroup
        except OSError as err:
            pytest.skip(f"trusted xattrs need root on a file system that keeps them: {err}")
    proc = tmp_path / "proc-self-cgroup"
    proc.write_text(f"0::{UNIT}\n", encoding="ascii")
    return root, own, proc


def test_own_cgroup_is_read_from_the_v2_line() -> None:
    assert cgroup.own_cgroup(f"0::{UNIT}\n") == UNIT
    assert cgroup.own_cgroup(f"12:cpu,cpuacct:/legacy\n0::{UNIT}\n") == UNIT
    with pytest.raises(ValueError):
        cgroup.own_cgroup("12:cpu,cpuacct:/legacy\n")


def test_a_delegated_cgroup_gets_a_server_leaf_with_this_process_and_a_capped_reads_leaf(
    tmp_path: Path,
) -> None:
    root, own, proc = _delegated_tree(tmp_path, mark=True)
    leaf = cgroup.split_for_reads(root, proc)
    assert leaf == cgroup.Leaf(own / "reads")
    assert (own / "server" / "cgroup.procs").read_text() == f"{os.getpid()}\n"
    assert (own / "cgroup.subtree_control").read_text() == "+cpu\n"
    assert (own / "server" / "cpu.max").read_text() == "100000 100000\n"
    assert (own / "reads" / "cpu.max").read_text() == "30000 100000\n"
    assert (own / "reads" / "cpu.weight").read_text() == "10\n"
    # a restarted api finds the leaves there already
    assert cgroup.split_for_reads(root, proc) == leaf


def test_a_cgroup_not_delegated_is_left_alone(tmp_path: Path) -> None:
    root, own, proc = _delegated_tree(tmp_path, mark=False)
    assert cgroup.split_for_reads(root, proc) is None
    assert list(own.iterdir()) == []
    assert cgroup.split_for_reads(root, tmp_path / "no-such-proc-file") is None


def test_a_split_the_kernel_refuses_keeps_the_reads_where_they_were(tmp_path: Path) -> None:
    root, own, proc = _delegated_tree(tmp_path, mark=True)
    (own / "cgroup.subtree_control").mkdir()  # writing it fails (IsADirectoryError), as EBUSY would
    assert cgroup.split_for_reads(root, proc) is None


@dataclass(frozen=True)
class Recorded(cgroup.Leaf):
    """A leaf that keeps the pids it is given."""

    pids: list[int] = field(default_factory=list)

    def adopt(self, pid: int) -> None:
        self.pids.append(pid)


def test_only_a_background_refresh_runs_its_tools_in_the_reads_leaf() -> None:
    leaf = Recorded(Path("/nonexistent"))
    gw = Gateway(SubprocessRunner(leaf), reads_fresh_for=0.05, reads_stale_for=60.0)
    seen: list[bool] = []

    def read() -> str:
        seen.append(refreshing())
        return gw.query(["echo", "hi"]).stdout

    assert gw.reads.get("k", read) == "hi\n"  # the first read: the caller waits for it, in its own thread
    assert leaf.pids == [] and seen == [False]
    time.sleep(0.1)
    assert gw.reads.get("k", read) == "hi\n"  # stale: served, and read again in the background
    deadline = time.monotonic() + 10
    while len(leaf.pids) < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(leaf.pids) == 1 and seen == [False, True]
    gw.run(["true"])  # a change runs in the caller's thread: never moved
    assert len(leaf.pids) == 1


def test_adopting_never_fails_the_command_it_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    leaf = cgroup.Leaf(tmp_path)
    leaf.adopt(os.getpid())
    assert (tmp_path / "cgroup.procs").read_text() == f"{os.getpid()}\n"
    # a leaf the kernel refuses (here a cgroup.procs that cannot be written): logged, the process stays
    gone = cgroup.Leaf(tmp_path / "removed")
    with caplog.at_level(logging.WARNING, logger="arcvsa.cgroup"):
        gone.adopt(os.getpid())
    assert f"process {os.getpid()} stays in the api's own cgroup" in caplog.text

    def ended(*_args: object, **_kwargs: object) -> int:
        raise ProcessLookupError(errno.ESRCH, "No such process")  # the kernel's answer for an ended pid

    caplog.clear()
    monkeypatch.setattr(Path, "write_text", ended)
    leaf.adopt(2**22)
    assert caplog.text == ""  # an ended process is no news


def test_a_refused_placement_still_returns_the_commands_answer(tmp_path: Path) -> None:
    gw = Gateway(
        SubprocessRunner(cgroup.Leaf(tmp_path / "removed")), reads_fresh_for=0.05, reads_stale_for=60
    )
    assert gw.reads.get("k", lambda: gw.query(["echo", "hi"]).stdout) == "hi\n"
    time.sleep(0.1)
    gw.reads.get("k", lambda: gw.query(["echo", "again"]).stdout)  # stale: refreshed in the background
    deadline = time.monotonic() + 10
    while gw.reads.get("k", lambda: "unreachable") != "again\n":
        assert time.monotonic() < deadline, "the background refresh never answered"
        time.sleep(0.02)
