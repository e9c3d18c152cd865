"""Plan versus live state: the checks that refuse a plan before any change, and the actions apply takes.

Pure functions over provisioning.plan and provisioning.live, so every rule is unit-tested on made-up
state. Objects owned by another deployment, or by nobody, are never in an action: a name the plan needs
that such an object holds is a NameCollision.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field

from ovf.hardware import APPLIANCE_HARDWARE
from provisioning.appliance_api import pool_words, signature
from provisioning.errors import (
    HostNotInCluster,
    InsufficientResources,
    InsufficientSpace,
    LunNotFound,
    NameCollision,
    PlacementNotFound,
    PlanError,
    SnapshotMissing,
)
from provisioning.live import LiveState, LiveVm
from provisioning.plan import DeploymentPlan, DesktopPoolSpec

GIB = 1024**3
MIB = 1024**2

Kind = Literal[
    "appliance", "disk", "storage", "nfs_mount", "folder", "resource_pool", "desktop", "horizon_pool"
]


class Action(BaseModel):
    op: Literal["create", "delete", "replace", "power_on", "move", "orphan"] = Field(
        description="What apply does; 'move' is a vMotion to the planned host; 'orphan' is only reported: "
        "an object this deployment made that the plan no longer names, which destroy removes"
    )
    kind: Kind = Field(description="What kind of object")
    name: str = Field(description="Object name (for a folder: its path; for a disk: 'vm/#n')")
    host: str | None = Field(default=None, description="ESXi host it concerns, for mounts and appliances")
    detail: str = Field(default="", description="Why, in words")


class Diff(BaseModel):
    actions: list[Action] = Field(description="Every change apply would make, in the order it makes them")
    unchanged: int = Field(description="Planned objects that exist already and are owned by this deployment")

    def counts(self) -> dict[str, int]:
        """{'create desktop': 100, ...}"""
        return dict(Counter(f"{a.op} {a.kind}" for a in self.actions))

    def of(self, kind: Kind, *ops: str) -> list[Action]:
        return [a for a in self.actions if a.kind == kind and (not ops or a.op in ops)]

    def to_make(self) -> Diff:
        """The actions apply takes: the diff without the orphans it only reports."""
        return Diff(actions=[a for a in self.actions if a.op != "orphan"], unchanged=self.unchanged)


def check(plan: DeploymentPlan, live: LiveState) -> None:
    """Raise the first PlanError that can be known now; return when apply may start."""
    if live.cluster is None:
        raise PlacementNotFound(
            f"datacenter {plan.datacenter!r} has no cluster {plan.cluster!r}", field="cluster"
        )
    collisions: list[str] = []
    if plan.fleet:
        f = plan.fleet
        for i, a in enumerate(f.appliances):
            if a.host not in live.cluster_hosts:
                where = (
                    "is not a member of" if a.host in live.hosts else "does not exist in the datacenter of"
                )
                raise HostNotInCluster(
                    f"host {a.host!r} {where} cluster {plan.cluster!r}", field=f"fleet.appliances.{i}.host"
                )
            for d in a.disks:
                if d.rdm_lun is not None:
                    _check_lun(a.host, d.rdm_lun, live, f"fleet.appliances.{i}.disks")
                if d.datastore is None:
                    continue
                ds = live.datastores.get(d.datastore)
                if ds is None or live.cluster_hosts[a.host] not in ds.hosts:
                    raise PlacementNotFound(
                        f"host {a.host!r} has no datastore {d.datastore!r}",
                        field=f"fleet.appliances.{i}.disks",
                    )
            vm = live.vm(a.name)
            if vm and vm.owner != plan.name:
                collisions.append(a.name)
            elif vm is None or vm.host != live.cluster_hosts[a.host]:  # it will start on this host
                _check_room(plan, i, live, vm)
        for port_group, where in ((f.network, "fleet.network"), (f.storage_network, "fleet.storage_network")):
            if port_group is not None:
                _check_port_group(plan, port_group, live, where)
        if f.datastore not in live.datastores:
            raise PlacementNotFound(f"no datastore {f.datastore!r}", field="fleet.datastore")
    if plan.nfs:
        ds = live.datastores.get(plan.nfs.name)
        if ds and ds.owner != plan.name:
            raise NameCollision(
                f"datastore {plan.nfs.name!r} exists and is not arcvsa's",
                names=[plan.nfs.name],
                field="nfs.name",
            )
        wanted = "NFS" if plan.nfs.version == "3" else "NFS41"
        if ds and ds.type and ds.type != wanted:  # a host mounting v3 and another v4.1 corrupts data
            raise PlanError(
                f"datastore {plan.nfs.name!r} is mounted as {ds.type}; the plan says {wanted}: "
                "destroy it first to change the version",
                field="nfs.version",
            )
    if plan.pool:
        _check_pool(plan, plan.pool, live, collisions)
    if collisions:
        shown = ", ".join(collisions[:5]) + (
            f" and {len(collisions) - 5} more" if len(collisions) > 5 else ""
        )
        raise NameCollision(
            f"names taken by VMs this deployment does not own: {shown}",
            names=collisions,
            field="pool.naming" if plan.pool else "fleet",
        )


def _check_port_group(plan: DeploymentPlan, port_group: str, live: LiveState, where: str) -> None:
    """Refuse a port group the datacenter lacks, or one an appliance's host does not see."""
    assert plan.fleet is not None
    if port_group not in live.networks:
        raise PlacementNotFound(f"no network {port_group!r}", field=where)
    for a in plan.fleet.appliances:
        stats = live.host_stats.get(a.host)
        if stats is not None and live.networks[port_group] not in stats.networks:
            raise PlacementNotFound(
                f"host {a.host!r} has no port group {port_group!r}: add it to the host's switch "
                "(or the host to the distributed switch), or choose another network",
                field=where,
            )


