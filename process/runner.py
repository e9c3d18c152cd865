"""Runs external tools: an argv list (never a shell), a timeout, the whole process group killed when it
overruns, typed errors, secrets masked in whatever is logged or raised.

Each command runs in a session of its own, so its process group is exactly the command and whatever it
started: a timeout, a watch's stop or Ctrl-C kills them all (zpool on a stalled LUN, qemu-img's
helpers, packer's build VM). Every command is logged at debug level with its argv masked.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

from process.errors import ProcessAborted, ProcessFailed, ProcessTimeout, ToolNotFound

logger = logging.getLogger(__name__)

MASK = "***"
# How often a watch is asked while its command runs.
WATCH_EVERY = 2.0
# How long a killed command's pipes are read for what it said before it died.
DRAIN_TIMEOUT = 10.0

Watch = Callable[[], str | None]
Line = tuple[float, str]  # (seconds since the command started, one line it printed)
T = TypeVar("T")


@dataclass(frozen=True)
class Completed:
    """A command that ran to its end: its argv (masked), exit code and output."""

    argv: tuple[str, ...]
    exit_code: int
    stdout: str
    stderr: str


def check_argv(argv: object) -> None:
    """TypeError unless argv is a non-empty sequence of strings (a str is refused), ValueError on NUL."""
    if (
        isinstance(argv, str | bytes)
        or not isinstance(argv, Sequence)
        or not argv
        or not all(isinstance(word, str) for word in argv)
    ):
        # The value itself is not quoted: it may hold a secret.
        raise TypeError(f"argv must be a non-empty list of strings, not {type(argv).__name__}")
    if any("\0" in word for word in argv):
        raise ValueError("argv contains a NUL byte")


def mask(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every non-empty secret replaced by ***."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    return text


def run(
    argv: Sequence[str],
    *,
    timeout: float,
    input_text: str | None = None,
    env: Mapping[str, str] | None = None,
    inherit_env: bool = True,
    cwd: Path | str | None = None,
    check: bool = True,
    secrets: Sequence[str] = (),
    watch: Watch | None = None,
) -> Completed:
    """Run argv to its end and return what it printed.

    ``env`` adds to this process's environment (replaces it with ``inherit_env=False``); ``check=False``
    returns a non-zero exit instead of raising ProcessFailed; ``watch`` is asked every WATCH_EVERY
    seconds and stops the command (ProcessAborted) as soon as it returns a reason. ``secrets`` are masked
    in the debug log and in errors, not in the returned output. Raises ToolNotFound, ProcessTimeout,
    ProcessAborted or ProcessFailed.
    """
    shown = _shown(argv, secrets)
    started = time.monotonic()
    proc = _start(
        argv,
        shown,
        stdin=subprocess.PIPE if input_text is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        inherit_env=inherit_env,
        cwd=cwd,
    )
    pending = [None if input_text is None else input_text.encode("utf-8")]

    def step(seconds: float) -> tuple[bytes, bytes]:
        data, pending[0] = pending[0], None  # input is sent once; a retry only reads on
        return proc.communicate(data, timeout=seconds)

    try:
        out, err = _await(step, timeout, watch)
    except BaseException as exc:
        _kill_group(proc)
        _, err = _drain(proc)
        _raise_typed(exc, shown, timeout, mask(_text(err), secrets), note="")
        raise
    stdout, stderr = _text(out), _text(err)
    _log_end(shown, proc.returncode, started)
    if check and proc.returncode != 0:
        raise ProcessFailed(shown, proc.returncode, mask(stderr, secrets))
    return Completed(tuple(shown), proc.returncode, stdout, stderr)


def stream(
    argv: Sequence[str],
    *,
    timeout: float,
    log: Path,
    env: Mapping[str, str] | None = None,
    inherit_env: bool = True,
    cwd: Path | str | None = None,
    secrets: Sequence[str] = (),
    watch: Watch | None = None,
) -> list[Line]:
    """Run a long command with its output (stdout and stderr as one) appended to ``log`` line by line,
    each stamped with the seconds since it started; return those lines, so callers can time phases.

    The same rules as :func:`run`; an error's message names ``log`` and quotes the output's last lines.
    """
    shown = _shown(argv, secrets)
    started = time.monotonic()
    lines: list[Line] = []
    note = f"; see {log}"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a", encoding="utf-8") as sink:
        sink.write(f"$ {shlex.join(shown)}\n")
        sink.flush()
        proc = _start(
            argv,
            shown,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            inherit_env=inherit_env,
            cwd=cwd,
        )
        assert proc.stdout is not None
        reader = threading.Thread(
            target=_pump, args=(proc.stdout, sink, lines, started, secrets), daemon=True
        )
        reader.start()
        try:
            code = _await(lambda seconds: proc.wait(timeout=seconds), timeout, watch)
        except BaseException as exc:
            _kill_group(proc)
            proc.wait()
            reader.join(timeout=DRAIN_TIMEOUT)
            _raise_typed(exc, shown, timeout, _last(lines), note=note)
            raise
        reader.join(timeout=DRAIN_TIMEOUT)
    _log_end(shown, code, started)
    if code != 0:
        raise ProcessFailed(shown, code, _last(lines), note=note)
    return lines


class _Overran(Exception):
    pass


class _Stopped(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason


def _shown(argv: Sequence[str], secrets: Sequence[str]) -> list[str]:
    check_argv(argv)
    shown = [mask(word, secrets) for word in argv]
    logger.debug("run %s", shlex.join(shown))
    return shown


def _start(
    argv: Sequence[str],
    shown: Sequence[str],
    *,
    stdin: int,
    stdout: int,
    stderr: int,
    env: Mapping[str, str] | None,
    inherit_env: bool,
    cwd: Path | str | None,
) -> subprocess.Popen[bytes]:
    environment = None
    if env is not None or not inherit_env:
        environment = {**(os.environ if inherit_env else {}), **(env or {})}
    try:
        return subprocess.Popen(
            list(argv),
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            env=environment,
            cwd=cwd,
            start_new_session=True,
        )
    except FileNotFoundError as err:
        if cwd is not None and str(err.filename) == str(cwd):
            raise  # the folder is missing, not the tool
        raise ToolNotFound(shown) from None


def _await(step: Callable[[float], T], timeout: float, watch: Watch | None) -> T:
    """``step(seconds)``'s answer, asked in slices so ``watch`` is heard; _Overran after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _Overran
        try:
            return step(min(left, WATCH_EVERY) if watch is not None else left)
        except subprocess.TimeoutExpired:
            pass
        if watch is not None and (reason := watch()) is not None:
            raise _Stopped(reason)


