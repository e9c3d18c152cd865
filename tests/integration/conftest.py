"""Fixtures of the integration tier: a vcsim of a module's own, for tests that change its inventory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pyVmomi import vim
from support.provisioning import NFS

from lab.vcsim import Vcsim
from provisioning.session import connect


@pytest.fixture(scope="module")
def site() -> Iterator[Vcsim]:
    """A lab vCenter for this module alone (the session's `vcsim` must not change)."""
    with Vcsim() as sim:
        assert sim.workdir is not None
        (sim.workdir / NFS).mkdir()
        yield sim


@pytest.fixture
def si(site: Vcsim) -> Iterator[vim.ServiceInstance]:
    """A logged-in session on the module's vcsim."""
    with connect(
        site.host,
        site.port,
        site.username,
        site.password,
        thumbprint_sha256=site.thumbprint_sha256,
        timeout=60,
    ) as instance:
        yield instance
