"""The stage for tests/e2e/deploy-faults.spec.ts: deployments stored through the api; for the cases after the
upload, with the appliance's VM in vCenter already (imported and owned, powered off, as an earlier run
left it), so their Deploy step goes straight to the disks, the power-on and the health wait.

Each appliance's api address is a real local server of the kind the case needs: another service's HTTPS
answering 404, a port that takes connections and never answers TLS (an appliance still booting).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from pyVmomi import vim

from lab.vcsim import CLUSTER, DATACENTER, GOLDEN_SNAPSHOT, GOLDEN_VM, Vcsim
from provisioning import ownership
from provisioning.live import read_state
from provisioning.ovf_import import import_ova
from provisioning.session import connect

HOST = "DC0_C0_H0"


def add_vcenter(api: httpx.Client, sim: Vcsim, name: str) -> int:
    body = {"name": name, "host": sim.host, "port": sim.port, "username": sim.username,
            "password": sim.password, "thumbprint_sha256": sim.thumbprint_sha256}  # fmt: skip
    r = api.post("/api/vcenters", json=body)
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def place_appliance_vm(sim: Vcsim, ova: Path, appliance: str, owner: str) -> None:
    """Import the OVA as `appliance` on HOST and mark it `owner`'s, as an earlier run would have."""
    with connect(
        sim.host, sim.port, sim.username, sim.password, thumbprint_sha256=sim.thumbprint_sha256
    ) as si:
        live = read_state(si, DATACENTER, CLUSTER)
        stub = si._stub
        net = live.networks["vsa-nfs"]
        assert live.root_pool is not None
        vm = import_ova(
            si, ova, name=appliance, option="small", values={"hostname": appliance},
            pool=vim.ResourcePool(live.root_pool, stub), folder=vim.Folder(live.vm_folder, stub),
            datastore=vim.Datastore(live.datastores["san-lun-01"].moid, stub),
            network=getattr(vim, live.kinds[net])(net, stub), host=vim.HostSystem(live.cluster_hosts[HOST], stub),
        )  # fmt: skip
        content = si.RetrieveContent()
        ownership.mark(content, ownership.field_keys(content), vm, owner=owner)


def store_deployment(
    api: httpx.Client, vcenter_id: int, name: str, appliance: str, ova: Path, endpoint: str, nfs: str
) -> dict[str, Any]:
    """A deployment as the wizard stores one: an appliance (one LUN disk), its NFS datastore, a small pool."""
    plan = {
        "name": name, "datacenter": DATACENTER, "cluster": CLUSTER,
        "fleet": {
            "ova_path": str(ova), "network": "vsa-nfs", "datastore": "san-lun-01",
            "properties": {"ipv4_mode": "static", "ipv4_prefix": "24"},
            "appliances": [{
                "host": HOST, "name": appliance, "api_endpoint": endpoint,
                "properties": {"hostname": appliance, "ipv4_address": "192.0.2.21"},
                "disks": [{"datastore": "san-lun-01", "size_gb": 1}],
            }],
        },
        "nfs": {"name": nfs, "server": "192.0.2.21", "path": "/tank/vdi"},
        "pool": {"name": name, "count": 2, "naming": f"{name}-##", "folder": name, "golden_vm": GOLDEN_VM,
                 "snapshot": GOLDEN_SNAPSHOT, "datastore": nfs, "memory_mb": 256, "vcpus": 1},
    }  # fmt: skip
    r = api.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": plan})
    assert r.status_code == 201, r.text
    return dict(r.json())
