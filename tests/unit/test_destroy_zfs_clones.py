"""Which plans destroy ZFS clones for, on which appliance, and which desktops are clones (provisioning.destroy)."""

from __future__ import annotations

from typing import Any

from provisioning.destroy import ZfsClones, cloned_desktops, zfs_clones
from provisioning.live import LiveState, LiveVm
from provisioning.plan import DeploymentPlan

PIN = "AB:" * 31 + "CD"
OTHER_PIN = "CD:" * 31 + "AB"


def appliance(n: int, address: str | None = None, **extra: Any) -> dict[str, Any]:
    properties = {"ipv4_address": address} if address else {}
    return {"host": f"esx-{n}", "name": f"vsa-{n}", "properties": properties,
            "disks": [{"datastore": "san", "size_gb": 10}], **extra}  # fmt: skip


def plan(appliances: list[dict[str, Any]], *, full_copy: str = "zfs", fleet: bool = True, nfs: bool = True,
         pool: bool = True) -> DeploymentPlan:  # fmt: skip
    parts: dict[str, Any] = {"name": "dep", "datacenter": "dc", "cluster": "c"}
    if fleet:
        parts["fleet"] = {"ova_path": "a.ova", "network": "vsa", "datastore": "san", "appliances": appliances}
    if nfs:
        parts["nfs"] = {"name": "arc-nfs", "server": "10.0.0.22", "path": "/tank/vdi"}
    if pool:
        parts["pool"] = {"name": "p", "count": 2, "naming": "zc-##", "folder": "zc", "golden_vm": "g",
                         "snapshot": "s", "datastore": "arc-nfs", "clone": "full", "full_copy": full_copy}  # fmt: skip
    return DeploymentPlan.model_validate(parts)


SERVED = [appliance(1, "10.0.0.21"), appliance(2, "10.0.0.22", api_thumbprint_sha256=PIN)]


def test_the_clones_are_on_the_appliance_the_datastore_mounts_with_its_pin() -> None:
    assert zfs_clones(plan(SERVED)) == ZfsClones("vsa-2", "10.0.0.22:443", PIN, "tank", "tank/vdi", "arc-nfs")
    assert zfs_clones(plan(SERVED), {"vsa-2": OTHER_PIN}).thumbprint == OTHER_PIN  # type: ignore[union-attr]
    assert zfs_clones(plan(SERVED), {"vsa-1": OTHER_PIN}).thumbprint == PIN  # type: ignore[union-attr]
    unpinned = plan([appliance(1, "10.0.0.21"), appliance(2, "10.0.0.22")])
    assert zfs_clones(unpinned).thumbprint is None  # type: ignore[union-attr]
    assert zfs_clones(unpinned, {"vsa-2": OTHER_PIN}).thumbprint == OTHER_PIN  # type: ignore[union-attr]


def test_an_appliance_api_at_another_address_is_used() -> None:
    lab = plan([appliance(1, "10.0.0.22", api_endpoint="127.0.0.1:10443")])
    assert zfs_clones(lab).endpoint == "127.0.0.1:10443"  # type: ignore[union-attr]


def test_no_clones_without_a_zfs_pool_a_fleet_a_datastore_or_an_api() -> None:
    assert zfs_clones(plan(SERVED, full_copy="vsphere")) is None
    assert zfs_clones(plan(SERVED, pool=False)) is None
    assert zfs_clones(plan(SERVED, fleet=False)) is None
    assert zfs_clones(plan(SERVED, nfs=False)) is None
    assert zfs_clones(plan([appliance(1)])) is None, "an appliance with no address has no api to reach"


def vm(name: str, path: str) -> LiveVm:
    return LiveVm(moid=f"vm-{name}", name=name, folder="group-1", power_state="poweredOff", owner="dep",
                  source="g@s", snapshots={}, committed_bytes=0, disks=[], vm_path=path)  # fmt: skip


def live(*vms: LiveVm) -> LiveState:
    return LiveState(datacenter="dc", vm_folder="group-1", cluster=None, root_pool=None, cluster_memory_bytes=0,
                     hosts={}, cluster_hosts={}, datastores={}, networks={}, kinds={}, folders={},
                     folder_owners={}, pools={}, pool_owners={}, vms={v.name: [v] for v in vms})  # fmt: skip


def test_a_desktop_is_a_clone_when_registered_from_its_own_folder_of_the_datastore() -> None:
    zfs = ZfsClones("vsa-2", "10.0.0.22:443", PIN, "tank", "tank/vdi", "arc-nfs")
    state = live(
        vm("zc-01", "[arc-nfs] zc-01/zc-01.vmx"),
        vm("zc-02", "[arc-nfs] zc-01/zc-02.vmx"),  # another desktop's folder
        vm("zc-03", "[san] zc-03/zc-03.vmx"),  # another datastore
        vm("zc-04", ""),
        vm("zc-05", "[arc-nfs] zc-05/other.vmx"),
    )
    names = ["zc-01", "zc-02", "zc-03", "zc-04", "zc-05", "zc-06"]
    assert cloned_desktops(zfs, state, names) == ["zc-01", "zc-05"]
