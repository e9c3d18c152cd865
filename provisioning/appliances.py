"""The appliance fleet: per host, import the OVA, attach the LUN disks, power on, wait for its api, then
have the appliance build its pool, dataset and NFS export through that api (provisioning.appliance_api).

LUN disks go on the first SCSI controller in plan order: a thin VMDK on a VMFS datastore, or a
physical-mode RDM of a host LUN. `disk.EnableUUID` is set with them, so the guest sees each VMDK's uuid
as its WWN and the storage step can tell which guest disk is which.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyVmomi import vim

from provisioning import ovf_environment, ownership
from provisioning.appliance_api import (
    ApplianceApi,
    StorageTarget,
    by_role,
    ensure_storage,
    guest_paths,
    wwn_of_naa,
    wwn_of_vmdk,
)
from provisioning.appliance_errors import ApplianceApiError
from provisioning.diff import Action
from provisioning.errors import LunNotFound
from provisioning.health import HealthProbe, HealthWait, endpoint_of
from provisioning.live import LiveLun, LiveState
from provisioning.ovf_import import Progress, import_ova
from provisioning.plan import ApplianceSpec, Fleet, LunDisk, NfsDatastore
from provisioning.tasks import Vc, Work

GIB_KB = 1024 * 1024


ENABLE_UUID = vim.option.OptionValue(key="disk.EnableUUID", value="TRUE")
Notify = Callable[[str, str, str], None]  # (object, event kind, message)


def disk_changes(
    vm: Any,
    disks: list[LunDisk],
    first: int,
    luns: dict[str, LiveLun] | None = None,
    home: str = "",
) -> list[Any]:
    """DeviceSpecs adding `disks[first:]` on the VM's first SCSI controller (thin VMDKs or RDMs).

    `luns`: the host's SCSI disks by canonical name (RDMs); `home`: the VM's datastore, where an RDM's
    mapping file goes when its disk names none.
    """
    devices = vm.config.hardware.device
    controller = next(d for d in devices if isinstance(d, vim.vm.device.VirtualSCSIController))
    used = {d.unitNumber for d in devices if getattr(d, "controllerKey", None) == controller.key}
    free = (u for u in range(16) if u != 7 and u not in used)  # unit 7 is the controller's own
    changes = []
    for i, disk in enumerate(disks[first:]):
        backing: Any
        if disk.rdm_lun is not None:
            lun = (luns or {}).get(disk.rdm_lun)
            if lun is None:  # diff.check refuses this before any change; a LUN may vanish in between
                raise LunNotFound(f"the host no longer sees LUN {disk.rdm_lun!r}", field="fleet.appliances")
            backing = vim.vm.device.VirtualDisk.RawDiskMappingVer1BackingInfo(
                fileName=f"[{disk.datastore or home}]",
                deviceName=lun.device_path,
                lunUuid=lun.uuid,
                compatibilityMode="physicalMode",
                diskMode="independent_persistent",
            )
            capacity_kb = lun.capacity_bytes // 1024
        else:
            backing = vim.vm.device.VirtualDisk.FlatVer2BackingInfo(
                fileName=f"[{disk.datastore}]", diskMode="persistent", thinProvisioned=True
            )
            capacity_kb = (disk.size_gb or 0) * GIB_KB
        device = vim.vm.device.VirtualDisk(
            key=-100 - i,
            controllerKey=controller.key,
            unitNumber=next(free),
            capacityInKB=capacity_kb,
            backing=backing,
        )
        changes.append(
            vim.vm.device.VirtualDeviceSpec(operation="add", fileOperation="create", device=device)
        )
    return changes


def lun_disk_wwns(vm: Any, disks: list[LunDisk]) -> list[str | None]:
    """The WWN the guest sees for each planned LUN disk (the VM's disks after the boot disk, in order)."""
    attached = [d for d in vm.config.hardware.device if isinstance(d, vim.vm.device.VirtualDisk)][1:]
    wwns: list[str | None] = []
    for disk, device in zip(disks, attached, strict=False):
        if disk.rdm_lun:
            wwns.append(wwn_of_naa(disk.rdm_lun))
        else:
            uuid = getattr(device.backing, "uuid", None)
            wwns.append(wwn_of_vmdk(uuid) if uuid else None)
    return wwns


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
    storage: tuple[NfsDatastore, str, list[str], str] | None = None,
    notify: Notify | None = None,
    pins: dict[str, str] | None = None,
) -> list[Work]:
    """One Work per appliance the diff touches: import → mark → disks → power on → health → storage.

    `storage`: (the NFS datastore, the dataset's tuning profile, the export's clients, the signature to
    mark the VM with) when the appliances serve the datastore. `notify` hears 'pin' events (appliance,
    the thumbprint pinned on first contact: record it) and 'info' events: each appliance's state as it
    changes (VM imported, powered on, address seen, TLS answered, api healthy, pool, dataset, export) and
    what its health wait sees while it waits. `pins` gets the certificate each appliance presented, for
    later phases of the same run. Every step stops at the run's cancel switch (vc.cancelled).
    """
    assert live.root_pool is not None
    say = notify or (lambda *_: None)
    specs = {a.name: a for a in fleet.appliances}
    touched = {a.name.split("/#")[0] for a in actions if a.kind in ("appliance", "disk", "storage")}
    pins = {} if pins is None else pins
    pool_id, folder_id = live.root_pool, live.vm_folder
    secrets = ovf_environment.secret_keys()
    ds_id, net_id = live.datastores[fleet.datastore].moid, live.networks[fleet.network]
    # without a storage port group the storage NIC sits on the management one, unconfigured
    storage_id = live.networks[fleet.storage_network] if fleet.storage_network else None

    def deploy(spec: ApplianceSpec) -> Any:
        def step(vc: Vc, _: Any) -> Any:
            values = fleet.ovf_values(spec)
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
                storage_network=vc.ref(getattr(vim, live.kinds[storage_id]), storage_id)
                if storage_id
                else None,
                host=vc.ref(vim.HostSystem, live.cluster_hosts[spec.host]),
                on_progress=on_bytes,
                cancelled=vc.cancelled,
            )
            ownership.mark(vc.content, keys, vm, owner=owner)
            say(spec.name, "info", f"VM imported on {spec.host}")
            return vm

        return step

    def attach(spec: ApplianceSpec) -> Any:
        def step(vc: Vc, vm: Any) -> Any:
            have = sum(isinstance(d, vim.vm.device.VirtualDisk) for d in vm.config.hardware.device) - 1
            changes = disk_changes(
                vm, spec.disks, max(have, 0), live.host_luns.get(spec.host, {}), fleet.datastore
            )
            if not changes:
                return vm
            say(spec.name, "info", f"attaching {len(changes)} disk{'s' if len(changes) > 1 else ''}")
            return vm.ReconfigVM_Task(vim.vm.ConfigSpec(deviceChange=changes, extraConfig=[ENABLE_UUID]))

        return step

    def power_on(spec: ApplianceSpec) -> Any:
        def step(vc: Vc, vm: Any) -> Any:
            if vm.runtime.powerState == "poweredOn":
                return vm
            say(spec.name, "info", "powering on")
            return vm.PowerOnVM_Task()

        return step

    def healthy(spec: ApplianceSpec) -> Any:
        def step(vc: Vc, vm: Any) -> Any:
            say(spec.name, "info", "VM powered on")
            wait = HealthWait(
                boot_s=fleet.health_timeout_s,
                say=lambda words: say(spec.name, "info", words),
                cancelled=vc.cancelled,
                guest_ip=lambda: vm.guest.ipAddress if vm.guest else None,
            )
            pin = probe(spec, wait)
            pins[spec.name] = pin
            if pin and pin != spec.api_thumbprint_sha256:
                say(spec.name, "pin", pin)
            return vm

        return step

    def forget_secrets(spec: ApplianceSpec) -> Any:
        def step(vc: Vc, vm: Any) -> Any:
            change = ovf_environment.forget(vm, secrets)
            if change is None:
                return vm
            say(
                spec.name,
                "info",
                "first boot done: admin password cleared from the vApp settings, CD-ROM disconnected",
            )
            return vm.ReconfigVM_Task(change)

        return step

    def build_storage(spec: ApplianceSpec) -> Any:
        assert storage is not None
        nfs, profile, clients, mark = storage

        def step(vc: Vc, vm: Any) -> Any:
            endpoint = endpoint_of(spec)
            pin = pins.get(spec.name) or spec.api_thumbprint_sha256
            if endpoint is None or not pin:  # the health step found both, unless a probe was swapped
                raise ApplianceApiError(f"{spec.name}: no pinned api endpoint to build its storage through")
            api = ApplianceApi(endpoint, pin, name=spec.name, cancelled=vc.cancelled)
            if not password:
                raise ApplianceApiError(
                    f"{spec.name}: no admin password to log in to its api", field="fleet.admin_password"
                )
            api.login(password)
            wanted = list(
                zip([d.guest_path for d in spec.disks], lun_disk_wwns(vm, spec.disks), strict=False)
            )
            seen = api.disks() if any(path is None for path, _ in wanted) else []
            pool, dataset = nfs.dataset()
            paths = by_role([d.role for d in spec.disks], guest_paths(spec.name, wanted, seen))
            target = StorageTarget(
                pool=pool,
                devices=paths["data"],
                dataset=dataset,
                profile=profile,
                protocol=nfs.version,
                clients=clients,
                log=paths["log"],
                cache=paths["cache"],
            )
            changed = ensure_storage(api, target, lambda words: say(spec.name, "info", words))
            say(spec.name, "info", "storage: " + ("; ".join(changed) or "in place already"))
            ownership.mark(vc.content, keys, vm, storage=mark)
            return vm

        return step

    works = []
    for name in sorted(touched):
        spec = specs[name]
        vm = live.vm(name)
        first = (lambda m: lambda vc, _: vc.ref(vim.VirtualMachine, m))(vm.moid) if vm else deploy(spec)
        steps = [first, attach(spec), power_on(spec), healthy(spec), forget_secrets(spec)]
        if storage is not None:
            steps.append(build_storage(spec))
        works.append(Work(key=name, steps=steps))
    return works
