"""Host tools in lab tests (libnfs, libiscsi): argv only, and a failure is an answer, not an exception."""

from __future__ import annotations

import os
import subprocess


def host_tool(
    argv: list[str], *, env: dict[str, str] | None = None, timeout: float = 120, input_text: str | None = None
) -> tuple[int, str]:
    """(exit code, stdout + stderr) of a host tool; argv only, a failure is an answer here. ``input_text``
    is its stdin (else none)."""
    proc = subprocess.run(
        argv,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        input=input_text,
        stdin=subprocess.DEVNULL if input_text is None else None,
    )
    return proc.returncode, proc.stdout + proc.stderr