def _raise_typed(exc: BaseException, shown: Sequence[str], timeout: float, said: str, *, note: str) -> None:
    """The typed error for a command ended early; returns for anything else (Ctrl-C), to be re-raised."""
    if isinstance(exc, _Overran):
        logger.debug("%s killed after %g s", shown[0], timeout)
        raise ProcessTimeout(shown, timeout, said, note=note) from None
    if isinstance(exc, _Stopped):
        logger.debug("%s stopped: %s", shown[0], exc.reason)
        raise ProcessAborted(shown, exc.reason, said, note=note) from None


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    # The session's id is the leader's pid; the group outlives its leader while any member lives.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.kill()  # the leader at least, whatever became of its group (a no-op once it is reaped)


def _drain(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """What a killed command had printed; nothing if a process outside its group holds the pipes."""
    try:
        return proc.communicate(timeout=DRAIN_TIMEOUT)
    except (subprocess.TimeoutExpired, ValueError):
        proc.wait()
        return b"", b""


def _pump(
    source: IO[bytes], sink: IO[str], lines: list[Line], started: float, secrets: Sequence[str]
) -> None:
    for raw in source:
        line = mask(_text(raw).rstrip("\n"), secrets)
        at = time.monotonic() - started
        lines.append((at, line))
        sink.write(f"[{at:8.1f}] {line}\n")
        sink.flush()


def _last(lines: list[Line], count: int = 15) -> str:
    return "\n".join(line for _, line in lines[-count:])


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "replace")


def _log_end(shown: Sequence[str], code: int, started: float) -> None:
    logger.debug("%s exited %d after %.2f s", shown[0], code, time.monotonic() - started)
