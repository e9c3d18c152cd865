"""One Playwright spec run from pytest: the list report goes to the terminal as it runs, and each failed
test's own error comes back for the assertion's message, so a log that keeps only its tail (CI's) still
says which step failed and how."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

WEB = Path(__file__).resolve().parents[2] / "web"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Enough of an error to name the locator, what was expected and the call log's last lines.
ERROR_CHARS = 1500


@dataclass(frozen=True)
class SpecRun:
    returncode: int
    failures: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return self.returncode == 0

    def why(self, what: str) -> str:
        """The assertion's message: `what` (that it failed), then each failed test with its error."""
        if not self.failures:
            return f"{what} (exit {self.returncode}; Playwright's output is above)"
        return f"{what}:\n" + "\n\n".join(self.failures)


def run(
    spec: str, env: dict[str, str], capsys: pytest.CaptureFixture[str], output: Path | None = None
) -> SpecRun:
    """`npx playwright test spec` in web/ with `env`; screenshots and traces under `output` (by default
    web/test-results/<spec's name>), the JSON report beside them."""
    npx = shutil.which("npx")
    assert npx, "npx is missing"
    output = output or WEB / "test-results" / spec.removesuffix(".spec.ts")
    report = output.with_name(output.name + ".json")
    report.unlink(missing_ok=True)
    argv = [npx, "--no-install", "playwright", "test", spec, "--reporter=list,json", f"--output={output}"]
    # Playwright's own report goes straight to the terminal, pass or fail.
    with capsys.disabled():
        done = subprocess.run(
            argv, cwd=WEB, env={**env, "PLAYWRIGHT_JSON_OUTPUT_FILE": str(report)}, timeout=600, check=False
        )
    return SpecRun(done.returncode, failures(report) if done.returncode else ())


def failures(report: Path) -> tuple[str, ...]:
    """Each test of the JSON report that did not pass or skip, as `title: error`; the run's own errors
    (a spec that does not load) too. Empty when there is no report to read."""
    try:
        data = json.loads(report.read_text())
    except (OSError, ValueError):
        return ()
    found = [_plain(e.get("message", "")) for e in data.get("errors", [])]
    for suite in data.get("suites", []):
        found += _failed(suite, [])
    return tuple(found)


def _failed(suite: dict[str, Any], titles: list[str]) -> list[str]:
    here = [*titles, suite["title"]] if suite.get("title") else titles
    found = []
    for spec in suite.get("specs", []):
        for test in spec.get("tests", []):
            for result in test.get("results", []):
                if result.get("status") in ("passed", "skipped"):
                    continue
                errors = result.get("errors") or [{"message": f"status {result.get('status')}"}]
                found.append(f"{' > '.join([*here, spec['title']])}: {_plain(errors[0].get('message', ''))}")
    for child in suite.get("suites", []):
        found += _failed(child, here)
    return found


def _plain(message: str) -> str:
    text = ANSI.sub("", message).strip()
    return text if len(text) <= ERROR_CHARS else text[:ERROR_CHARS] + " …"


def base_env(url: str, password: str, **extra: str) -> dict[str, str]:
    """This process's environment with the api's address and the administrator's login, for the specs."""
    return {
        **os.environ,
        "ARCVSA_URL": url,
        "ARCVSA_ADMIN_USER": "admin",
        "ARCVSA_ADMIN_PASSWORD": password,
        **extra,
    }
