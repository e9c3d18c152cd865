"""Deployments and jobs through the api served as its own process (as in production) against vcsim.

The headline case: one api call deploys a 100-desktop linked-clone pool end to end on the 4-host cluster
(4 appliances from the OVA, each given its pool, dataset and NFS export through its own api, the NFS
datastore on every host, the pool). vcsim runs no guests: each appliance's api is the real arcvsa app served
over TLS from this process, its storage tools replaying the lab VM's recording 'fleet'. Then an api
restart in the middle of a job: the job resumes and finishes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fixtures.appliance import fleet_flows
from fixtures.appliance.replay import ReplayRunner
from support.api import ADMIN_PASSWORD
from support.api_server import FINAL, add_vcenter, client, wait_job
from support.appliance_server import ApplianceServer, replayed_appliances
from support.ova import make_ova
from support.provisioning import NFS

from lab.stack import ApiServer
from lab.vcsim import CLUSTER, DATACENTER, GOLDEN_SNAPSHOT, GOLDEN_VM, Vcsim

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("api")


@pytest.fixture(scope="module")
def server(data_dir: Path) -> Iterator[ApiServer]:
    with ApiServer(data_dir, ADMIN_PASSWORD) as s:
        yield s


@pytest.fixture(scope="module")
def api(server: ApiServer) -> Iterator[httpx.Client]:
    c = client(server)
    yield c
    c.close()


@pytest.fixture(scope="module")
def vcenter_id(api: httpx.Client, site: Vcsim) -> int:
    return add_vcenter(api, site)


def _pool(naming: str, count: int, **extra: Any) -> dict[str, Any]:
    return {
        "name": naming.strip("-#"), "count": count, "naming": naming, "folder": naming.strip("-#"),
        "golden_vm": GOLDEN_VM, "snapshot": GOLDEN_SNAPSHOT, "memory_mb": 512, "vcpus": 1, **extra,
    }  # fmt: skip


def full_plan(ova: Path, endpoints: list[str], count: int) -> dict[str, Any]:
    appliances = [
        {
            "host": f"DC0_C0_H{i}",
            "name": f"vsa-{i}",
            "properties": {"hostname": f"vsa-{i}"},
            "disks": [
                *(
                    {"datastore": "san-lun-01", "size_gb": 500, "guest_path": path}
                    for path in fleet_flows.LUNS
                ),
                {"datastore": "san-lun-02", "size_gb": 16, "role": "log", "guest_path": fleet_flows.SLOG},
                {"datastore": "san-lun-02", "size_gb": 100, "role": "cache", "guest_path": fleet_flows.L2ARC},
            ],
            "api_endpoint": endpoint,  # no thumbprint: pinned on first contact and recorded in the plan
        }
        for i, endpoint in enumerate(endpoints)
    ]
    return {
        "name": "site-a",
        "datacenter": DATACENTER,
        "cluster": CLUSTER,
        "fleet": {
            "ova_path": str(ova),
            "network": "vsa-nfs",
            "datastore": "san-lun-01",
            "appliances": appliances,
            "admin_password": fleet_flows.PASSWORD,
        },
        "nfs": {"name": NFS, "server": "192.0.2.21", "path": f"/{fleet_flows.DATASET}", "version": "4.1"},
        "pool": _pool("desk-###", count, datastore=NFS),
    }


def test_one_api_call_deploys_a_100_desktop_pool_end_to_end(
    api: httpx.Client, server: ApiServer, vcenter_id: int, tmp_path: Path
) -> None:
    with replayed_appliances(tmp_path / "appliances", 4, "fleet", fleet_flows.PASSWORD) as appliances:
        _deploy_100(api, vcenter_id, tmp_path, appliances)


def _deploy_100(
    api: httpx.Client, vcenter_id: int, tmp_path: Path, appliances: list[tuple[ApplianceServer, ReplayRunner]]
) -> None:
    plan = full_plan(make_ova(tmp_path), [s.endpoint for s, _ in appliances], 100)
    r = api.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": plan})
    assert r.status_code == 201, r.text
    deployment = r.json()
    assert deployment["plan"]["fleet"]["admin_password"] is None, (
        "the secret is stored sealed, never returned"
    )
    diff = api.post(f"/api/deployments/{deployment['id']}/plan").json()
    assert diff["counts"] == {
        "create appliance": 4,
        "create disk": 16,
        "create storage": 4,
        "create nfs_mount": 4,
        "create folder": 1,
        "create desktop": 100,
    }

    started = time.monotonic()
    secrets = {"admin_password": fleet_flows.PASSWORD}  # given with each job that needs it, never reused
    job = api.post(f"/api/deployments/{deployment['id']}/apply", json=secrets).json()
    job = wait_job(api, job["id"], 110)
    seconds = time.monotonic() - started
    assert job["state"] == "succeeded", job
    assert (job["done"], job["total"]) == (108, 108), "4 appliances, 4 mounts, 100 desktops"
    print(f"\n100-desktop end-to-end deployment through the api: {seconds:.1f} s")

    events = api.get(f"/api/jobs/{job['id']}/events", params={"limit": 1000}).json()
    assert {e["object"] for e in events if e["kind"] == "done"} >= {"vsa-0", f"{NFS}@DC0_C0_H3", "desk-100"}
    assert any(e["kind"] == "bytes" for e in events)
    later = api.get(f"/api/jobs/{job['id']}/events", params={"after": events[-2]["id"]}).json()
    assert later == events[-1:]
    again = api.post(f"/api/deployments/{deployment['id']}/plan").json()
    assert again["actions"] == [] and again["unchanged"] == 108
    for _server, runner in appliances:
        assert [c[:2] for c in runner.calls if c[1] == "create"] == [["zpool", "create"], ["zfs", "create"]]
    stored = api.get(f"/api/deployments/{deployment['id']}").json()["plan"]["fleet"]["appliances"]
    assert [a["api_thumbprint_sha256"] for a in stored] == [s.thumbprint for s, _ in appliances], (
        "each appliance's certificate, pinned on first contact, is recorded in the stored plan"
    )
    plan["fleet"]["appliances"] = stored  # the edit below keeps the pins

    plan["pool"]["count"] = 90  # shrink by editing the plan
    assert api.put(f"/api/deployments/{deployment['id']}", json={"plan": plan}).status_code == 200
    assert api.post(f"/api/deployments/{deployment['id']}/plan").json()["counts"] == {"delete desktop": 10}

    job = wait_job(
        api, api.post(f"/api/deployments/{deployment['id']}/destroy", json=secrets).json()["id"], 60
    )
    assert job["state"] == "succeeded", job
    assert api.post(f"/api/deployments/{deployment['id']}/plan").json()["counts"]["create desktop"] == 90
    assert api.delete(f"/api/deployments/{deployment['id']}").status_code == 204
    assert api.get(f"/api/jobs/{job['id']}").status_code == 404, "its jobs go with it"


def test_jobs_cancel_and_refuse_a_second_job(api: httpx.Client, vcenter_id: int) -> None:
    plan = {"name": "site-c", "datacenter": DATACENTER, "cluster": CLUSTER,
            "pool": _pool("cc-###", 60, datastore="san-lun-02", concurrency=1)}  # fmt: skip
    deployment = api.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": plan}).json()
    job = api.post(f"/api/deployments/{deployment['id']}/apply").json()
    second = api.post(f"/api/deployments/{deployment['id']}/destroy")
    assert second.status_code == 409 and second.json()["job_id"] == job["id"]
    wait_job(api, job["id"], 30, until=lambda j: j["done"] >= 2)
    assert api.post(f"/api/jobs/{job['id']}/cancel").status_code == 202
    job = wait_job(api, job["id"], 30)
    assert job["state"] == "cancelled" and job["done"] < 60
    resumed = api.post(f"/api/jobs/{job['id']}/resume")
    assert resumed.status_code == 202
    assert wait_job(api, job["id"], 60)["state"] == "succeeded"


@pytest.mark.parametrize(
    ("pool", "status", "code", "field"),
    [
        ({"golden_vm": "desktop-01"}, 422, "snapshot_missing", "pool.snapshot"),
        ({"naming": "desktop-##", "count": 3}, 409, "name_collision", "pool.naming"),
        ({"count": 5000}, 422, "invalid_input", "plan"),
        ({"count": 0}, 422, "invalid_input", "plan"),
        # 200 desktops of 16 GiB: 3200 GiB, over the lab cluster's 408 GiB at 4x overcommit (1632 GiB)
        ({"count": 200, "memory_mb": 16384}, 422, "insufficient_resources", "pool.count"),
        ({"datastore": "no-such-ds"}, 422, "placement_not_found", "pool.datastore"),
    ],
)
def test_bad_plans_are_refused_with_typed_errors(
    api: httpx.Client, vcenter_id: int, pool: dict[str, Any], status: int, code: str, field: str
) -> None:
    name = f"bad-{code.replace('_', '-')}-{pool.get('count', 1)}"
    spec = {"name": name, "datacenter": DATACENTER, "cluster": CLUSTER,
            "pool": {**_pool("bad-##", 2, datastore="san-lun-01"), **pool}}  # fmt: skip
    r = api.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": spec})
    if r.status_code == 201:
        r = api.post(f"/api/deployments/{r.json()['id']}/plan")
    assert (r.status_code, r.json()["code"], r.json()["field"]) == (status, code, field), r.text
    if code == "name_collision":
        assert r.json()["names"] == ["desktop-01", "desktop-02", "desktop-03"]


# last in the module: it closes the module's client
def test_a_job_resumes_after_an_api_restart(api: httpx.Client, server: ApiServer, vcenter_id: int) -> None:
    plan = {"name": "site-r", "datacenter": DATACENTER, "cluster": CLUSTER,
            "pool": _pool("rr-###", 100, datastore="san-lun-02", concurrency=1, memory_mb=256)}  # fmt: skip
    deployment = api.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": plan}).json()
    job = api.post(f"/api/deployments/{deployment['id']}/apply").json()
    midway = wait_job(api, job["id"], 30, until=lambda j: j["done"] >= 5 or j["state"] in FINAL)
    assert midway["state"] == "running" and midway["done"] < 100, "stopped mid-run"
    api.close()  # an open keep-alive connection would hold up the api's graceful stop
    server.stop()
    server.start()
    fresh = client(server)
    try:
        job = wait_job(fresh, job["id"], 60)
        assert job["state"] == "succeeded", job
        assert job["runs"] == 2
        events = fresh.get(f"/api/jobs/{job['id']}/events", params={"limit": 1000}).json()
        assert "interrupted" in " ".join(e["message"] for e in events)
        assert fresh.post(f"/api/deployments/{deployment['id']}/plan").json()["actions"] == []
    finally:
        fresh.close()
