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


def test_login_add_vcenter_and_see_its_hosts(
    vcsim: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dist = WEB / "dist"
    assert (dist / "index.html").exists(), "web/dist is missing: run `make web` first"
    npx = shutil.which("npx")
    assert npx, "npx is missing"
    with ApiServer(tmp_path / "data", PASSWORD, web_dist=dist) as api:
        env = {
            **os.environ,
            "ARCVSA_URL": api.url,
            "ARCVSA_ADMIN_USER": "admin",
            "ARCVSA_ADMIN_PASSWORD": PASSWORD,
            "VCSIM_HOST": vcsim.host,
            "VCSIM_PORT": str(vcsim.port),
            "VCSIM_USER": vcsim.username,
            "VCSIM_PASSWORD": vcsim.password,
            "VCSIM_THUMBPRINT": vcsim.thumbprint_sha256,
        }
        # Playwright's own report goes straight to the terminal, pass or fail.
        with capsys.disabled():
            run = subprocess.run(
                [npx, "--no-install", "playwright", "test", "--reporter=list"],
                cwd=WEB,
                env=env,
                timeout=600,
                check=False,
            )
    assert run.returncode == 0, "the Playwright journey failed (its output is above)"
