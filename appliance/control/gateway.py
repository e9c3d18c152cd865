"""The one way the control package runs tools: an argv list, a timeout, typed errors.

No shell is ever involved. A command that overruns its timeout is killed with its whole process group
(zpool/zfs can hang on a stalled LUN; their helpers must not linger). A non-zero exit is translated once,
by the caller's rules, into a domain error; anything unmatched stays a CommandFailed with the stderr tail.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

import process
from appliance.control.errors import CommandFailed, CommandTimeout, ControlError, ToolMissing

DEFAULT_TIMEOUT = 60.0
# The stderr patterns callers translate by are the C locale's.
C_LOCALE = {"LC_ALL": "C"}


# What a finished command printed, and its exit code: the runner's own record, under the name the
# control package and its recorded fakes know.
Result = process.Completed


class Runner(Protocol):
    """Runs one argv; returns its Result whatever the exit code; raises CommandTimeout when killed."""

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result: ...


class SubprocessRunner:
    """Runs argv on this machine through the project's process runner (process.run): its own session,
    the whole group killed on timeout, every exit code returned for the Gateway to judge."""

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        """See :class:`Runner`."""
        try:
            done = process.run(argv, timeout=timeout, input_text=input_text, env=C_LOCALE, check=False)
        except process.ToolNotFound:
            raise ToolMissing(f"{argv[0]} is not installed on this machine") from None
        except process.ProcessTimeout as err:
            raise CommandTimeout(argv, timeout, err.stderr) from None
        return Result(tuple(argv), done.exit_code, done.stdout, done.stderr)


# (pattern in stderr, error class): the first match wins; see Gateway.run.
Rules = Sequence[tuple[str, type[ControlError]]]


class Gateway:
    """Checks argv, runs it through a Runner, translates failures by the caller's rules."""

    def __init__(self, runner: Runner | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.runner = runner or SubprocessRunner()
        self.timeout = timeout

    def query(
        self,
        argv: Sequence[str],
        *,
        rules: Rules = (),
        timeout: float | None = None,
        ok_codes: tuple[int, ...] = (0,),
    ) -> Result:
        """:meth:`run` for a command that changes nothing (the state poller's reads, a check before a
        change): the same errors, without an input."""
        return self._execute(argv, rules, timeout, None, ok_codes)

    def run(
        self,
        argv: Sequence[str],
        *,
        rules: Rules = (),
        timeout: float | None = None,
        input_text: str | None = None,
        ok_codes: tuple[int, ...] = (0,),
    ) -> Result:
        """Run argv; return its Result when its exit code is in ``ok_codes``, else raise a typed error.
        No secret goes on an argv here (CHAP is written through configfs, appliance.control.lio)."""
        return self._execute(argv, rules, timeout, input_text, ok_codes)

    def _execute(
        self,
        argv: Sequence[str],
        rules: Rules,
        timeout: float | None,
        input_text: str | None,
        ok_codes: tuple[int, ...],
    ) -> Result:
        process.check_argv(argv)
        result = self.runner.execute(argv, timeout=timeout or self.timeout, input_text=input_text)
        if result.exit_code in ok_codes:
            return result
        raise translate(result, rules)


def translate(result: Result, rules: Rules) -> ControlError:
    """The domain error for a failed command: the first rule whose pattern is in its stderr, told in the
    line that matched (a tool's advice often follows the reason: "use the form 'zpool import ...'")."""
    for pattern, error in rules:
        if re.search(pattern, result.stderr, re.IGNORECASE):
            lines = result.stderr.strip().splitlines() or [pattern]
            return error(next((ln for ln in lines if re.search(pattern, ln, re.IGNORECASE)), lines[-1]))
    return CommandFailed(result.argv, result.exit_code, result.stderr)
