"""Desktop pools: the folder and resource pool, then each desktop as one Work of tasks.

A desktop is cloned from the golden VM's snapshot (linked: a child disk on the snapshot's disks; full:
a copy), marked with its owner and source right away, set to the pool's vCPU and memory, and powered on.
Full clones on arcvsa can skip vSphere's copy (full_copy 'zfs'): the appliance clones the golden VM's
dataset per desktop (instant; blocks shared) and the desktop's VMX is registered from the clone's folder
on the NFS datastore (RegisterVM_Task), with `uuid.action = create` so it powers on as a copy.
Each clone is reported as asked for and then with its task's id, so that a clone which completes after
its run died is adopted by the next apply (provisioning.adoption) instead of taken for a foreign VM.
Recompose replaces desktops whose source differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyVmomi import vim

from provisioning import ownership
from provisioning.appliance_api import ApplianceApi, CloneSource, clone_desktop
from provisioning.diff import Action
from provisioning.errors import PlacementNotFound
from provisioning.live import LiveState
from provisioning.plan import DesktopPoolSpec
from provisioning.tasks import Vc, Work


def ensure_placement(
    vc: Vc, owner: str, pool: DesktopPoolSpec, live: LiveState, keys: dict[str, int]
) -> tuple[str, str]:
    """(folder moid, resource pool moid), creating and marking what is missing."""
    parent = live.vm_folder
    parts = pool.folder.split("/")
    folder = parent
    for depth in range(1, len(parts) + 1):
        path = "/".join(parts[:depth])
        folder = live.folders.get(path, "")
        if not folder:
            created = vc.ref(vim.Folder, parent).CreateFolder(parts[depth - 1])
            ownership.mark(vc.content, keys, created, owner=owner)
            folder = live.folders[path] = created._moId
        parent = folder
    assert live.root_pool is not None
    rp = live.root_pool
    if pool.resource_pool:
        rp = live.pools.get(pool.resource_pool, "")
        if not rp:
            unlimited = vim.ResourceAllocationInfo(
                reservation=0,
                limit=-1,
                expandableReservation=True,
                shares=vim.SharesInfo(level="normal", shares=0),
            )
            spec = vim.ResourceConfigSpec(cpuAllocation=unlimited, memoryAllocation=unlimited)
            created = vc.ref(vim.ResourcePool, live.root_pool).CreateResourcePool(pool.resource_pool, spec)
            ownership.mark(vc.content, keys, created, owner=owner)
            rp = live.pools[pool.resource_pool] = created._moId
    return folder, rp


def customization(vc: Vc, pool: DesktopPoolSpec) -> Any:
    """The pool's guest customization spec, or None; PlacementNotFound when it names none that exists."""
    if not pool.customization_spec:
        return None
    manager = vc.content.customizationSpecManager
    if manager is None or not manager.DoesCustomizationSpecExist(pool.customization_spec):
        raise PlacementNotFound(
            f"no customization spec {pool.customization_spec!r}", field="pool.customization_spec"
        )
    return manager.GetCustomizationSpec(pool.customization_spec).spec


@dataclass
class ZfsCopy:
    """How a full_copy='zfs' pool's desktops are made: through this appliance api, from this snapshot."""

    api: ApplianceApi
    source: CloneSource
    dataset: str  # the datastore's dataset, e.g. tank/vdi: a desktop's clone is dataset/<desktop name>
    datastore: str  # the NFS datastore's name
    vmx: str  # the golden VM's VMX file name, found again in each clone's folder


COPIED = vim.option.OptionValue(key="uuid.action", value="create")  # answer "I copied it" at power on


def desktop_works(
    vc: Vc,
    owner: str,
    pool: DesktopPoolSpec,
    live: LiveState,
    actions: list[Action],
    keys: dict[str, int],
    placement: tuple[str, str],
    custom: Any = None,
    zfs: ZfsCopy | None = None,
) -> list[Work]:
    """One Work per desktop action of the diff (create, replace, delete, power_on)."""
    golden = live.vm(pool.golden_vm)
    assert golden is not None
    golden_id, snapshot_id = golden.moid, golden.snapshots[pool.snapshot]
    folder_id, rp_id = placement
    ds_id = live.datastores[pool.datastore].moid
    note = f"Desktop of pool {pool.name}, deployment {owner}; made by arcvsa"

    def register(name: str) -> Any:
        assert zfs is not None

        def step(vc: Vc, _: Any) -> Any:
            clone_desktop(zfs.api, zfs.source, f"{zfs.dataset}/{name}")
            return vc.ref(vim.Folder, folder_id).RegisterVM_Task(
                path=f"[{zfs.datastore}] {name}/{zfs.vmx}",
                name=name,
                asTemplate=False,
                pool=vc.ref(vim.ResourcePool, rp_id),
            )

        step.adoptable = True  # type: ignore[attr-defined]  # asked for and its task id recorded: see adoption
        return step

    def clone(name: str) -> Any:
        if zfs is not None:
            return register(name)

        def step(vc: Vc, _: Any) -> Any:
            relocate = vim.vm.RelocateSpec(
                pool=vc.ref(vim.ResourcePool, rp_id), datastore=vc.ref(vim.Datastore, ds_id)
            )
            if pool.clone == "linked":
                relocate.diskMoveType = "createNewChildDiskBacking"
            spec = vim.vm.CloneSpec(
                location=relocate,
                snapshot=vc.ref(vim.vm.Snapshot, snapshot_id),
                powerOn=False,
                template=False,
                customization=custom,
                config=vim.vm.ConfigSpec(
                    numCPUs=pool.vcpus,
                    memoryMB=pool.memory_mb,
                    annotation=note,
                ),
            )
            return vc.ref(vim.VirtualMachine, golden_id).CloneVM_Task(
                folder=vc.ref(vim.Folder, folder_id), name=name, spec=spec
            )

        step.adoptable = True  # type: ignore[attr-defined]  # asked for and its task id recorded: see adoption
        return step

    def mark(vc: Vc, vm: Any) -> Any:
        ownership.mark(vc.content, keys, vm, owner=owner, source=pool.source)
        return vm

    def size(vc: Vc, vm: Any) -> Any:
        # a real vCenter applies the clone spec's config; vcsim 0.46 ignores it, so set it once more
        spec = vim.vm.ConfigSpec(numCPUs=pool.vcpus, memoryMB=pool.memory_mb, annotation=note)
        if zfs is not None:
            spec.extraConfig = [COPIED]
        return vm.ReconfigVM_Task(spec)

    def power_on(vc: Vc, vm: Any) -> Any:
        return vm.PowerOnVM_Task() if pool.power_on else vm

    def existing(moid: str) -> Any:
        return lambda vc, _: vc.ref(vim.VirtualMachine, moid)

    works = []
    for a in actions:
        if a.kind != "desktop":
            continue
        vm = live.vm(a.name)
        if a.op == "create":
            steps = [clone(a.name), mark, size, power_on]
        elif a.op == "replace" and vm:
            steps = [existing(vm.moid), power_off, destroy, clone(a.name), mark, size, power_on]
        elif a.op == "delete" and vm:
            steps = [existing(vm.moid), power_off, destroy]
        elif a.op == "power_on" and vm:
            steps = [existing(vm.moid), mark, size, power_on]  # it may be a clone adopted on resume
        else:
            continue
        works.append(Work(key=a.name, steps=steps))
    return works


def power_off(vc: Vc, vm: Any) -> Any:
    return vm.PowerOffVM_Task() if vm.runtime.powerState == "poweredOn" else vm


def destroy(vc: Vc, vm: Any) -> Any:
    return vm.Destroy_Task()
