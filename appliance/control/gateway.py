"""The one way the control package runs tools: an argv list, a timeout, typed errors.

No shell is ever involved. A command that overruns its timeout is killed with its whole process group
(zpool/zfs can hang on a stalled LUN; their helpers must not linger). A non-zero exit is translated once,
by the caller's rules, into a domain error; anything unmatched stays a CommandFailed with the stderr tail.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from appliance.control.cgroup import Leaf
from appliance.control.errors import CommandFailed, CommandTimeout, ControlError, ToolMissing
from appliance.control.readcache import ReadCache, WouldWait, refreshing, waiting_refused

DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True)
class Result:
    """What a finished command printed, and its exit code."""

    argv: tuple[str, ...]
    exit_code: int
    stdout: str
    stderr: str


class Runner(Protocol):
    """Runs one argv; returns its Result whatever the exit code; raises CommandTimeout when killed."""

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result: ...


class SubprocessRunner:
    """Runs argv on this machine in its own session, so a timeout can kill the whole group.

    With ``refreshes``, a command run by a background refresh of shared reads moves to that cgroup as it
    starts (appliance.control.cgroup: its CPU then leaves the api's own quota alone).
    """

    def __init__(self, refreshes: Leaf | None = None) -> None:
        self.refreshes = refreshes

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        """See :class:`Runner`."""
        try:
            proc = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE if input_text is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
                env={**os.environ, "LC_ALL": "C"},  # stderr patterns below are the C locale's
            )
        except FileNotFoundError:
            raise ToolMissing(f"{argv[0]} is not installed on this machine") from None
        if self.refreshes is not None and refreshing():
            self.refreshes.adopt(proc.pid)
        try:
            stdout, stderr = proc.communicate(input=input_text, timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, stderr = proc.communicate()
            raise CommandTimeout(argv, timeout, stderr) from None
        return Result(tuple(argv), proc.returncode, stdout, stderr)


# (pattern in stderr, error class): the first match wins; see Gateway.run.
Rules = Sequence[tuple[str, type[ControlError]]]


class Gateway:
    """Checks argv, runs it through a Runner, translates failures by the caller's rules."""

    def __init__(
        self,
        runner: Runner | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        reads_fresh_for: float = 0.0,
        reads_stale_for: float = 0.0,
    ) -> None:
        self.runner = runner or SubprocessRunner()
        self.timeout = timeout
        self.reads = ReadCache(reads_fresh_for, stale_for=reads_stale_for)

    def read(
        self,
        argv: Sequence[str],
        *,
        rules: Rules = (),
        timeout: float | None = None,
        ok_codes: tuple[int, ...] = (0,),
    ) -> Result:
        """:meth:`run` for a command that changes nothing: its answer is shared (see readcache)."""
        key = (tuple(argv), tuple(rules), ok_codes)
        return self.reads.get(key, lambda: self.query(argv, rules=rules, timeout=timeout, ok_codes=ok_codes))

    def query(
        self,
        argv: Sequence[str],
        *,
        rules: Rules = (),
        timeout: float | None = None,
        ok_codes: tuple[int, ...] = (0,),
    ) -> Result:
        """:meth:`run` for a command that changes nothing but must answer afresh (an interval of
        ``zpool iostat``, the disks a pool is about to be made of): not shared, and unlike ``run`` it
        leaves the shared answers alone (the metric sampler's every 10 s would otherwise end them all)."""
        return self._execute(argv, rules, timeout, None, ok_codes, ())

    def run(
        self,
        argv: Sequence[str],
        *,
        rules: Rules = (),
        timeout: float | None = None,
        input_text: str | None = None,
        ok_codes: tuple[int, ...] = (0,),
        secrets: Sequence[str] = (),
    ) -> Result:
        """Run argv; return its Result when its exit code is in ``ok_codes``, else raise a typed error.

        ``secrets`` are masked in the error (argv and stderr), which ends up in logs and api answers.
        Shared read answers end before and after: the command may change what they said.
        """
        if waiting_refused():  # before the shared answers end: nothing runs here, nothing changes
            raise WouldWait(argv)
        self.reads.invalidate()
        try:
            return self._execute(argv, rules, timeout, input_text, ok_codes, secrets)
        finally:
            self.reads.invalidate()

    def _execute(
        self,
        argv: Sequence[str],
        rules: Rules,
        timeout: float | None,
        input_text: str | None,
        ok_codes: tuple[int, ...],
        secrets: Sequence[str],
    ) -> Result:
        if isinstance(argv, str) or not argv or not all(isinstance(a, str) for a in argv):
            raise TypeError(f"argv must be a non-empty list of strings, not {argv!r}")
        if any("\0" in a for a in argv):
            raise ValueError("argv contains a NUL byte")
        if waiting_refused():
            raise WouldWait(argv)
        try:
            result = self.runner.execute(argv, timeout=timeout or self.timeout, input_text=input_text)
        except CommandTimeout as err:
            raise CommandTimeout(_mask(argv, secrets), err.timeout, _mask([err.stderr], secrets)[0]) from None
        if result.exit_code in ok_codes:
            return result
        masked = Result(
            tuple(_mask(argv, secrets)), result.exit_code, result.stdout, _mask([result.stderr], secrets)[0]
        )
        raise translate(masked, rules)


def _mask(words: Sequence[str], secrets: Sequence[str]) -> list[str]:
    out = list(words)
    for secret in secrets:
        if secret:
            out = [w.replace(secret, "***") for w in out]
    return out


def translate(result: Result, rules: Rules) -> ControlError:
    """The domain error for a failed command: the first rule whose pattern is in its stderr, told in the
    line that matched (a tool's advice often follows the reason: "use the form 'zpool import ...'")."""
    for pattern, error in rules:
        if re.search(pattern, result.stderr, re.IGNORECASE):
            lines = result.stderr.strip().splitlines() or [pattern]
            return error(next((ln for ln in lines if re.search(pattern, ln, re.IGNORECASE)), lines[-1]))
    return CommandFailed(result.argv, result.exit_code, result.stderr)