def _check_room(plan: DeploymentPlan, i: int, live: LiveState, vm: LiveVm | None) -> None:
    """Refuse an appliance its host has no room for: its memory free, a free core per vCPU.

    An appliance's RAM is its ZFS read cache: a host that must balloon or swap it serves desktops from
    disk, so memory is not overcommitted here. A VM to move there is weighed by its own size.
    """
    assert plan.fleet is not None
    a = plan.fleet.appliances[i]
    where = f"fleet.appliances.{i}.host"
    stats = live.host_stats.get(a.host)
    if stats is None:  # vCenter reports no figures for it (a host being added): nothing to weigh
        return
    if not stats.connected or stats.in_maintenance:
        state = "in maintenance mode" if stats.in_maintenance else "not connected"
        raise PlanError(f"host {a.host!r} is {state}: choose another host or bring it back", field=where)
    size = APPLIANCE_HARDWARE.option(plan.fleet.size)
    label, memory_mb, vcpus = size.label, size.memory_mb, size.vcpus
    if vm is not None and vm.memory_mb:  # a VM to move weighs what it has, whatever size it was made
        memory_mb, vcpus = vm.memory_mb, vm.vcpus
        label = f"{vcpus} vCPU, {memory_mb / 1024:g} GiB RAM"
    need = memory_mb * MIB
    verb = "move to" if vm is not None else "go on"
    if need > stats.free_memory_bytes:
        raise InsufficientResources(
            f"{a.name} ({label}) needs {need / GIB:.1f} GiB of memory; host {a.host!r} has "
            f"{stats.free_memory_bytes / GIB:.1f} GiB free of {stats.memory_bytes / GIB:.1f} GiB: choose "
            f"another host or a smaller size, or free memory on it before the appliance can {verb} it",
            field=where,
        )
    if vcpus > stats.cpu_threads:
        raise InsufficientResources(
            f"{a.name} ({label}) has {vcpus} vCPUs; host {a.host!r} has {stats.cpu_threads} "
            "logical CPUs: choose a smaller size or another host",
            field=where,
        )
    cpu = vcpus * stats.cpu_mhz
    if cpu > stats.free_cpu_mhz:
        raise InsufficientResources(
            f"{a.name} ({label}) needs {cpu} MHz ({vcpus} cores at {stats.cpu_mhz} MHz); host "
            f"{a.host!r} has {stats.free_cpu_mhz} MHz free of {stats.cpu_cores * stats.cpu_mhz} MHz: "
            "choose another host or a smaller size",
            field=where,
        )


