"""A terminal session driven as a person would: wait for each prompt, then answer it.

For the logins that insist on a terminal (a password change at the first login): ``ssh -tt`` gives
the remote side one while this side reads and writes plain pipes. An answer is written only once its
prompt has been read, since a terminal may drop what was typed before it turned echo off.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import time
from collections.abc import Sequence


class SessionFailed(AssertionError):
    """A prompt never came, or the session ended before it: what was read so far says why."""


def converse(argv: Sequence[str], steps: Sequence[tuple[str, str]], timeout: float) -> str:
    """Run ``argv``; for each (prompt regex, answer) wait for the prompt and send the answer and a
    newline; then read to the end. Returns everything read (answers are not echoed by a password
    prompt, so none of them is in it). SessionFailed on a missing prompt or the deadline."""
    deadline = time.monotonic() + timeout
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdin is not None and proc.stdout is not None
    said, seen = b"", 0
    try:
        for prompt, answer in steps:
            pattern = re.compile(prompt.encode())
            while not (found := pattern.search(said, seen)):
                chunk = _read(proc, deadline)
                if chunk is None:
                    raise SessionFailed(f"no {prompt!r} before the end")
                said += chunk
            seen = found.end()
            proc.stdin.write(answer.encode() + b"\n")
            proc.stdin.flush()
        while (chunk := _read(proc, deadline)) is not None:
            said += chunk
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise SessionFailed(
            f"still running at the deadline; read:\n{said.decode(errors='replace')}"
        ) from None
    except SessionFailed as exc:
        raise SessionFailed(f"{exc}; read:\n{said.decode(errors='replace')}") from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return said.decode(errors="replace")


def _read(proc: subprocess.Popen[bytes], deadline: float) -> bytes | None:
    """The next bytes, or None at the end of the output; SessionFailed past the deadline."""
    assert proc.stdout is not None
    left = deadline - time.monotonic()
    if left <= 0:
        raise SessionFailed("deadline passed")
    ready, _, _ = select.select([proc.stdout], [], [], left)
    if not ready:
        raise SessionFailed("deadline passed")
    chunk = os.read(proc.stdout.fileno(), 4096)
    return chunk or None
