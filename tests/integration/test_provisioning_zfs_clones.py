"""Full clones through ZFS clones (pool.full_copy 'zfs') against vcsim and the appliance api on replay.

The appliance's api is the real arcvsa app whose tools replay the lab VM's recording 'zfs_clones'.
vcsim runs no NFS: its NFS datastore is a folder of its working directory, so the test stands in for what
a ZFS clone makes visible through the export: when the replayed `zfs clone` succeeds, the golden VM's
folder is copied to the clone's folder. vcsim's RegisterVM also opens '<vm name>.nvram' beside the VMX
(a real host reads the nvram name from the VMX), so that file is added too.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance import fleet_flows
from fixtures.appliance.replay import ReplayRunner
from pyVmomi import vim
from support.appliance_server import replayed_appliances
from support.ova import make_ova
from support.provisioning import NFS, find, login_for, owner_of

from appliance.control.gateway import Result, Runner
from lab.daemon import free_port
from lab.vcsim import CLUSTER, DATACENTER, Vcsim, wait_for_task
from provisioning import apply as prov
from provisioning.appliance_api import ApplianceApi
from provisioning.destroy import destroy, zfs_clones
from provisioning.plan import DeploymentPlan
from provisioning.progress import Event, Options

pytestmark = pytest.mark.integration


class NfsView:
    """The replay, plus the files a ZFS clone shows through the export, in vcsim's NFS folder."""

    def __init__(self, inner: ReplayRunner, folder: Path) -> None:
        self.inner, self.folder = inner, folder

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        result = self.inner.execute(argv, timeout=timeout, input_text=input_text)
        if list(argv[:2]) == ["zfs", "clone"] and result.exit_code == 0:
            name = argv[-1].rsplit("/", 1)[-1]
            shutil.copytree(self.folder / fleet_flows.GOLDEN, self.folder / name)
            (self.folder / name / f"{name}.nvram").touch()  # vcsim's RegisterVM wants <name>.nvram
        return result


def viewer(folder: Path) -> Callable[[ReplayRunner], Runner]:
    return lambda runner: NfsView(runner, folder)


def zfs_plan(endpoint: str, ova: Path, pool: bool) -> DeploymentPlan:
    plan: dict[str, Any] = {
        "name": "zfs",
        "datacenter": DATACENTER,
        "cluster": CLUSTER,
        "fleet": {
            "ova_path": str(ova), "network": "vsa-nfs", "datastore": "san-lun-01",
            "admin_password": fleet_flows.PASSWORD, "health_timeout_s": 5,
            "appliances": [{
                "host": "DC0_C0_H0", "name": "zfs-vsa-0", "api_endpoint": endpoint,
                "properties": {"ipv4_mode": "static", "ipv4_address": "192.0.2.21"},
                "disks": [{"datastore": "san-lun-01", "size_gb": 50, "guest_path": p} for p in fleet_flows.LUNS],
            }],
        },
        "nfs": {
            "name": NFS, "server": "192.0.2.21", "path": f"/{fleet_flows.DATASET}", "version": "3",
            "profile": fleet_flows.CLONE_PROFILE, "clients": [fleet_flows.LAB_HOST],
        },
    }  # fmt: skip
    if pool:
        plan["pool"] = {
            "name": "zc", "count": len(fleet_flows.DESKTOPS), "naming": "zc-##", "folder": "zc",
            "golden_vm": fleet_flows.GOLDEN, "snapshot": fleet_flows.SNAPSHOT, "datastore": NFS,
            "clone": "full", "full_copy": "zfs", "persistence": "persistent", "memory_mb": 1024, "vcpus": 1,
        }  # fmt: skip
    return DeploymentPlan.model_validate(plan)


def golden_on_the_datastore(si: vim.ServiceInstance) -> vim.VirtualMachine:
    """The admin's part: a golden VM with a disk in its folder of the arcvsa datastore, and a snapshot."""
    dc, cluster = find(si, ""), find(si, f"host/{CLUSTER}")
    controller = vim.vm.device.ParaVirtualSCSIController(key=1000, busNumber=0, sharedBus="noSharing")
    disk = vim.vm.device.VirtualDisk(
        key=-1,
        controllerKey=1000,
        unitNumber=0,
        capacityInKB=4 * 1024**2,
        backing=vim.vm.device.VirtualDisk.FlatVer2BackingInfo(
            fileName=f"[{NFS}]", diskMode="persistent", thinProvisioned=True
        ),
    )
    spec = vim.vm.ConfigSpec(
        name=fleet_flows.GOLDEN,
        guestId="windows11_64Guest",
        numCPUs=2,
        memoryMB=2048,
        files=vim.vm.FileInfo(vmPathName=f"[{NFS}]"),
        deviceChange=[
            vim.vm.device.VirtualDeviceSpec(operation="add", device=controller),
            vim.vm.device.VirtualDeviceSpec(operation="add", fileOperation="create", device=disk),
        ],
    )
    vm = wait_for_task(si, dc.vmFolder.CreateVM_Task(spec, cluster.resourcePool), 30)
    wait_for_task(si, vm.CreateSnapshot_Task(fleet_flows.SNAPSHOT, "golden", False, False), 30)
    assert isinstance(vm, vim.VirtualMachine)
    return vm


