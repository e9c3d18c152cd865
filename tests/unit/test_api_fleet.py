"""/api/deployments/{id}/inventory and /appliances: a deployment as it is now, read-only.

The inventory against a vcsim of this module's own (a pool applied through the api, then shrunk in the
plan); the appliances against real arcvsa apis served over TLS on the strict replay of the 'fleet'
recording, next to one that accepts connections and never answers and one never pinned.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import fleet_flows
from support.api import client_for, logged_in, make_settings
from support.appliance_server import replayed_appliances

from api.fleet import service
from lab.vcsim import CLUSTER, DATACENTER, DATASTORES, GOLDEN_SNAPSHOT, GOLDEN_VM, Vcsim
from provisioning.appliance_api import ApplianceApi

POOL = {
    "name": "pool-f", "count": 3, "naming": "fl-##", "folder": "fleet-f", "golden_vm": GOLDEN_VM,
    "snapshot": GOLDEN_SNAPSHOT, "datastore": DATASTORES[0], "memory_mb": 256, "vcpus": 1,
}  # fmt: skip


@pytest.fixture(scope="module")
def site() -> Iterator[Vcsim]:
    """A vcsim of this module's own: applying a plan changes its inventory."""
    with Vcsim() as sim:
        yield sim


@pytest.fixture
def admin(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(make_settings(tmp_path / "api")) as c:
        yield logged_in(c)


def _deployment(admin: TestClient, site: Vcsim, **plan: Any) -> int:
    vc = {"name": "vc", "host": site.host, "port": site.port, "username": site.username,
          "password": site.password, "thumbprint_sha256": site.thumbprint_sha256}  # fmt: skip
    r = admin.post("/api/vcenters", json=vc)
    assert r.status_code == 201, r.text
    body = {"name": "fleet-a", "datacenter": DATACENTER, "cluster": CLUSTER, **plan}
    r = admin.post("/api/deployments", json={"vcenter_id": r.json()["id"], "plan": body})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def test_inventory_counts_the_desktops_present_against_the_plan_and_lists_the_teardown(
    admin: TestClient, site: Vcsim
) -> None:
    dep = _deployment(admin, site, pool=POOL)
    before = admin.get(f"/api/deployments/{dep}/inventory").json()
    assert (before["planned"], before["present"], before["desktops"], before["teardown"]) == (3, 0, [], [])

    job = admin.post(f"/api/deployments/{dep}/apply").json()
    assert admin.app.state.jobs.wait(job["id"], 60)  # type: ignore[attr-defined]
    assert admin.get(f"/api/jobs/{job['id']}").json()["state"] == "succeeded"
    after = admin.get(f"/api/deployments/{dep}/inventory").json()
    assert (after["planned"], after["present"], after["current"], after["powered_on"]) == (3, 3, 3, 3)
    assert [d["name"] for d in after["desktops"]] == ["fl-01", "fl-02", "fl-03"]
    assert {d["source"] for d in after["desktops"]} == {f"{GOLDEN_VM}@{GOLDEN_SNAPSHOT}"}
    assert [(a["op"], a["kind"], a["name"]) for a in after["teardown"]] == [
        ("delete", "desktop", "fl-01"), ("delete", "desktop", "fl-02"), ("delete", "desktop", "fl-03"),
        ("delete", "folder", "fleet-f"),
    ]  # fmt: skip

    plan = admin.get(f"/api/deployments/{dep}").json()["plan"]
    plan["pool"]["count"] = 2
    assert admin.put(f"/api/deployments/{dep}", json={"plan": plan}).status_code == 200
    shrunk = admin.get(f"/api/deployments/{dep}/inventory").json()
    assert (shrunk["planned"], shrunk["present"], len(shrunk["desktops"])) == (2, 2, 3), (
        "the third desktop is still there, no longer planned"
    )
    assert admin.get("/api/deployments/999/inventory").status_code == 404


def _appliance(name: str, host: str, endpoint: str, thumbprint: str | None) -> dict[str, Any]:
    return {"host": host, "name": name, "api_endpoint": endpoint, "api_thumbprint_sha256": thumbprint}


def test_appliances_report_health_version_pool_and_alerts_and_a_dead_one_does_not_stall(
    admin: TestClient, site: Vcsim, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Short enough that a stall would show; long enough for a replayed appliance's login (argon2) on a
    # machine whose two cores run other tests too.
    monkeypatch.setattr(service, "PROBE_TIMEOUT", 3.0)
    silent = socket.create_server(("127.0.0.1", 0))  # accepts (backlog), never speaks TLS
    with silent, replayed_appliances(tmp_path / "fleet", 2, "fleet", fleet_flows.PASSWORD) as served:
        appliances = [
            _appliance(f"vsa-{i}", f"DC0_C0_H{i}", s.endpoint, s.thumbprint)
            for i, (s, _) in enumerate(served)
        ]
        appliances.append(_appliance("vsa-2", "DC0_C0_H2", f"127.0.0.1:{silent.getsockname()[1]}", "AB" * 32))
        appliances.append(_appliance("vsa-3", "DC0_C0_H3", "127.0.0.1:9", None))
        fleet = {"ova_path": "x.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
                 "admin_password": fleet_flows.PASSWORD, "appliances": appliances}  # fmt: skip
        nfs = {"name": "arcvsa-nfs", "server": "192.0.2.21", "path": f"/{fleet_flows.DATASET}"}
        dep = _deployment(admin, site, fleet=fleet, nfs=nfs)

        started = time.monotonic()
        first = {a["name"]: a for a in admin.get(f"/api/deployments/{dep}/appliances").json()}
        # The silent appliance is given up on at its first call's timeout; the live ones take four calls.
        # Without the timeouts the silent appliance would hold the page for ever.
        assert time.monotonic() - started < 20, "the silent appliance is given up on after its 3 s timeout"
        server = served[1][0]  # apply's storage step on vsa-1 (the recording's pool and export)
        fleet_flows.fleet_flow(ApplianceApi(server.endpoint, server.thumbprint, name="vsa-1"))
        second = {a["name"]: a for a in admin.get(f"/api/deployments/{dep}/appliances").json()}

    assert list(first) == ["vsa-0", "vsa-1", "vsa-2", "vsa-3"]
    fresh = first["vsa-0"]  # the recording's first look: no pool tank yet (as on a new appliance)
    assert (fresh["reachable"], fresh["healthy"], fresh["host"]) == (True, False, "DC0_C0_H0")
    assert fresh["pools"] == [{"name": "tank", "state": "MISSING", "data_errors": 0, "device_errors": 0}]
    assert fresh["alerts"] == ["pool tank is MISSING"]
    built = second["vsa-1"]  # then the pool apply built, as its api published it after the change
    assert (built["reachable"], built["healthy"], built["alerts"]) == (True, True, [])
    assert built["pools"] == [{"name": "tank", "state": "ONLINE", "data_errors": 0, "device_errors": 0}]
    assert built["version"] and built["address"] == served[1][0].endpoint
    dead = first["vsa-2"]
    assert (dead["reachable"], dead["healthy"], dead["pools"]) == (False, False, None)
    assert dead["alerts"][0].startswith("unreachable"), dead["alerts"]
    assert first["vsa-3"]["alerts"] == ["its certificate is not pinned yet: apply pins it on first contact"]
    assert "secret" not in str(first) and fleet_flows.PASSWORD not in str(first)


def test_a_deployment_without_a_fleet_has_no_appliances(admin: TestClient, site: Vcsim) -> None:
    dep = _deployment(admin, site, pool={**POOL, "naming": "nf-##", "folder": "nf"})
    assert admin.get(f"/api/deployments/{dep}/appliances").json() == []
    assert admin.get("/api/deployments/999/appliances").status_code == 404