def _check_lun(host: str, lun: str, live: LiveState, where: str) -> None:
    luns = live.host_luns.get(host, {})
    if lun not in luns:
        have = ", ".join(sorted(luns)) or "none"
        raise LunNotFound(
            f"host {host!r} sees no SCSI disk {lun!r} to map raw (it sees: {have})", field=where
        )
    if lun in live.host_vmfs_luns.get(host, set()):
        raise PlanError(
            f"LUN {lun!r} holds a VMFS datastore of host {host!r}: mapping it raw would destroy that datastore",
            field=where,
        )


def golden_folder(vm_path: str) -> tuple[str, str, str]:
    """('datastore', 'folder', 'file.vmx') of '[datastore] folder/file.vmx' (('', '', '') if not so)."""
    m = re.fullmatch(r"\[([^\]]+)\] ([^/]+)/([^/]+\.vmx)", vm_path)
    return (m.group(1), m.group(2), m.group(3)) if m else ("", "", "")


def _check_zfs_copy(plan: DeploymentPlan, pool: DesktopPoolSpec, golden: LiveVm) -> None:
    if pool.clone != "full":
        raise PlanError("full_copy 'zfs' makes full clones: set pool.clone to 'full'", field="pool.full_copy")
    if plan.fleet is None or plan.nfs is None or pool.datastore != plan.nfs.name:
        raise PlanError(
            "full_copy 'zfs' clones on the arcvsa appliance: the plan needs its fleet and NFS datastore, and the "
            "pool's datastore must be that NFS datastore",
            field="pool.full_copy",
        )
    datastore, _, _ = golden_folder(golden.vm_path)
    if datastore != plan.nfs.name:
        raise PlanError(
            f"golden VM {pool.golden_vm!r} lives at {golden.vm_path!r}, not in a folder of the arcvsa "
            f"datastore {plan.nfs.name!r}: ZFS clones copy its dataset there",
            field="pool.golden_vm",
        )


def export_clients(plan: DeploymentPlan, live: LiveState) -> list[str]:
    """Who the appliances export to: the plan's list, else every cluster host's VMkernel addresses."""
    if plan.nfs and plan.nfs.clients:
        return sorted(set(plan.nfs.clients))
    return sorted({ip for host in live.cluster_hosts for ip in live.host_addresses.get(host, [])})


def storage_signature(plan: DeploymentPlan, live: LiveState) -> str:
    """What an appliance that serves this plan's datastore carries as its storage mark."""
    assert plan.nfs is not None
    return signature(plan.nfs.dataset()[1], plan.nfs.version, export_clients(plan, live))


def _check_pool(plan: DeploymentPlan, pool: DesktopPoolSpec, live: LiveState, collisions: list[str]) -> None:
    golden = live.vm(pool.golden_vm)
    if golden is None:
        raise PlacementNotFound(f"no golden VM {pool.golden_vm!r}", field="pool.golden_vm")
    if pool.snapshot not in golden.snapshots:
        have = ", ".join(sorted(golden.snapshots)) or "none"
        raise SnapshotMissing(
            f"golden VM {pool.golden_vm!r} has no snapshot {pool.snapshot!r} (it has: {have})"
        )
    ds = live.datastores.get(pool.datastore)
    planned_nfs = plan.nfs is not None and plan.nfs.name == pool.datastore
    if ds is None and not planned_nfs:
        raise PlacementNotFound(f"no datastore {pool.datastore!r}", field="pool.datastore")
    missing = 0
    for name in pool.desktop_names():
        vm = live.vm(name)
        if vm is None:
            missing += 1
        elif vm.owner != plan.name:
            collisions.append(name)
    if pool.full_copy == "zfs":
        _check_zfs_copy(plan, pool, golden)
        stale = [
            n
            for n in pool.desktop_names()
            if (vm := live.vm(n)) and vm.owner == plan.name and vm.source != pool.source
        ]
        # Apply does not yet replace or remove a desktop's clone dataset (destroy does): refuse before
        # anything changes rather than leave clones behind on the appliance.
        keep = set(pool.desktop_names())
        shrunk = sorted(
            n
            for n, vms in live.vms.items()
            if n not in keep and pool.matches(n) and any(v.owner == plan.name for v in vms)
        )
        if shrunk:
            raise PlanError(
                f"shrinking a pool copied through ZFS clones is not supported yet ({len(shrunk)} desktops "
                f"would go, e.g. {shrunk[0]}): keep pool.count, or destroy and deploy the pool again",
                field="pool.count",
            )
        if stale:
            raise PlanError(
                f"recompose of a pool copied through ZFS clones is not supported yet ({len(stale)} desktops "
                f"come from another snapshot, e.g. {stale[0]}): keep pool.snapshot, or copy through vSphere",
                field="pool.snapshot",
            )
    per_desktop = pool.memory_mb * MIB + (
        int(pool.delta_gb * GIB)
        if pool.clone == "linked" or pool.full_copy == "zfs"  # a ZFS clone shares the golden's blocks
        else max(golden.committed_bytes, sum(c for _, c in golden.disks))
    )
    if ds is not None and missing * per_desktop > ds.free_bytes:
        fits = ds.free_bytes // per_desktop
        raise InsufficientSpace(
            f"{missing} new desktops need {missing * per_desktop / GIB:.1f} GiB on {pool.datastore!r}, "
            f"which has {ds.free_bytes / GIB:.1f} GiB free: at most {fits} fit"
        )
    wanted = pool.count * pool.memory_mb * MIB
    allowed = int(live.cluster_memory_bytes * pool.memory_overcommit)
    if wanted > allowed:
        raise InsufficientResources(
            f"{pool.count} desktops of {pool.memory_mb} MiB need {wanted / GIB:.0f} GiB of memory; cluster "
            f"{plan.cluster!r} allows {allowed / GIB:.0f} GiB at {pool.memory_overcommit:g}x overcommit"
        )


