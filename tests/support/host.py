"""Host tools in lab tests (libnfs, libiscsi): argv only, and a failure is an answer, not an exception."""

from __future__ import annotations

import os
import subprocess


def host_tool(argv: list[str], *, env: dict[str, str] | None = None, timeout: float = 120) -> tuple[int, str]:
    """(exit code, stdout + stderr) of a host tool; argv only, a failure is an answer here."""
    proc = subprocess.run(
        argv,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    return proc.returncode, proc.stdout + proc.stderr
