"""The appliance fleet and the NFS datastore against vcsim: OVA import per host with property values,
size option, network mapping and byte progress; LUN disks; power on; health wait and storage (pool,
dataset, NFS export) through each appliance's api; NFS 4.1 mounted on every host; then destroy.

vcsim runs no guests, so each appliance's api is the real arcvsa api app served over TLS in this process
(support.appliance_server), its storage tools a strict replay of the lab VM's recording 'fleet'.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance import fleet_flows
from pyVmomi import vim
from support.appliance_server import replayed_appliances
from support.health_server import HealthServer
from support.ova import make_ova
from support.provisioning import NFS, find, foreign_vm, login_for, owner_of

from lab.json_https import JsonHttpsServer
from lab.vcsim import CLUSTER, DATACENTER, GOLDEN_SNAPSHOT, GOLDEN_VM, Vcsim
from provisioning import apply as prov
from provisioning.destroy import destroy
from provisioning.errors import LunNotFound, PlanError
from provisioning.live import read_state
from provisioning.plan import DeploymentPlan, LunDisk
from provisioning.progress import Event, Options

pytestmark = pytest.mark.integration
VCSIM_LUN = "mpx.vmhba0:C0:T0:L0"  # the one SCSI disk each vcsim host sees


@pytest.fixture(scope="module")
def ova(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_ova(tmp_path_factory.mktemp("ova"))


def fleet_plan(
    name: str,
    ova: Path,
    health: JsonHttpsServer | list[str],
    *,
    hosts: int = 4,
    pool: int = 0,
    guest_paths: bool = True,
) -> DeploymentPlan:
    """A fleet on `hosts` hosts; `health` is one stand-in for every api, or one endpoint per appliance
    (no thumbprint: the certificate is pinned on first contact)."""
    appliances: list[dict[str, Any]] = [
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
                {"datastore": "san-lun-01", "size_gb": 16, "role": "log"},  # a SLOG SSD
                {"datastore": "san-lun-02", "size_gb": 50, "role": "cache"},  # an L2ARC SSD
            ],
            **(
                {"api_endpoint": health.endpoint, "api_thumbprint_sha256": health.thumbprint}
                if isinstance(health, JsonHttpsServer)
                else {"api_endpoint": health[i]}
            ),
        }
        for i in range(hosts)
    ]
    if guest_paths:  # the lab VM's virtio LUNs have no WWN: name them (see provisioning.appliance_api)
        for appliance in appliances:
            paths = [*fleet_flows.LUNS, fleet_flows.SLOG, fleet_flows.L2ARC]
            for disk, path in zip(appliance["disks"], paths, strict=True):
                disk["guest_path"] = path
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
            "admin_password": fleet_flows.PASSWORD,
        },
        "nfs": {"name": NFS, "server": "192.0.2.21", "path": "/tank/vdi", "version": "4.1"},
    }
    if pool:
        plan["pool"] = {
            "name": "pool-n", "count": pool, "naming": "nfs-###", "folder": "nfs-pool", "golden_vm": GOLDEN_VM,
            "snapshot": GOLDEN_SNAPSHOT, "datastore": NFS, "memory_mb": 1024, "vcpus": 1,
        }  # fmt: skip
    return DeploymentPlan.model_validate(plan)


def test_fleet_storage_nfs_and_pool_then_destroy(
    site: Vcsim, si: vim.ServiceInstance, ova: Path, tmp_path: Path
) -> None:
    with replayed_appliances(tmp_path, 4, "fleet", fleet_flows.PASSWORD) as apis:
        plan = fleet_plan("fleet", ova, [s.endpoint for s, _ in apis], pool=8)
        assert prov.plan(si, plan).counts() == {
            "create appliance": 4, "create disk": 16, "create storage": 4, "create nfs_mount": 4,
            "create folder": 1, "create desktop": 8,
        }  # fmt: skip
        events: list[Event] = []
        report = prov.apply(login_for(site), plan, Options(on_event=events.append))
        assert not report.failed, report.failed
        for _server, runner in apis:
            creates = [c[:2] for c in runner.calls if c[1] == "create"]
            assert creates == [["zpool", "create"], ["zfs", "create"]], (
                "a pool and a dataset on each appliance"
            )
            pool = next(c for c in runner.calls if c[:2] == ["zpool", "create"])
            assert pool[-7:] == [
                "tank",
                *fleet_flows.LUNS,
                "log",
                fleet_flows.SLOG,
                "cache",
                fleet_flows.L2ARC,
            ], "a stripe of the plan's two LUN disks with its SLOG and L2ARC SSDs"
        pins = {e.object: e.message for e in events if e.kind == "pin"}
        assert pins == {f"fleet-vsa-{i}": s.thumbprint for i, (s, _) in enumerate(apis)}, (
            "each appliance's certificate pinned on first contact, and reported to be recorded"
        )
        stored = [e.message for e in events if e.kind == "info" and e.message.startswith("storage:")]
        assert len(stored) == 4 and "NFS 4.1 export of tank/vdi" in stored[0]
        assert "pool tank on 2 LUN disks, SLOG on 1 SSD, L2ARC on 1 SSD" in stored[0]
        cleared = [e.object for e in events if e.kind == "info" and "admin password cleared" in e.message]
        assert sorted(cleared) == [f"fleet-vsa-{i}" for i in range(4)]

        # a run that died after the storage step but before the mark: the next apply finds it all in place
        vm = find(si, "vm/fleet-vsa-1")
        fields = si.RetrieveContent().customFieldsManager
        assert fields is not None
        keys = {f.name: f.key for f in fields.field or []}
        fields.SetField(entity=vm, key=keys["arcvsa.storage"], value="")
        assert [(a.kind, a.name) for a in prov.plan(si, plan).actions] == [("storage", "fleet-vsa-1")]
        calls = len(apis[1][1].calls)
        report = prov.apply(login_for(site), plan, Options(on_event=events.append))
        assert not report.failed, report.failed
        again = apis[1][1].calls[calls:]
        # only looked, and the looks are reads of the appliance's published state: nothing created or set
        assert not [c for c in again if c[1] in ("create", "set")], again
        last = [e.message for e in events if e.kind == "info" and e.object == "fleet-vsa-1"][-1]
        assert last == "storage: in place already"
    assert any(e.kind == "bytes" and "OVA upload" in e.message for e in events), "byte progress"

    vm = find(si, "vm/fleet-vsa-2")
    assert owner_of(vm) == {"arcvsa.owner": "fleet", "arcvsa.storage": "tank/vdi NFS 4.1 to 127.0.0.1"}
    assert {(o.key, o.value) for o in vm.config.extraConfig} >= {("disk.EnableUUID", "TRUE")}
    assert vm.runtime.host.name == "DC0_C0_H2" and vm.runtime.powerState == "poweredOn"
    assert (vm.config.hardware.numCPU, vm.config.hardware.memoryMB) == (4, 16384), "the medium option"
    values = {p.id: p.value for p in vm.config.vAppConfig.property}
    assert values["ipv4_address"] == "192.0.2.23" and values["role"] == "appliance"
    # First boot has applied it: the password is no longer in vCenter, nor on a CD-ROM the guest cannot blank.
    assert not values["admin_password"] and values["hostname"] == "vsa-2"
    drives = [d for d in vm.config.hardware.device if isinstance(d, vim.vm.device.VirtualCdrom)]
    assert drives and not any(d.connectable.connected or d.connectable.startConnected for d in drives)
    # no storage port group: the storage NIC is on the management one too (tests/integration/test_storage_network_vcsim.py)
    assert {n.name for n in vm.network} == {"vsa-nfs"}, "network mapping"
    nics = [d for d in vm.config.hardware.device if isinstance(d, vim.vm.device.VirtualEthernetCard)]
    assert len(nics) == 2, "the management and the storage NIC"
    disks = [d for d in vm.config.hardware.device if isinstance(d, vim.vm.device.VirtualDisk)]
    assert [d.capacityInKB // 1024**2 for d in disks[1:]] == [100, 100, 16, 50]
    assert [d.backing.datastore.name for d in disks[1:]] == ["san-lun-01", "san-lun-02"] * 2

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
    assert [a.kind for a in prov.plan(si, plan).actions] == ["storage"] + ["nfs_mount"] * 4, (
        "the VM stays; its storage and NFS were not tried"
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


def test_a_lun_disk_the_appliance_does_not_see_fails_that_appliance_before_any_storage_change(
    site: Vcsim, si: vim.ServiceInstance, ova: Path, tmp_path: Path
) -> None:
    with replayed_appliances(tmp_path, 1, "fleet", fleet_flows.PASSWORD) as apis:
        plan = fleet_plan("nowwn", ova, [apis[0][0].endpoint], hosts=1, guest_paths=False)
        [(_server, runner)] = apis
        started = len(runner.calls)  # the appliance api's start observed its disks (lsblk)
        report = prov.apply(login_for(site), plan)
    why = report.failed["nowwn-vsa-0"]
    assert why.startswith("DiskNotVisible") and "LUN disk #0 (WWN 0x" in why and "disk.EnableUUID" in why
    assert ["lsblk"] in [c[:1] for c in runner.calls[:started]]
    assert runner.calls[started:] == [], "the disks were looked at (as published); nothing was created"
    vm = find(si, "vm/nowwn-vsa-0")
    disks = [d for d in vm.config.hardware.device if isinstance(d, vim.vm.device.VirtualDisk)][1:]
    assert all(getattr(d.backing, "uuid", None) for d in disks), (
        "vCenter gives each VMDK the uuid the guest sees as its WWN"
    )
    assert [a.kind for a in prov.plan(si, plan).actions] == ["storage"] + ["nfs_mount"] * 4
    destroy(login_for(site), "nowwn", DATACENTER, CLUSTER)


def test_storage_needs_the_admin_password_and_is_refused_before_any_change_without_it(
    site: Vcsim, si: vim.ServiceInstance, ova: Path, tmp_path: Path
) -> None:
    with HealthServer(tmp_path) as health:
        plan = fleet_plan("nopass", ova, health, hosts=1)
    assert plan.fleet is not None
    plan.fleet.admin_password = None
    with pytest.raises(PlanError, match="admin_password") as refused:
        prov.apply(login_for(site), plan)
    assert refused.value.field == "fleet.admin_password"
    assert find(si, "vm/nopass-vsa-0") is None


def test_rdm_disks_come_from_the_hosts_scsi_luns_and_an_unknown_lun_is_refused_before_any_change(
    site: Vcsim, si: vim.ServiceInstance, ova: Path, tmp_path: Path
) -> None:
    """vcsim's hosts see one SCSI disk (mpx.vmhba0:C0:T0:L0) and no VMFS on it; ReconfigVM with an RDM backing
    crashes vcsim 0.46.3 (a panic in updateDiskLayouts), so the RDM is planned here, not attached."""
    live = read_state(si, DATACENTER, CLUSTER)
    assert set(live.host_luns["DC0_C0_H0"]) == {VCSIM_LUN}, "the CD-ROM LUN is no RDM candidate"
    assert live.host_luns["DC0_C0_H0"][VCSIM_LUN].capacity_bytes > 0
    with HealthServer(tmp_path) as health:
        plan = fleet_plan("rdm", ova, health, hosts=1, guest_paths=False)
    assert plan.fleet is not None
    plan.fleet.appliances[0].disks = [LunDisk(rdm_lun=VCSIM_LUN)]
    disks = [a for a in prov.plan(si, plan).actions if a.kind == "disk"]
    assert [(a.name, a.detail) for a in disks] == [("rdm-vsa-0/#0", f"RDM of {VCSIM_LUN}")]

    plan.fleet.appliances[0].disks = [LunDisk(rdm_lun="naa.6000c2900000000000000000000dead")]
    with pytest.raises(LunNotFound, match=r"sees no SCSI disk 'naa\.6000c29") as refused:
        prov.apply(login_for(site), plan)
    assert refused.value.field == "fleet.appliances.0.disks" and VCSIM_LUN in str(refused.value)
    assert find(si, "vm/rdm-vsa-0") is None, "nothing was made"