def diff(plan: DeploymentPlan, live: LiveState) -> Diff:
    """What apply would change (call `check` first: this assumes the plan is placeable)."""
    actions: list[Action] = []
    unchanged = 0
    if plan.fleet:
        for a in plan.fleet.appliances:
            vm = live.vm(a.name)
            if vm is None:
                actions.append(
                    Action(
                        op="create",
                        kind="appliance",
                        name=a.name,
                        host=a.host,
                        detail=f"OVA, {plan.fleet.size}",
                    )
                )
            elif vm.host != live.cluster_hosts[a.host]:
                actions.append(_move(a.name, a.host, vm, live))
            else:
                unchanged += 1
            have = len(vm.disks) - 1 if vm else 0  # the boot disk comes with the OVA
            actions += [
                Action(op="create", kind="disk", name=f"{a.name}/#{i}", host=a.host, detail=d.describe())
                for i, d in enumerate(a.disks)
                if i >= have
            ]
            if vm and vm.power_state != "poweredOn":
                actions.append(Action(op="power_on", kind="appliance", name=a.name, host=a.host))
            if plan.nfs and (vm is None or vm.storage != storage_signature(plan, live)):
                pool, dataset = plan.nfs.dataset()
                roles = [d.role for d in a.disks]
                actions.append(
                    Action(
                        op="create",
                        kind="storage",
                        name=a.name,
                        host=a.host,
                        detail=f"{pool_words(pool, roles.count('data'), roles.count('log'), roles.count('cache'))}, "
                        f"dataset {dataset} "
                        f"({plan.storage_profile()}), NFS {plan.nfs.version} export to "
                        f"{', '.join(export_clients(plan, live)) or 'nobody'}",
                    )
                )
    if plan.nfs:
        ds = live.datastores.get(plan.nfs.name)
        mounted = ds.hosts if ds else set()
        detail = f"NFS {plan.nfs.version} {plan.nfs.server}:{plan.nfs.path}"
        for host, moid in sorted(live.cluster_hosts.items()):
            if moid in mounted:
                unchanged += 1
            else:
                actions.append(
                    Action(op="create", kind="nfs_mount", name=plan.nfs.name, host=host, detail=detail)
                )
    if plan.pool:
        actions += _pool_actions(plan.name, plan.pool, live)
        unchanged += sum(
            1
            for n in plan.pool.desktop_names()
            if (vm := live.vm(n)) and vm.owner == plan.name and vm.source == plan.pool.source
        )
    actions += orphans(plan, live)
    return Diff(actions=actions, unchanged=unchanged)


