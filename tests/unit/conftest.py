from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from support.api import client_for, logged_in, make_settings
from support.notify_servers import rsyslog  # noqa: F401 - the notify tests' shared fixture
from support.signing import signing_cert, signing_key  # noqa: F401 - the OVA signing tests' key


@pytest.fixture
def anon(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(make_settings(tmp_path)) as c:
        yield c


@pytest.fixture
def admin(anon: TestClient) -> TestClient:
    return logged_in(anon)
