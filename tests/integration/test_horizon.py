"""The Horizon client against a fake Connection Server that checks every request with the published
OpenAPI schema (lab/specs/horizon-server-2512.openapi.json.gz); the vCenter ids come from vcsim."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.provisioning import pool_plan

from lab.horizon_fake import FakeConnectionServer
from lab.vcsim import CLUSTER, DATACENTER, Vcsim
from provisioning import session
from provisioning.certificate import pinned_context
from provisioning.horizon import HorizonClient, HorizonError, naming_pattern, pool_spec
from provisioning.live import read_state

pytestmark = pytest.mark.integration


@pytest.fixture
def fake(tmp_path: Path, vcsim: Vcsim) -> Iterator[FakeConnectionServer]:
    with FakeConnectionServer(tmp_path) as server:
        server.add_vcenter(vcsim.host)
        yield server


@pytest.fixture
def horizon(fake: FakeConnectionServer) -> Iterator[HorizonClient]:
    client = HorizonClient("127.0.0.1", fake.port, pinned_context(fake.thumbprint))
    client.login("admin", fake.password, "lab")
    yield client
    client.logout()


def _spec(vcsim: Vcsim, horizon: HorizonClient, **pool: Any) -> dict[str, Any]:
    plan = pool_plan("hz", count=50, naming="hz-###", folder="vm", **pool)
    with session.connect(
        vcsim.host, vcsim.port, vcsim.username, vcsim.password, thumbprint_sha256=vcsim.thumbprint_sha256
    ) as si:
        live = read_state(si, DATACENTER, CLUSTER)
    assert plan.pool is not None
    return pool_spec(plan.pool, live, horizon.vcenter_id(vcsim.host))


def test_an_instant_clone_pool_is_created_with_a_conforming_request(
    fake: FakeConnectionServer, horizon: HorizonClient, vcsim: Vcsim
) -> None:
    spec = _spec(vcsim, horizon)
    pool_id = horizon.create_desktop_pool(spec)
    assert fake.refused == []
    stored = fake.pools[pool_id]
    assert stored["source"] == "INSTANT_CLONE" and stored["user_assignment"] == "FLOATING"
    assert stored["pattern_naming_settings"]["naming_pattern"] == "hz-{n:fixed=3}"
    settings = stored["provisioning_settings"]
    assert settings["host_or_cluster_id"].startswith("domain-c") and settings["base_snapshot_id"].startswith(
        "snapshot-"
    )
    assert stored["storage_settings"]["datastores"][0]["datastore_id"].startswith("datastore-")
    assert ("POST", "/rest/inventory/v12/desktop-pools") in fake.requests
    with pytest.raises(HorizonError) as dup:
        horizon.create_desktop_pool(spec)
    assert dup.value.status == 409


def test_a_full_clone_persistent_pool(
    fake: FakeConnectionServer, horizon: HorizonClient, vcsim: Vcsim
) -> None:
    plan = pool_plan("hz", count=5, naming="full-##", folder="vm", persistence="persistent", clone="full")
    assert plan.pool is not None and naming_pattern(plan.pool) == "full-{n:fixed=2}"
    spec = _spec(vcsim, horizon, persistence="persistent", clone="full")
    spec |= {"source": "VIRTUAL_CENTER", "name": "hz-full"}
    horizon.create_desktop_pool(spec)
    assert fake.refused == []


def test_a_request_the_schema_refuses_is_caught(
    fake: FakeConnectionServer, horizon: HorizonClient, vcsim: Vcsim
) -> None:
    spec = _spec(vcsim, horizon, memory_mb=512)  # Horizon's compute profile needs at least 1024 MiB
    spec["user_asignment"] = "FLOATING"  # a misspelt field a real server would silently drop
    with pytest.raises(HorizonError) as refused:
        horizon.create_desktop_pool(spec)
    assert refused.value.status == 400
    [(method, path, problems)] = fake.refused
    assert (method, path) == ("POST", "/inventory/v12/desktop-pools")
    assert "$.provisioning_settings.compute_profile_ram_mb: 512 is below the minimum 1024" in problems
    assert "$: 'user_asignment' is not a property of this schema" in problems
    assert fake.pools == {}


def test_login_sends_the_password_as_the_schema_wants_and_a_string_is_refused(
    fake: FakeConnectionServer,
) -> None:
    client = HorizonClient("127.0.0.1", fake.port, pinned_context(fake.thumbprint))
    with pytest.raises(HorizonError) as refused:
        client.request(
            "POST", "/rest/login", {"username": "admin", "password": fake.password, "domain": "lab"}
        )
    assert refused.value.status == 400 and "$.password: expected array, got str" in str(refused.value)
    with pytest.raises(HorizonError) as anonymous:
        client.desktop_pools()
    assert anonymous.value.status == 401
    client.login("admin", fake.password, "lab")
    assert client.desktop_pools() == []
