"""How the image build runs its tools: argv lists, a timeout, a watch, a log, one error type."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path


class BuildError(RuntimeError):
    """A build step failed; the message names the command and where its log is."""


class Aborted(BuildError):
    """``watch`` saw the command fail before it knew (a build VM's kernel panicked): it was killed."""


# How often ``watch`` is asked while a command runs.
WATCH_EVERY = 2.0


def run(
    argv: list[str],
    *,
    timeout: float,
    log: Path,
    env: dict[str, str] | None = None,
    watch: Callable[[], str | None] | None = None,
) -> list[tuple[float, str]]:
    """Run argv with its output appended to ``log`` (each line stamped); kill its group on timeout,
    or as soon as ``watch`` (asked every few seconds) returns a reason (raised as Aborted).

    Returns the (seconds since start, line) pairs, so callers can time phases inside a long command.
    """
    started = time.monotonic()
    lines: list[tuple[float, str]] = []
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a", encoding="utf-8") as sink:
        sink.write(f"$ {argv}\n")
        sink.flush()
        proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
        assert proc.stdout is not None
        stdout = proc.stdout

        def pump() -> None:
            for raw in stdout:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                at = time.monotonic() - started
                lines.append((at, line))
                sink.write(f"[{at:8.1f}] {line}\n")
                sink.flush()

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            code = wait(proc, timeout, watch)
        except BuildError as exc:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            reader.join(timeout=10)
            raise type(exc)(f"{argv[0]} {exc}; see {log}") from None
        reader.join(timeout=10)
    if code != 0:
        tail = "\n".join(line for _, line in lines[-15:])
        raise BuildError(f"{argv} exited {code}; see {log}\n{tail}")
    return lines


def wait(proc: subprocess.Popen[bytes], timeout: float, watch: Callable[[], str | None] | None) -> int:
    """``proc``'s exit code; BuildError after ``timeout`` s, Aborted as soon as ``watch`` gives a reason."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise BuildError(f"timed out after {timeout:.0f} s")
        try:
            return proc.wait(timeout=min(left, WATCH_EVERY) if watch is not None else left)
        except subprocess.TimeoutExpired:
            pass
        if watch is not None and (reason := watch()) is not None:
            raise Aborted(f"stopped: {reason}")


def capture(argv: list[str], *, timeout: float) -> str:
    """Run a short command and return its stdout; raise BuildError with its stderr on failure."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise BuildError(f"{argv} timed out after {timeout:.0f} s") from None
    if done.returncode != 0:
        raise BuildError(f"{argv} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout
