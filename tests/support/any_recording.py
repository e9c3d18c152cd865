"""The appliance layer for the security suite: every recorded tool answer at once, strict about the rest.

The fuzzer sends requests in no particular order, so no one recording's sequence fits. This runner answers
an argv from any recording (each recorded answer in turn), and raises on an argv no recording has: a tool
the api would find missing on this machine, which the api must answer with its typed gateway error
(``system_fault``), never a 500. ``calls`` and ``misses`` tell a test which commands a request ran.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from fixtures.appliance.replay import RECORDINGS, load

from appliance.control.errors import ToolMissing
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway, Result


class NotRecorded(ToolMissing):
    """No recording answers this argv (to the api: a tool this machine does not have)."""


class AnyRecordingRunner:
    """A Runner answering each argv with the recorded answers of that argv, in turn, from every recording."""

    def __init__(self, recordings: list[dict[str, Any]], first: dict[str, Any] | None = None) -> None:
        """``first``: a recording whose answers alone serve the argvs it holds, so that one machine's
        state answers (its pools, then their disks' paths) and the others only fill what it lacks."""
        answers: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for entry in first["commands"] if first else []:
            answers.setdefault(tuple(entry["argv"]), []).append(entry)
        own = set(answers)
        for recording in recordings:
            for entry in recording["commands"]:
                if tuple(entry["argv"]) not in own:
                    answers.setdefault(tuple(entry["argv"]), []).append(entry)
        self._answers: dict[tuple[str, ...], Iterator[dict[str, Any]]] = {
            argv: itertools.cycle(entries) for argv, entries in answers.items()
        }
        self.calls: list[list[str]] = []
        self.misses: list[list[str]] = []

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        """The next recorded answer of exactly this argv; NotRecorded when there is none."""
        wanted = tuple(argv)
        self.calls.append(list(wanted))
        answers = self._answers.get(wanted)
        if answers is None:
            self.misses.append(list(wanted))
            raise NotRecorded(f"{wanted[0]}: no recorded answer for this command")
        entry = next(answers)
        return Result(wanted, entry["exit_code"], entry["stdout"], entry["stderr"])


def every_recording() -> list[dict[str, Any]]:
    """Every recording under tests/fixtures/appliance/recordings."""
    return [load(path.stem) for path in sorted(RECORDINGS.glob("*.json"))]


def any_recording(root: Path) -> tuple[Gateway, LocalFiles, AnyRecordingRunner]:
    """A Gateway on every recording, and Files under ``root`` seeded with every file they read."""
    recordings = every_recording()
    files = LocalFiles(root)
    for recording in recordings:
        for path, text in recording.get("reads", {}).items():
            if text is not None:
                files.write(path, text)
    runner = AnyRecordingRunner(recordings)
    return Gateway(runner), files, runner
