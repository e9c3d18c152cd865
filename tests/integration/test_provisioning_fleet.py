"""The appliance fleet and the NFS datastore against vcsim: OVA import per host with property values,
size option, network mapping and byte progress; LUN disks; power on; health wait against a local HTTPS
server standing in for each appliance's api; NFS 4.1 mounted on every host; then destroy.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyVmomi import vim
from support.health_server import HealthServer
from support.ova import make_ova
from support.provisioning import NFS, find, foreign_vm, login_for, owner_of

from lab.vcsim import CLUSTER, DATACENTER, GOLDEN_SNAPSHOT, GOLDEN_VM, Vcsim
from provisioning import apply as prov
from provisioning.destroy import destroy
from provisioning.errors import PlanError
from provisioning.plan import DeploymentPlan
from provisioning.progress import Event, Options

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def ova(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_ova(tmp_path_factory.mktemp("ova"))


def fleet_plan(
    name: str, ova: Path, health: HealthServer, *, hosts: int = 4, pool: int = 0
) -> DeploymentPlan:
    appliances = [
        {
            "host": f"DC0_C0_H{i}",
            "name": f"{name}-vsa-{i}",
            "properties": {
                "hostname": f"vsa-{i}",
                "ipv4_mode": "static",
                "ipv4_address": f"192.0.2.{21 + i}",
            },
            "disks": [
                {"datastore": "san-lun-01", "size_gb": 100},
                {"datastore": "san-lun-02", "size_gb": 100},
            ],
            "api_endpoint": health.endpoint,
            "api_thumbprint_sha256": health.thumbprint,
        }
        for i in range(hosts)
    ]
    plan: dict[str, object] = {
        "name": name,
        "datacenter": DATACENTER,
        "cluster": CLUSTER,
        "fleet": {
            "ova_path": str(ova),
            "size": "medium",
            "network": "vsa-nfs",
            "datastore": "san-lun-01",
            "properties": {"role": "appliance", "ipv4_prefix": "24", "ipv4_gateway": "192.0.2.1"},
            "appliances": appliances,
            "health_timeout_s": 5,
        },
        "nfs": {"name": NFS, "server": "192.0.2.21", "path": "/tank/vdi", "version": "4.1"},
    }
    if pool:
        plan["pool"] = {
            "name": "pool-n", "count": pool, "naming": "nfs-###", "folder": "nfs-pool", "golden_vm": GOLDEN_VM,
            "snapshot": GOLDEN_SNAPSHOT, "datastore": NFS, "memory_mb": 1024, "vcpus": 1,
        }  # fmt: skip
    return DeploymentPlan.model_validate(plan)


def test_fleet_nfs_and_pool_then_destroy(
    site: Vcsim, si: vim.ServiceInstance, ova: Path, tmp_path: Path
) -> None:
    with HealthServer(tmp_path) as health:
        plan = fleet_plan("fleet", ova, health, pool=8)
        assert prov.plan(si, plan).counts() == {
            "create appliance": 4, "create disk": 8, "create nfs_mount": 4, "create folder": 1, "create desktop": 8,
        }  # fmt: skip
        events: list[Event] = []
        report = prov.apply(login_for(site), plan, Options(on_event=events.append, password="Corr3ct-Horse!"))
        assert not report.failed, report.failed
        assert health.hits >= 4, "each appliance's api was asked for its health"
    assert any(e.kind == "bytes" and "OVA upload" in e.message for e in events), "byte progress"

    vm = find(si, "vm/fleet-vsa-2")
    assert owner_of(vm) == {"arcvsa.owner": "fleet"}
    assert vm.runtime.host.name == "DC0_C0_H2" and vm.runtime.powerState == "poweredOn"
    assert (vm.config.hardware.numCPU, vm.config.hardware.memoryMB) == (4, 16384), "the medium option"
    values = {p.id: p.value for p in vm.config.vAppConfig.property}
    assert values["ipv4_address"] == "192.0.2.23" and values["role"] == "appliance"
    assert values["admin_password"] == "Corr3ct-Horse!"
    assert [n.name for n in vm.network] == ["vsa-nfs"], "network mapping"
    disks = [d for d in vm.config.hardware.device if isinstance(d, vim.vm.device.VirtualDisk)]
    assert [d.capacityInKB // 1024**2 for d in disks[1:]] == [100, 100]
    assert [d.backing.datastore.name for d in disks[1:]] == ["san-lun-01", "san-lun-02"]

    cluster = find(si, f"host/{CLUSTER}")
    for host in cluster.host:
        nas = [d for d in host.datastore if d.name == NFS]
        assert nas and nas[0].summary.type == "NFS41", f"{host.name} mounts the datastore"
    assert owner_of(nas[0]) == {"arcvsa.owner": "fleet"}
    assert find(si, "vm/nfs-pool/nfs-001").datastore[0].name == NFS

    assert prov.plan(si, plan).actions == [], "a second apply has nothing to do"
    bystander = foreign_vm(si, "fleet-vsa-9")
    report = destroy(login_for(site), "fleet", DATACENTER, CLUSTER)
    assert not report.failed
    assert find(si, "vm/fleet-vsa-0") is None and find(si, "vm/nfs-pool") is None
    assert find(si, f"datastore/{NFS}") is None, "unmounted (vcsim leaves stale references on its hosts)"
    assert bystander.name == "fleet-vsa-9"


def test_an_unhealthy_appliance_stops_the_apply_before_the_datastore(
    site: Vcsim, si: vim.ServiceInstance, ova: Path, tmp_path: Path
) -> None:
    with HealthServer(tmp_path, status="starting", http_status=503) as health:
        plan = fleet_plan("sick", ova, health, hosts=1)
        plan.fleet.health_timeout_s = 1  # type: ignore[union-attr]
        report = prov.apply(login_for(site), plan)
    assert list(report.failed) == ["sick-vsa-0"] and "not healthy" in report.failed["sick-vsa-0"]
    assert [a.kind for a in prov.plan(si, plan).actions] == ["nfs_mount"] * 4, (
        "the VM stays; NFS was not tried"
    )
    destroy(login_for(site), "sick", DATACENTER, CLUSTER)


def test_a_file_that_is_not_a_sound_ova_is_refused_before_any_change(
    site: Vcsim, si: vim.ServiceInstance, ova: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.ova"
    data = bytearray(ova.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one bit of the disk flipped: its digest no longer matches the manifest
    broken.write_bytes(bytes(data))
    with HealthServer(tmp_path) as health:
        plan = fleet_plan("broken", broken, health, hosts=1)
    with pytest.raises(PlanError, match="not a sound arcvsa OVA"):
        prov.apply(login_for(site), plan)
    assert find(si, "vm/broken-vsa-0") is None
