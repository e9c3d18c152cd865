"""The appliance fleet: per host, import the OVA, attach the LUN disks, power on, wait for its api."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyVmomi import vim

from provisioning import ownership
from provisioning.diff import Action
from provisioning.health import HealthProbe
from provisioning.live import LiveState
from provisioning.ovf_import import Progress, import_ova
from provisioning.plan import ApplianceSpec, Fleet, LunDisk
from provisioning.tasks import Vc, Work

GIB_KB = 1024 * 1024


def disk_changes(vm: Any, disks: list[LunDisk], first: int) -> list[Any]:
    """DeviceSpecs adding thin disks `disks[first:]` on the VM's first SCSI controller."""
    devices = vm.config.hardware.device
    controller = next(d for d in devices if isinstance(d, vim.vm.device.VirtualSCSIController))
    used = {d.unitNumber for d in devices if getattr(d, "controllerKey", None) == controller.key}
    free = (u for u in range(16) if u != 7 and u not in used)  # unit 7 is the controller's own
    changes = []
    for i, disk in enumerate(disks[first:]):
        backing = vim.vm.device.VirtualDisk.FlatVer2BackingInfo(
            fileName=f"[{disk.datastore}]", diskMode="persistent", thinProvisioned=True
        )
        device = vim.vm.device.VirtualDisk(
            key=-100 - i,
            controllerKey=controller.key,
            unitNumber=next(free),
            capacityInKB=disk.size_gb * GIB_KB,
            backing=backing,
        )
        changes.append(
            vim.vm.device.VirtualDeviceSpec(operation="add", fileOperation="create", device=device)
        )
    return changes


def appliance_works(
    vc: Vc,
    owner: str,
    fleet: Fleet,
    live: LiveState,
    actions: list[Action],
    keys: dict[str, int],
    *,
    probe: HealthProbe,
    password: str | None,
    on_bytes: Progress | None = None,
) -> list[Work]:
    """One Work per appliance the diff touches: import → mark → disks → power on → health."""
    assert live.root_pool is not None
    specs = {a.name: a for a in fleet.appliances}
    touched = {a.name.split("/#")[0] for a in actions if a.kind in ("appliance", "disk")}
    pool_id, folder_id = live.root_pool, live.vm_folder
    ds_id, net_id = live.datastores[fleet.datastore].moid, live.networks[fleet.network]

    def deploy(spec: ApplianceSpec) -> Any:
        def step(vc: Vc, _: Any) -> Any:
            values = {**fleet.properties, **spec.properties}
            if password:
                values["admin_password"] = password
            vm = import_ova(
                vc.si,
                Path(fleet.ova_path),
                name=spec.name,
                option=fleet.size,
                values=values,
                pool=vc.ref(vim.ResourcePool, pool_id),
                folder=vc.ref(vim.Folder, folder_id),
                datastore=vc.ref(vim.Datastore, ds_id),
                network=vc.ref(getattr(vim, live.kinds[net_id]), net_id),
                host=vc.ref(vim.HostSystem, live.cluster_hosts[spec.host]),
                on_progress=on_bytes,
            )
            ownership.mark(vc.content, keys, vm, owner=owner)
            return vm

        return step

    def attach(spec: ApplianceSpec) -> Any:
        def step(vc: Vc, vm: Any) -> Any:
            have = sum(isinstance(d, vim.vm.device.VirtualDisk) for d in vm.config.hardware.device) - 1
            changes = disk_changes(vm, spec.disks, max(have, 0))
            return vm.ReconfigVM_Task(vim.vm.ConfigSpec(deviceChange=changes)) if changes else vm

        return step

    def power_on(vc: Vc, vm: Any) -> Any:
        return vm if vm.runtime.powerState == "poweredOn" else vm.PowerOnVM_Task()

    def healthy(spec: ApplianceSpec) -> Any:
        def step(vc: Vc, vm: Any) -> Any:
            probe(spec, fleet.health_timeout_s)
            return vm

        return step

    works = []
    for name in sorted(touched):
        spec = specs[name]
        vm = live.vm(name)
        first = (lambda m: lambda vc, _: vc.ref(vim.VirtualMachine, m))(vm.moid) if vm else deploy(spec)
        works.append(Work(key=name, steps=[first, attach(spec), power_on, healthy(spec)]))
    return works
