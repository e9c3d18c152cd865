"""The browser journey: Playwright drives Debian's headless Chromium against the real api and vcsim.

The journey itself is in tests/e2e/*.spec.ts; this starts the stack it needs and runs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from lab.stack import ApiServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
PASSWORD = "e2e-admin-password"


def _playwright(spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: dict[str, str]) -> int:
    """Run one spec against a fresh api serving web/dist; each spec keeps its own output folder."""
    dist = WEB / "dist"
    assert (dist / "index.html").exists(), "web/dist is missing: run `make web` first"
    npx = shutil.which("npx")
    assert npx, "npx is missing"
    output = WEB / "test-results" / spec.removesuffix(".spec.ts")
    with ApiServer(tmp_path / "data", PASSWORD, web_dist=dist) as api:
        env = {
            **os.environ,
            "ARCVSA_URL": api.url,
            "ARCVSA_ADMIN_USER": "admin",
            "ARCVSA_ADMIN_PASSWORD": PASSWORD,
            **extra,
        }
        # Playwright's own report goes straight to the terminal, pass or fail.
        with capsys.disabled():
            argv = [npx, "--no-install", "playwright", "test", spec, "--reporter=list", f"--output={output}"]
            run = subprocess.run(argv, cwd=WEB, env=env, timeout=600, check=False)
    return run.returncode


def test_login_add_vcenter_and_see_its_hosts(
    vcsim: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vc = {
        "VCSIM_HOST": vcsim.host,
        "VCSIM_PORT": str(vcsim.port),
        "VCSIM_USER": vcsim.username,
        "VCSIM_PASSWORD": vcsim.password,
        "VCSIM_THUMBPRINT": vcsim.thumbprint_sha256,
    }
    code = _playwright("connect-vcenter.spec.ts", tmp_path, capsys, vc)
    assert code == 0, "the Playwright journey failed (its output is above)"


def test_storage_pages_without_an_appliance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """storage.spec.ts against an api on this machine, which has no ZFS: errors and empty states must be honest."""
    # The lab mode runs from make lab-test against the appliance (tests/e2e/README.md).
    code = _playwright("storage.spec.ts", tmp_path, capsys, {"ARCVSA_STORAGE_LAB": "0"})
    assert code == 0, "the Playwright storage pages failed (their output is above)"
