"""Placement against vcsim: an appliance on the wrong host is moved back by vMotion (RelocateVM_Task), an
appliance the plan no longer names is reported as an orphan and removed by destroy (foreign VMs and resource
pools stay), an appliance the lab's hosts have no room for is refused on its host's field before any change
(one that fills a host's free memory exactly is not), and the hosts' VMkernel addresses come from vCenter
for the NFS export's clients."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyVmomi import vim
from support.api import client_for, logged_in, make_settings
from support.provisioning import find, foreign_vm, login_for

from lab.vcsim import CLUSTER, DATACENTER, DATASTORES, Vcsim, wait_for_task
from provisioning import apply as prov
from provisioning import ownership
from provisioning.destroy import destroy
from provisioning.errors import InsufficientResources
from provisioning.plan import DeploymentPlan

pytestmark = pytest.mark.integration
OWNER = "placed"


def appliance_vm(si: vim.ServiceInstance, name: str, host: str, memory_mb: int = 256) -> vim.VirtualMachine:
    """A VM standing in for an appliance this deployment made (marked as its), powered on on `host`."""
    cluster = find(si, f"host/{CLUSTER}")
    spec = vim.vm.ConfigSpec(
        name=name,
        guestId="otherGuest",
        numCPUs=1,
        memoryMB=memory_mb,
        files=vim.vm.FileInfo(vmPathName=f"[{DATASTORES[0]}]"),
    )
    task = find(si, "").vmFolder.CreateVM_Task(spec, cluster.resourcePool, find(si, f"host/{CLUSTER}/{host}"))
    vm = wait_for_task(si, task, 30)
    assert isinstance(vm, vim.VirtualMachine)
    wait_for_task(si, vm.PowerOnVM_Task(), 30)
    content = si.RetrieveContent()
    ownership.mark(content, ownership.field_keys(content), vm, owner=OWNER)
    return vm


def fleet_plan(host: str, size: str = "small") -> DeploymentPlan:
    appliance = {"host": host, "name": "placed-vsa-1"}
    fleet = {"ova_path": "absent.ova", "network": "vsa-nfs", "datastore": DATASTORES[0], "size": size,
             "appliances": [appliance]}  # fmt: skip
    return DeploymentPlan.model_validate(
        {"name": OWNER, "datacenter": DATACENTER, "cluster": CLUSTER, "fleet": fleet}
    )


def test_misplaced_appliance_is_moved_back_and_the_orphan_goes_with_destroy(
    site: Vcsim, si: vim.ServiceInstance
) -> None:
    moved = appliance_vm(si, "placed-vsa-1", "DC0_C0_H1")
    orphan = appliance_vm(si, "placed-vsa-2", "DC0_C0_H2")
    stranger = foreign_vm(si, "placed-stranger")
    rp = find(si, f"host/{CLUSTER}").resourcePool.CreateResourcePool(
        "placed-foreign-rp", vim.ResourceConfigSpec(cpuAllocation=_unlimited(), memoryAllocation=_unlimited())
    )
    plan = fleet_plan("DC0_C0_H0")

    changes = prov.plan(si, plan)
    assert [(a.op, a.kind, a.name, a.host) for a in changes.actions] == [
        ("move", "appliance", "placed-vsa-1", "DC0_C0_H0"),
        ("orphan", "appliance", "placed-vsa-2", "DC0_C0_H2"),
    ]
    assert changes.unchanged == 0
    assert "vMotion from DC0_C0_H1 to DC0_C0_H0" in changes.actions[0].detail

    report = prov.apply(login_for(site), plan)
    assert report.failed == {} and report.done == ["vmotion:placed-vsa-1"]
    assert moved.runtime.host.name == "DC0_C0_H0"
    assert orphan.runtime.host.name == "DC0_C0_H2", "apply keeps the orphan where it is"

    again = prov.plan(si, plan)
    assert [(a.op, a.name) for a in again.actions] == [("orphan", "placed-vsa-2")]
    assert again.unchanged == 1, "in place now that it runs on its own host"

    gone = destroy(login_for(site), OWNER, DATACENTER, CLUSTER)
    assert sorted(gone.done) == ["placed-vsa-1", "placed-vsa-2"]
    assert find(si, "vm/placed-vsa-1") is None and find(si, "vm/placed-vsa-2") is None
    assert find(si, "vm/placed-stranger") is not None and stranger.runtime.powerState
    assert rp.name == "placed-foreign-rp" and rp in find(si, f"host/{CLUSTER}").resourcePool.resourcePool


def test_an_appliance_the_lab_hosts_cannot_fit_is_refused_before_any_change(si: vim.ServiceInstance) -> None:
    small_host = find(si, f"host/{CLUSTER}/DC0_C0_H3")
    free = small_host.summary.hardware.memorySize - small_host.summary.quickStats.overallMemoryUsage * 1024**2
    assert 16 * 1024**3 <= free < 32 * 1024**3, "the lab's last host has 24 GiB: Medium fits, Large does not"
    vms_before = len(small_host.vm)
    for size in ("small", "medium"):
        made = [(a.op, a.name, a.host) for a in prov.plan(si, fleet_plan("DC0_C0_H3", size=size)).actions]
        assert made == [("create", "placed-vsa-1", "DC0_C0_H3")], size
    assert len(prov.plan(si, fleet_plan("DC0_C0_H2", size="large")).actions) == 1, "a 128 GiB host has room"
    with pytest.raises(
        InsufficientResources,
        match=r"placed-vsa-1 \(Large \(8 vCPU, 32 GiB RAM\)\) needs 32\.0 GiB of memory; "
        r"host 'DC0_C0_H3' has 22\.6 GiB free of 24\.0 GiB",
    ) as caught:
        prov.plan(si, fleet_plan("DC0_C0_H3", size="large"))
    assert caught.value.field == "fleet.appliances.0.host"
    assert len(small_host.vm) == vms_before


def test_an_appliance_moves_to_a_host_whose_free_memory_it_fills_exactly_and_not_one_mib_more(
    site: Vcsim, si: vim.ServiceInstance
) -> None:
    summary = find(si, f"host/{CLUSTER}/DC0_C0_H3").summary
    free_mib = summary.hardware.memorySize // 1024**2 - summary.quickStats.overallMemoryUsage
    vm = appliance_vm(si, "placed-vsa-1", "DC0_C0_H2", memory_mb=free_mib)  # a VM to move weighs its own size
    try:
        moved = prov.plan(si, fleet_plan("DC0_C0_H3"))
        assert [(a.op, a.name, a.host) for a in moved.actions] == [("move", "placed-vsa-1", "DC0_C0_H3")]
        wait_for_task(si, vm.PowerOffVM_Task(), 30)
        wait_for_task(si, vm.ReconfigVM_Task(vim.vm.ConfigSpec(memoryMB=free_mib + 1)), 30)
        with pytest.raises(InsufficientResources, match=r"host 'DC0_C0_H3' has 22\.6 GiB free") as caught:
            prov.plan(si, fleet_plan("DC0_C0_H3"))
        assert caught.value.field == "fleet.appliances.0.host"
        assert vm.runtime.host.name == "DC0_C0_H2"
    finally:
        destroy(login_for(site), OWNER, DATACENTER, CLUSTER)
    assert find(si, "vm/placed-vsa-1") is None


def test_the_hosts_nfs_addresses_come_from_their_vmkernel_nics(site: Vcsim, tmp_path: Path) -> None:
    with client_for(make_settings(tmp_path)) as c:
        admin = logged_in(c)
        made = admin.post("/api/vcenters", json=_form(site))
        assert made.status_code == 201, made.text
        r = admin.get(f"/api/vcenters/{made.json()['id']}/nfs-clients")
        assert r.status_code == 200, r.text
        hosts = {h["host"]: h for h in r.json()}
        member = hosts["DC0_C0_H0"]
        assert member["datacenter"] == DATACENTER and member["cluster"] == CLUSTER
        # vcsim's vmk0 is management-tagged, on 127.0.0.1 (an added host's on its address)
        assert member["vmkernel"] == [
            {"device": "vmk0", "address": "127.0.0.1", "portgroup": "Management Network",
             "services": ["management"], "nfs": True}
        ]  # fmt: skip
        assert member["addresses"] == ["127.0.0.1"]
        assert admin.get("/api/vcenters/999/nfs-clients").status_code == 404


def _form(sim: Vcsim) -> dict[str, Any]:
    return {"name": "lab-vc", "host": sim.host, "port": sim.port, "username": sim.username,
            "password": sim.password, "thumbprint_sha256": sim.thumbprint_sha256}  # fmt: skip


def _unlimited() -> vim.ResourceAllocationInfo:
    return vim.ResourceAllocationInfo(
        reservation=0, limit=-1, expandableReservation=True, shares=vim.SharesInfo(level="normal", shares=0)
    )
