"""The Horizon client against a fake Connection Server that checks every request with the published
OpenAPI schema (lab/specs/horizon-server-2512.openapi.json.gz); the vCenter ids come from vcsim."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.provisioning import login_for, pool_plan

from lab.horizon_fake import FakeConnectionServer
from lab.vcsim import CLUSTER, DATACENTER, Vcsim
from provisioning import apply as prov
from provisioning import session
from provisioning.certificate import pinned_context
from provisioning.destroy import destroy
from provisioning.errors import PlanError
from provisioning.horizon import HorizonClient, HorizonError, naming_pattern, pool_spec
from provisioning.live import read_state
from provisioning.plan import HorizonSpec
from provisioning.progress import Event, Options

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


def test_apply_hands_the_desktops_to_horizon_as_a_manual_pool_grows_it_and_destroy_removes_it(
    tmp_path: Path, site: Vcsim
) -> None:
    with FakeConnectionServer(tmp_path) as server:
        server.add_vcenter(site.host)
        horizon = {"endpoint": server.endpoint, "thumbprint_sha256": server.thumbprint, "username": "admin",
                   "domain": "lab", "password": server.password, "vcenter": site.host, "pool_name": "hz-manual"}  # fmt: skip
        plan = pool_plan("hzm", count=3, naming="hzm-##", folder="hzm", resource_pool=None)
        plan = plan.model_copy(update={"horizon": HorizonSpec.model_validate(horizon)})
        events: list[Event] = []
        report = prov.apply(login_for(site), plan, Options(on_event=events.append))
        assert not report.failed, report.failed
        assert server.refused == [], "every request conforms to the published schema"
        [made] = server.pools.values()
        with session.connect(
            site.host, site.port, site.username, site.password, thumbprint_sha256=site.thumbprint_sha256
        ) as si:
            live = read_state(si, DATACENTER, CLUSTER)
        moids = sorted(vm.moid for n in ("hzm-01", "hzm-02", "hzm-03") if (vm := live.vm(n)))
        assert (made["type"], made["source"], made["name"]) == ("MANUAL", "VIRTUAL_CENTER", "hz-manual")
        assert sorted(made["machines"]) == moids and len(moids) == 3
        assert [e.message for e in events if e.object == "horizon:hz-manual"] == [
            "Horizon pool hz-manual created with 3 desktops"
        ]

        again = prov.apply(login_for(site), plan)
        assert again.done == ["horizon:hz-manual"] and len(server.pools) == 1, "looked up, not made twice"
        grown = plan.model_copy(update={"pool": plan.pool.model_copy(update={"count": 5})})
        report = prov.apply(login_for(site), grown)
        assert not report.failed and len(made["machines"]) == 5, "the two new desktops added"

        # shrinking: the two last desktops leave the Horizon pool before their VMs are destroyed
        with session.connect(
            site.host, site.port, site.username, site.password, thumbprint_sha256=site.thumbprint_sha256
        ) as si:
            live = read_state(si, DATACENTER, CLUSTER)
        leaving = sorted(vm.moid for n in ("hzm-04", "hzm-05") if (vm := live.vm(n)))
        calls = len(server.requests)
        events = []
        report = prov.apply(login_for(site), plan, Options(on_event=events.append))
        assert not report.failed and sorted(report.done) == ["horizon:hz-manual", "hzm-04", "hzm-05"], report
        assert sorted(made["machines"]) == moids, "the three kept desktops only"
        removal = f"/rest/inventory/v1/desktop-pools/{made['id']}/action/remove-machines"
        assert ("POST", removal) in server.requests[calls:] and server.refused == []
        order = [e.object for e in events if e.object in ("horizon:hz-manual", "hzm-04")]
        assert order[0] == "horizon:hz-manual", "out of Horizon before the VM is destroyed"
        assert "2 desktops removed" in next(e.message for e in events if e.object == "horizon:hz-manual")
        assert len(leaving) == 2 and not set(leaving) & set(made["machines"])

        report = destroy(
            login_for(site), "hzm", DATACENTER, CLUSTER, horizon_pool=(grown.horizon, "hz-manual")
        )
        assert not report.failed and server.pools == {} and server.refused == []


def test_a_horizon_that_refuses_fails_the_horizon_step_only_and_the_next_apply_finishes(
    tmp_path: Path, site: Vcsim
) -> None:
    with FakeConnectionServer(tmp_path) as server:
        horizon = {"endpoint": server.endpoint, "thumbprint_sha256": server.thumbprint, "username": "admin",
                   "domain": "lab", "password": server.password, "vcenter": site.host}  # fmt: skip
        plan = pool_plan("hzf", count=2, naming="hzf-##", folder="hzf", resource_pool=None)
        plan = plan.model_copy(update={"horizon": HorizonSpec.model_validate(horizon)})
        report = prov.apply(login_for(site), plan)  # Horizon does not know this vCenter yet
        assert list(report.failed) == ["horizon:pool-a"] and "no vCenter" in report.failed["horizon:pool-a"]
        assert sorted(d for d in report.done if d.startswith("hzf-")) == ["hzf-01", "hzf-02"]
        server.add_vcenter(site.host)
        report = prov.apply(login_for(site), plan)
        assert not report.failed and len(server.pools) == 1
        destroy(login_for(site), "hzf", DATACENTER, CLUSTER, horizon_pool=(plan.horizon, "pool-a"))
        assert server.pools == {}


def test_a_plan_with_horizon_but_no_password_is_refused_before_any_change(site: Vcsim) -> None:
    horizon = {"endpoint": "127.0.0.1:9", "username": "admin", "domain": "lab", "vcenter": site.host}
    plan = pool_plan("hzp", count=1, naming="hzp-##", folder="hzp", resource_pool=None)
    plan = plan.model_copy(update={"horizon": HorizonSpec.model_validate(horizon)})
    with pytest.raises(PlanError, match="administrator's password") as refused:
        prov.apply(login_for(site), plan)
    assert refused.value.field == "horizon.password"
