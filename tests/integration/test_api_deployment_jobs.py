"""Several deployments at once, and the secrets a job needs: through the real app, SQLite on disk and vcsim.

Each deployment runs its own job while another runs; a name is one deployment's alone. A job that needs the
appliances' admin password gets it with its request: without it the api answers 422 secret_required naming
the field, and a copy kept from an earlier request (or from the plan) is never used instead.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import fleet_flows
from support.api import client_for, logged_in, make_settings
from support.appliance_server import replayed_appliances
from support.ova import make_ova
from support.provisioning import NFS

from lab.vcsim import CLUSTER, DATACENTER, GOLDEN_SNAPSHOT, GOLDEN_VM, Vcsim

pytestmark = pytest.mark.integration
FINAL = {"succeeded", "failed", "cancelled"}


@pytest.fixture
def admin(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(make_settings(tmp_path / "api")) as c:
        yield logged_in(c)


@pytest.fixture
def vcenter_id(admin: TestClient, site: Vcsim) -> int:
    vc = {"name": "vc", "host": site.host, "port": site.port, "username": site.username,
          "password": site.password, "thumbprint_sha256": site.thumbprint_sha256}  # fmt: skip
    r = admin.post("/api/vcenters", json=vc)
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def _pool(naming: str, count: int) -> dict[str, Any]:
    name = naming.strip("-#")
    return {"name": name, "count": count, "naming": naming, "folder": name, "golden_vm": GOLDEN_VM,
            "snapshot": GOLDEN_SNAPSHOT, "datastore": "san-lun-02", "memory_mb": 256, "vcpus": 1,
            "concurrency": 1}  # fmt: skip


def _create(admin: TestClient, vcenter_id: int, name: str, **plan: Any) -> int:
    body = {"name": name, "datacenter": DATACENTER, "cluster": CLUSTER, **plan}
    r = admin.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": body})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def _wait(admin: TestClient, job_id: int, timeout: float, until: Any = None) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        job: dict[str, Any] = admin.get(f"/api/jobs/{job_id}").json()
        if (until(job) if until else job["state"] in FINAL) or time.monotonic() > deadline:
            return job
        time.sleep(0.1)


def test_two_deployments_run_their_own_jobs_at_once_and_a_name_is_one_deployments(
    admin: TestClient, vcenter_id: int
) -> None:
    first = _create(admin, vcenter_id, "run-a", pool=_pool("ra-###", 40))
    second = _create(admin, vcenter_id, "run-b", pool=_pool("rb-###", 40))
    taken = admin.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": {
        "name": "run-a", "datacenter": DATACENTER, "cluster": CLUSTER, "pool": _pool("rc-###", 2)}})  # fmt: skip
    assert (taken.status_code, taken.json()["code"], taken.json()["field"]) == (409, "conflict", "plan.name")

    a = admin.post(f"/api/deployments/{first}/apply")
    assert a.status_code == 202, a.text
    # the second is planned and started while the first runs
    assert admin.post(f"/api/deployments/{second}/plan").status_code == 200
    b = admin.post(f"/api/deployments/{second}/apply")
    assert b.status_code == 202, b.text
    ja, jb = a.json(), b.json()
    assert ja["id"] != jb["id"] and (ja["deployment_id"], jb["deployment_id"]) == (first, second)

    both = lambda _: all(admin.get(f"/api/jobs/{j}").json()["done"] >= 2 for j in (ja["id"], jb["id"]))  # noqa: E731
    _wait(admin, ja["id"], 60, until=both)
    now = [admin.get(f"/api/jobs/{j}").json() for j in (ja["id"], jb["id"])]
    assert [j["state"] for j in now] == ["running", "running"], "both run at the same time"
    assert all(2 <= j["done"] < 40 for j in now), now
    again = admin.post(f"/api/deployments/{first}/apply")
    assert (again.status_code, again.json()["job_id"]) == (409, ja["id"]), "one job per deployment"
    for job in (ja, jb):
        assert admin.post(f"/api/jobs/{job['id']}/cancel").status_code == 202
    assert {_wait(admin, j["id"], 60)["state"] for j in (ja, jb)} == {"cancelled"}


def _fleet_plan(ova: Path, endpoint: str, password: str | None) -> dict[str, Any]:
    disks = [
        *({"datastore": "san-lun-01", "size_gb": 500, "guest_path": p} for p in fleet_flows.LUNS),
        {"datastore": "san-lun-02", "size_gb": 16, "role": "log", "guest_path": fleet_flows.SLOG},
        {"datastore": "san-lun-02", "size_gb": 100, "role": "cache", "guest_path": fleet_flows.L2ARC},
    ]
    appliance = {"host": "DC0_C0_H0", "name": "vsa-s0", "properties": {"hostname": "vsa-s0"},
                 "disks": disks, "api_endpoint": endpoint}  # fmt: skip
    fleet = {"ova_path": str(ova), "network": "vsa-nfs", "datastore": "san-lun-01", "appliances": [appliance],
             **({"admin_password": password} if password else {})}  # fmt: skip
    nfs = {"name": NFS, "server": "192.0.2.21", "path": f"/{fleet_flows.DATASET}", "version": "4.1",
           "profile": fleet_flows.PROFILE}  # as the recording 'fleet' was made  # fmt: skip
    return {"fleet": fleet, "nfs": nfs}


def test_a_job_needing_the_admin_password_gets_it_with_its_request_never_from_a_kept_copy(
    admin: TestClient, vcenter_id: int, tmp_path: Path
) -> None:
    # The plan carries a password: the api keeps a sealed copy (for the Appliances page); no job may use it.
    dep = _create(admin, vcenter_id, "secret-k", **_fleet_plan(tmp_path / "none.ova", "127.0.0.1:9", "kept"))
    refused = admin.post(f"/api/deployments/{dep}/apply")
    assert refused.status_code == 422, refused.text
    assert (refused.json()["code"], refused.json()["field"]) == ("secret_required", "admin_password")
    empty = admin.post(f"/api/deployments/{dep}/apply", json={"admin_password": ""})
    assert (empty.status_code, empty.json()["field"]) == (422, "admin_password"), "empty is missing"
    assert admin.get("/api/jobs", params={"deployment_id": dep}).json() == [], "no job started"

    started = admin.post(f"/api/deployments/{dep}/apply", json={"admin_password": "given-now"})
    assert started.status_code == 202, started.text
    job = _wait(admin, started.json()["id"], 60)
    assert job["state"] == "failed", job  # there is no OVA at that path
    again = admin.post(f"/api/jobs/{job['id']}/resume")
    assert (again.status_code, again.json()["code"], again.json()["field"]) == (
        422, "secret_required", "admin_password",
    ), "the first attempt's password is not reused"  # fmt: skip
    assert admin.get(f"/api/jobs/{job['id']}").json()["state"] == "failed", "a refused resume starts nothing"
    resumed = admin.post(f"/api/jobs/{job['id']}/resume", json={"admin_password": "given-again"})
    assert resumed.status_code == 202, resumed.text
    assert _wait(admin, job["id"], 60)["runs"] == 2


def test_the_password_a_job_uses_is_its_requests_not_the_plans(
    admin: TestClient, vcenter_id: int, tmp_path: Path
) -> None:
    ova = make_ova(tmp_path)
    with replayed_appliances(tmp_path / "appliances", 1, "fleet", fleet_flows.PASSWORD) as served:
        # The plan carries the right password (a sealed copy is kept): the job must not fall back on it.
        plan = _fleet_plan(ova, served[0][0].endpoint, fleet_flows.PASSWORD)
        dep = _create(admin, vcenter_id, "secret-s", **plan)
        started = admin.post(f"/api/deployments/{dep}/apply", json={"admin_password": "not-the-password"})
        assert started.status_code == 202, started.text
        job = _wait(admin, started.json()["id"], 120)
        assert job["state"] == "failed", job
        assert "vsa-s0" in {f["object"] for f in job["failures"]}, job
        assert "password" in job["failures"][0]["reason"].lower(), job["failures"]
        resumed = admin.post(f"/api/jobs/{job['id']}/resume", json={"admin_password": fleet_flows.PASSWORD})
        assert resumed.status_code == 202, resumed.text
        job = _wait(admin, job["id"], 120)
        assert (job["state"], job["runs"]) == ("succeeded", 2), (job["message"], job["failures"])


def test_destroy_asks_only_for_what_it_needs(admin: TestClient, vcenter_id: int) -> None:
    dep = _create(admin, vcenter_id, "gone-g", pool=_pool("gg-##", 1))
    job = admin.post(f"/api/deployments/{dep}/destroy")
    assert job.status_code == 202, "a pool of vSphere clones is destroyed without any password"
    assert _wait(admin, job.json()["id"], 60)["state"] == "succeeded"
    horizon = {"endpoint": "horizon.example:443", "username": "hz", "domain": "lab", "vcenter": "vc",
               "password": "kept-in-the-plan"}  # fmt: skip
    plan = {"name": "gone-g", "datacenter": DATACENTER, "cluster": CLUSTER, "pool": _pool("gg-##", 1),
            "horizon": horizon}  # fmt: skip
    assert admin.put(f"/api/deployments/{dep}", json={"plan": plan}).status_code == 200
    refused = admin.post(f"/api/deployments/{dep}/destroy")
    assert (refused.status_code, refused.json()["field"]) == (422, "horizon_password")
