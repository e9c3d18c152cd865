"""`make help` lists every target declared .PHONY in the Makefile and mk/*.mk, each with one line."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HELP_LINE = re.compile(r"^## ([A-Za-z0-9_.-]+): (\S.*)$")
TARGET = re.compile(r"^([A-Za-z0-9_-][A-Za-z0-9_.-]*)\s*:(?!=)")


def _makefiles() -> list[Path]:
    return [ROOT / "Makefile", *sorted((ROOT / "mk").glob("*.mk"))]


def _phony(text: str) -> set[str]:
    names: set[str] = set()
    for line in text.splitlines():
        if line.startswith(".PHONY:"):
            names.update(line.removeprefix(".PHONY:").split())
    return names


def _help_lines(text: str) -> dict[str, str]:
    return {m[1]: m[2] for m in map(HELP_LINE.match, text.splitlines()) if m}


def _defined(text: str) -> set[str]:
    return {m[1] for m in map(TARGET.match, text.splitlines()) if m}


def test_every_phony_target_has_a_help_line() -> None:
    missing = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in _makefiles()
        for name in _phony(path.read_text()) - set(_help_lines(path.read_text()))
    }
    assert not missing, f"add a `## target: description` line above each of: {sorted(missing)}"


def test_every_help_line_names_a_target_defined_in_its_file() -> None:
    stale = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in _makefiles()
        for name in set(_help_lines(path.read_text())) - _defined(path.read_text())
    }
    assert not stale, f"help lines for targets that do not exist: {sorted(stale)}"


def test_the_parsers_see_a_missing_line() -> None:
    text = ".PHONY: one two\n## one: does one thing\none:\n\ttrue\ntwo:\n\ttrue\n"
    assert _phony(text) - set(_help_lines(text)) == {"two"}
    assert _defined(text) == {"one", "two"}
    assert _defined("X := 1\nY ?= 2\n") == set()


def test_make_help_prints_one_line_per_target() -> None:
    make = shutil.which("make")
    assert make, "make is not installed"
    out = subprocess.run(
        [make, "--no-print-directory", "-s", "help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    printed = [line.split()[1] for line in out.stdout.splitlines() if line.strip()]
    expected = [name for path in _makefiles() for name in _help_lines(path.read_text())]
    assert sorted(printed) == sorted(expected)
    assert len(printed) == len(set(printed)), "a target is described twice"
    for name in ("help", "demo", "test", "check", "bench"):
        assert name in printed
