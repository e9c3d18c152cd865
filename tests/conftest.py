"""Fixtures shared by every test tier. Keep this small: tier-specific fixtures live beside their tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lab.vcsim import Vcsim


@pytest.fixture(scope="session")
def vcsim() -> Iterator[Vcsim]:
    """One lab vCenter (lab.vcsim) for the whole run; tests must not change its inventory."""
    with Vcsim() as sim:
        yield sim
