"""The stack of the deployment-jobs specs: vcsim of their own, the api serving web/dist, plans stored first.

deployments-at-once.spec.ts gets two stored pool plans whose applies run for a while (desktops cloned one at
a time); job-passwords.spec.ts a fleet plan whose apply failed, started through the api with the
appliances' admin password (which the api must not give to any later job), and a pool plan handed to a
Horizon server that is not there.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e import spec_run

from lab.stack import ApiServer
from lab.vcsim import CLUSTER, DATACENTER, DATASTORES, GOLDEN_SNAPSHOT, GOLDEN_VM, Vcsim

WEB = Path(__file__).resolve().parents[2] / "web"
PASSWORD = "e2e-admin-password"
APPLIANCE_PASSWORD = "appliance-secret-1"
FINAL = {"succeeded", "failed", "cancelled"}


def _pool(naming: str, count: int, concurrency: int) -> dict[str, Any]:
    name = naming.strip("-#")
    return {"name": name, "count": count, "naming": naming, "folder": name, "golden_vm": GOLDEN_VM,
            "snapshot": GOLDEN_SNAPSHOT, "datastore": DATASTORES[0], "memory_mb": 256, "vcpus": 1,
            "concurrency": concurrency}  # fmt: skip


def _store(api: httpx.Client, vcenter_id: int, plan: dict[str, Any]) -> int:
    body = {"datacenter": DATACENTER, "cluster": CLUSTER, **plan}
    made = api.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": body})
    assert made.status_code == 201, made.text
    return int(made.json()["id"])


def two_pools(api: httpx.Client, vcenter_id: int) -> dict[str, str]:
    for name, naming in (("pool-one", "one-###"), ("pool-two", "two-###")):
        _store(api, vcenter_id, {"name": name, "pool": _pool(naming, 200, 1)})
    # Stored only: its appliance and datastore names are taken for the wizard's next deployment.
    appliance = {"host": "DC0_C0_H0", "name": "arcvsa-01", "api_endpoint": "127.0.0.1:9"}
    fleet = {"ova_path": "/nonexistent/arcvsa.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
             "appliances": [appliance]}  # fmt: skip
    nfs = {"name": "arcvsa-vdi", "server": "192.0.2.21", "path": "/tank/vdi"}
    _store(api, vcenter_id, {"name": "fleet-one", "fleet": fleet, "nfs": nfs})
    return {"ARCVSA_FIRST": "pool-one", "ARCVSA_SECOND": "pool-two"}


def failed_fleet(api: httpx.Client, vcenter_id: int) -> dict[str, str]:
    appliance = {"host": "DC0_C0_H0", "name": "vsa-pw-0", "api_endpoint": "127.0.0.1:9"}
    fleet = {"ova_path": "/nonexistent/arcvsa.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
             "appliances": [appliance]}  # fmt: skip
    plan = {"name": "pw-fleet", "datacenter": DATACENTER, "cluster": CLUSTER, "fleet": fleet,
            "nfs": {"name": "arcvsa-pw", "server": "192.0.2.21", "path": "/tank/vdi"}}  # fmt: skip
    made = api.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": plan})
    assert made.status_code == 201, made.text
    job = api.post(f"/api/deployments/{made.json()['id']}/apply", json={"admin_password": APPLIANCE_PASSWORD})
    assert job.status_code == 202, job.text
    deadline = time.monotonic() + 60
    state = job.json()
    while state["state"] not in FINAL and time.monotonic() < deadline:
        time.sleep(0.2)
        state = api.get(f"/api/jobs/{state['id']}").json()
    assert state["state"] == "failed", state
    horizon = {"endpoint": "127.0.0.1:9", "username": "hzadmin", "domain": "lab", "vcenter": "lab-vc"}
    _store(api, vcenter_id, {"name": "pw-horizon", "pool": _pool("hz-#", 1, 1), "horizon": horizon})
    return {
        "ARCVSA_DEPLOYMENT": "pw-fleet",
        "ARCVSA_APPLIANCE_PASSWORD": APPLIANCE_PASSWORD,
        "ARCVSA_HORIZON_DEPLOYMENT": "pw-horizon",
    }


@contextmanager
def lab_api(server: ApiServer, sim: Vcsim) -> Iterator[tuple[httpx.Client, int]]:
    """A client of the api under test, logged in as admin, with the lab vCenter registered (and its id)."""
    ctx = ssl.create_default_context(cafile=str(server.data_dir / "tls.crt"))
    with httpx.Client(base_url=server.url, verify=ctx, timeout=60) as api:
        token = api.post("/api/auth/token", json={"username": "admin", "password": PASSWORD})
        api.headers["Authorization"] = f"Bearer {token.json()['token']}"
        vc = {"name": "lab-vc", "host": sim.host, "port": sim.port, "username": sim.username,
              "password": sim.password, "thumbprint_sha256": sim.thumbprint_sha256}  # fmt: skip
        vcenter = api.post("/api/vcenters", json=vc)
        assert vcenter.status_code == 201, vcenter.text
        yield api, int(vcenter.json()["id"])


def run_spec(
    spec: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    setup: Callable[[httpx.Client, int], dict[str, str]],
) -> spec_run.SpecRun:
    dist = WEB / "dist"
    assert (dist / "index.html").exists(), "web/dist is missing: run `make web` first"
    with Vcsim() as sim, ApiServer(tmp_path / "data", PASSWORD, web_dist=dist) as server:
        with lab_api(server, sim) as (api, vcenter_id):
            extra = setup(api, vcenter_id)
        return spec_run.run(spec, spec_run.base_env(server.url, PASSWORD, **extra), capsys)
