"""lab.boot_slot: one booting appliance at a time across processes (pytest-xdist's workers, make -j)."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lab.boot_slot import boot_slot

HOLDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from lab.boot_slot import boot_slot
    with boot_slot(Path(sys.argv[1])):
        print("held", flush=True)
        sys.stdin.read()
    """
)


def _taken(path: Path) -> bool:
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def _holder(path: Path) -> subprocess.Popen[str]:
    """A process in the slot's block until its stdin closes (or it is killed)."""
    root = Path(__file__).resolve().parents[2]
    argv = [sys.executable, "-c", HOLDER, str(path)]
    holder = subprocess.Popen(argv, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def test_another_process_waits_while_the_slot_is_held_and_gets_it_when_the_holder_ends(
    tmp_path: Path,
) -> None:
    path = tmp_path / "boot.lock"
    holder = _holder(path)
    try:
        assert _taken(path)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()  # the holder leaves its block
        holder.wait(timeout=30)
    assert not _taken(path)
    with boot_slot(path):
        assert _taken(path)
    assert not _taken(path)


def test_the_slot_is_released_when_the_block_raises(tmp_path: Path) -> None:
    path = tmp_path / "boot.lock"
    with pytest.raises(RuntimeError), boot_slot(path):
        raise RuntimeError("the boot stalled")
    assert not _taken(path)


def test_a_killed_holder_leaves_the_slot_free(tmp_path: Path) -> None:
    path = tmp_path / "boot.lock"
    holder = _holder(path)
    holder.kill()
    holder.wait(timeout=30)
    assert not _taken(path)