def test_full_clones_through_zfs_clones_then_a_resumed_apply_and_destroy(
    site: Vcsim, si: vim.ServiceInstance, tmp_path: Path
) -> None:
    assert site.workdir is not None
    (tmp_path / "ova").mkdir()
    ova = make_ova(tmp_path / "ova")
    with replayed_appliances(
        tmp_path, 1, "zfs_clones", fleet_flows.PASSWORD, wrap=viewer(site.workdir / NFS)
    ) as apis:
        [(server, runner)] = apis
        report = prov.apply(login_for(site), zfs_plan(server.endpoint, ova, pool=False))
        assert not report.failed, report.failed

        golden = golden_on_the_datastore(si)
        assert golden.config is not None
        assert golden.config.files.vmPathName == f"[{NFS}] {fleet_flows.GOLDEN}/{fleet_flows.GOLDEN}.vmx"
        admin = ApplianceApi(server.endpoint, server.thumbprint)
        admin.login(fleet_flows.PASSWORD)  # the golden's folder as a dataset of its own
        admin.call("POST", "/api/storage/datasets", {"name": f"{fleet_flows.DATASET}/{fleet_flows.GOLDEN}",
                                                     "profile": fleet_flows.CLONE_PROFILE})  # fmt: skip

        plan = zfs_plan(server.endpoint, ova, pool=True)
        assert prov.plan(si, plan).counts() == {"create folder": 1, "create desktop": 3}
        unreachable = zfs_plan(f"127.0.0.1:{free_port()}", ova, pool=True)  # the appliance's api is gone
        report = prov.apply(login_for(site), unreachable)
        assert list(report.failed) == [f"zfs-copy:{fleet_flows.GOLDEN}"], report
        assert "Unreachable" in report.failed[f"zfs-copy:{fleet_flows.GOLDEN}"]
        assert find(si, "vm/zc/zc-01") is None, "no desktop without its clone"
        before = len(runner.calls)
        events: list[Event] = []
        report = prov.apply(login_for(site), plan, Options(on_event=events.append))
        assert not report.failed, report.failed
        made = [c for c in runner.calls[before:] if c[1] in ("snapshot", "clone")]
        golden_ds = f"{fleet_flows.DATASET}/{fleet_flows.GOLDEN}"
        assert [c[1] for c in made] == ["snapshot", "clone", "clone", "clone"]
        assert made[0][-1] == f"{golden_ds}@arcvsa-{fleet_flows.SNAPSHOT}"
        assert sorted(c[-1] for c in made[1:]) == [f"{fleet_flows.DATASET}/{n}" for n in fleet_flows.DESKTOPS]
        assert any("ZFS clones from" in e.message and "taken now" in e.message for e in events)

        for name in fleet_flows.DESKTOPS:
            vm = find(si, f"vm/zc/{name}")
            assert vm.config.files.vmPathName == f"[{NFS}] {name}/{fleet_flows.GOLDEN}.vmx", (
                "registered, not copied"
            )
            assert owner_of(vm) == {"arcvsa.owner": "zfs", "arcvsa.source": f"{fleet_flows.GOLDEN}@base"}
            assert ("uuid.action", "create") in {(o.key, o.value) for o in vm.config.extraConfig}
            assert vm.runtime.powerState == "poweredOn" and vm.config.hardware.memoryMB == 1024
        tasks = si.content.taskManager
        assert tasks is not None
        assert not any(t.info.descriptionId == "VirtualMachine.clone" for t in tasks.recentTask or [])

        assert prov.plan(si, plan).actions == [], "a second apply has nothing to do"
        # a desktop lost after its clone was made: the next apply registers it from the clone in place
        vm = find(si, "vm/zc/zc-02")
        wait_for_task(si, vm.PowerOffVM_Task(), 30)
        vm.UnregisterVM()
        calls = len(runner.calls)
        report = prov.apply(login_for(site), plan)
        assert not report.failed and report.done == ["zc-02"], report
        # looked (at the appliance's published datasets): nothing ran, nothing cloned again
        assert runner.calls[calls:] == [], runner.calls[calls:]
        assert find(si, "vm/zc/zc-02").config.files.vmPathName == f"[{NFS}] zc-02/{fleet_flows.GOLDEN}.vmx"

        fleet_flows.foreign_clone(admin)  # the admin's own clone of the golden, named like a desktop
        wait_for_task(si, golden.Destroy_Task(), 30)  # the admin's VM: destroy must not need it
        calls = len(runner.calls)
        events = []
        zfs = zfs_clones(plan)
        assert zfs is not None and (zfs.endpoint, zfs.dataset) == (server.endpoint, fleet_flows.DATASET)
        opts = Options(password=fleet_flows.PASSWORD, on_event=events.append)
        report = destroy(login_for(site), "zfs", DATACENTER, CLUSTER, opts, zfs=zfs)
        assert not report.failed, report.failed
        destroyed = [c[2:] for c in runner.calls[calls:] if c[:2] == ["zfs", "destroy"]]
        golden_snap = f"{golden_ds}@arcvsa-{fleet_flows.SNAPSHOT}"
        assert destroyed == [[f"{fleet_flows.DATASET}/{n}"] for n in fleet_flows.DESKTOPS] + [
            [golden_snap]
        ], "arcvsa's clones, then its snapshot; never -r/-R, never the admin's clone or golden dataset"
        order = [e.object for e in events if e.kind == "done"]
        assert order.index("zfs-clones:zfs-vsa-0") > max(order.index(n) for n in fleet_flows.DESKTOPS), (
            "the clones go once their VMs are destroyed"
        )
        assert order.index("zfs-clones:zfs-vsa-0") < order.index("zfs-vsa-0"), "before the appliance goes"
    assert find(si, "vm/zc/zc-01") is None and find(si, "vm/zfs-vsa-0") is None
