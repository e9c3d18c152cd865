"""The security suite's fixtures: the api on the recorded appliance answers, and the figures it counts.

Each test adds what it measured to ``tally`` (a section per check); at the end of the run the sections
are written to ``$ARCVSA_SECURITY_DIR/unit.json`` (default var/security; ``unit-<worker>.json`` per
pytest-xdist worker), which ``python -m security.report`` merges and turns into the table `make
security` prints. A figure is what a test saw, never a constant.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.security_kit import Api, Tally

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def tally(request: pytest.FixtureRequest) -> Iterator[Tally]:
    t = Tally()
    yield t
    out = Path(os.environ.get("ARCVSA_SECURITY_DIR", REPO / "var" / "security"))
    out.mkdir(parents=True, exist_ok=True)
    failed = request.session.testsfailed
    doc = {"tests_failed": failed, "sections": t.sections}
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    name = f"unit-{worker}.json" if worker else "unit.json"
    (out / name).write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")


@pytest.fixture
def api(tmp_path: Path) -> Api:
    return Api(tmp_path / "data", tmp_path / "root", vcenter_timeout=1.0)