def _move(name: str, host: str, vm: LiveVm, live: LiveState) -> Action:
    """vMotion an appliance back to its planned host: it serves that host's desktops and LUNs."""
    by_id = {m: n for n, m in live.hosts.items()}
    now = by_id.get(vm.host or "", vm.host or "no host")
    outside = "" if (vm.host or "") in live.cluster_hosts.values() else " (outside the cluster)"
    return Action(
        op="move",
        kind="appliance",
        name=name,
        host=host,
        detail=f"vMotion from {now}{outside} to {host}: an appliance serves the host it runs on",
    )


def orphans(plan: DeploymentPlan, live: LiveState) -> list[Action]:
    """VMs this deployment made that the plan no longer names (an appliance of a host taken out, desktops
    of another naming): reported, kept by apply, removed by destroy."""
    named = {a.name for a in plan.fleet.appliances} if plan.fleet else set()
    if plan.pool:
        named |= set(plan.pool.desktop_names())
    golden = plan.pool.golden_vm if plan.pool else None
    by_id = {m: n for n, m in live.hosts.items()}
    out = []
    for name, vms in sorted(live.vms.items()):
        if name in named or name == golden or (plan.pool and plan.pool.matches(name)):  # shrink deletes those
            continue
        for vm in vms:
            if vm.owner != plan.name:
                continue
            appliance = vm.source is None
            out.append(
                Action(
                    op="orphan",
                    kind="appliance" if appliance else "desktop",
                    name=name,
                    host=by_id.get(vm.host or "") if appliance else None,
                    detail=f"made by this deployment, no longer in its plan ({vm.power_state}): "
                    "apply keeps it, destroy removes it",
                )
            )
    return out


def _pool_actions(owner: str, pool: DesktopPoolSpec, live: LiveState) -> list[Action]:
    actions: list[Action] = []
    parts = pool.folder.split("/")
    for depth in range(1, len(parts) + 1):
        path = "/".join(parts[:depth])
        if path not in live.folders:
            actions.append(Action(op="create", kind="folder", name=path))
    if pool.resource_pool and pool.resource_pool not in live.pools:
        actions.append(Action(op="create", kind="resource_pool", name=pool.resource_pool))
    wanted = pool.desktop_names()
    for name in wanted:
        vm = live.vm(name)
        if vm is None:
            actions.append(
                Action(op="create", kind="desktop", name=name, detail=f"{pool.clone} clone of {pool.source}")
            )
        elif vm.owner == owner and vm.source != pool.source:
            actions.append(
                Action(
                    op="replace", kind="desktop", name=name, detail=f"recompose {vm.source} -> {pool.source}"
                )
            )
        elif vm.owner == owner and pool.power_on and vm.power_state != "poweredOn":
            actions.append(Action(op="power_on", kind="desktop", name=name))
    keep = set(wanted)
    for name, vms in sorted(live.vms.items()):
        if name not in keep and pool.matches(name):
            actions += [
                Action(op="delete", kind="desktop", name=name, detail="shrink")
                for vm in vms
                if vm.owner == owner
            ]
    return actions


def teardown(owner: str, live: LiveState) -> Diff:
    """Everything `owner` created, in the order destroy removes it; nothing anyone else made."""
    actions: list[Action] = []
    appliances: list[Action] = []
    for name, vms in sorted(live.vms.items()):
        for vm in vms:
            if vm.owner == owner:
                (appliances if vm.source is None else actions).append(
                    Action(op="delete", kind="desktop", name=name)
                )
    for ds in live.datastores.values():
        if ds.owner == owner:
            by_id = {m: n for n, m in live.hosts.items()}
            actions += [
                Action(op="delete", kind="nfs_mount", name=ds.name, host=by_id.get(h, h))
                for h in sorted(ds.hosts)
            ]
    actions += [a.model_copy(update={"kind": "appliance"}) for a in appliances]
    actions += [
        Action(op="delete", kind="resource_pool", name=n)
        for n, m in sorted(live.pools.items())
        if live.pool_owners.get(m) == owner
    ]
    folders = [p for p, m in live.folders.items() if live.folder_owners.get(m) == owner]
    actions += [
        Action(op="delete", kind="folder", name=p) for p in sorted(folders, key=lambda p: -p.count("/"))
    ]
    return Diff(actions=actions, unchanged=0)
