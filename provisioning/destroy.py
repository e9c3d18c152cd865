"""destroy: remove what a deployment made, found by the ownership marks on the objects, and nothing else."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from pyVmomi import vim

from provisioning import horizon, nfs, pools
from provisioning.adoption import adopt
from provisioning.appliance_api import ApplianceApi, first_contact, remove_clones
from provisioning.appliance_errors import ApplianceApiError
from provisioning.diff import golden_folder, teardown
from provisioning.errors import VCenterError
from provisioning.health import endpoint_of
from provisioning.live import LiveState, read_state
from provisioning.plan import DeploymentPlan, DesktopPoolSpec, HorizonSpec
from provisioning.progress import Login, Options, Progress, Report, finish, run_phase
from provisioning.release import ApplianceStorage, release
from provisioning.tasks import Vc, Work, run_bounded


@dataclass
class ZfsClones:
    """Where a full_copy 'zfs' pool's desktops were cloned: the serving appliance's api and its dataset."""

    name: str  # the appliance VM's name
    endpoint: str
    thumbprint: str | None  # the pinned certificate; None: pinned on first contact now
    pool: str
    dataset: str  # a desktop's clone is dataset/<desktop name>
    datastore: str  # the NFS datastore the desktops were registered from


def zfs_clones(deployment: DeploymentPlan, pins: dict[str, str] | None = None) -> ZfsClones | None:
    """The ZfsClones of a plan whose pool copies through ZFS clones (None otherwise, or with no api)."""
    from provisioning.apply import serving_appliance  # apply imports what destroy does: keep it late

    pool, fleet, share = deployment.pool, deployment.fleet, deployment.nfs
    if pool is None or pool.full_copy != "zfs" or fleet is None or share is None:
        return None
    spec = serving_appliance(deployment)
    endpoint = endpoint_of(spec)
    if endpoint is None:
        return None
    zpool, dataset = share.dataset()
    pin = (pins or {}).get(spec.name) or spec.api_thumbprint_sha256
    return ZfsClones(spec.name, endpoint, pin, zpool, dataset, share.name)


def cloned_desktops(zfs: ZfsClones, live: LiveState, names: list[str]) -> list[str]:
    """The desktops registered from their own folder on the datastore (their clone's mount point)."""
    out = []
    for name in names:
        vm = live.vm(name)
        datastore, folder, _ = golden_folder(vm.vm_path if vm else "")
        if datastore == zfs.datastore and folder == name:
            out.append(name)
    return out


def destroy(
    login: Login,
    owner: str,
    datacenter: str,
    cluster: str,
    opts: Options | None = None,
    *,
    horizon_pool: tuple[HorizonSpec, str] | None = None,
    zfs: ZfsClones | None = None,
    pool: DesktopPoolSpec | None = None,
    storage: dict[str, ApplianceStorage] | None = None,
) -> Report:
    """Remove every object whose owner mark is `owner`: desktops, mounts, appliances, pool, folders.

    `pool`: the deployment's pool: its desktops that runs asked for (opts.adopt) and never marked go too,
    when vCenter proves them ours (provisioning.adoption).
    `horizon_pool`: (the Connection Server, the pool's name there): that Horizon pool goes first.
    `zfs`: the pool's desktops are ZFS clones on that appliance: once the desktops are destroyed, their
    clones and the golden snapshot arcvsa took go too (before the datastore is unmounted).
    `storage`: what each appliance serves (provisioning.release): released through its api before its VM
    goes, once the datastore is unmounted.
    """
    opts = opts or Options()
    started = time.monotonic()
    report = Report()
    vc = Vc(login)
    try:
        live = read_state(vc.si, datacenter, cluster)
        if pool:
            adopt(vc, owner, pool, live, opts.adopt)
        gone = teardown(owner, live)
        progress = Progress(opts, len(gone.actions) + (1 if horizon_pool else 0) + (1 if zfs else 0))
        progress(None, "info", f"{len(gone.actions)} objects to remove: {gone.counts()}")
        if horizon_pool:
            _remove_horizon_pool(*horizon_pool, opts, progress, report)

        def removal(name: str) -> Work:
            # vCenter allows a name once per folder: a foreign VM may share the name of ours
            vm = next(v for v in live.vms[name] if v.owner == owner)
            return Work(
                key=name,
                steps=[lambda vc, _: vc.ref(vim.VirtualMachine, vm.moid), pools.power_off, pools.destroy],
            )

        desktops = [a.name for a in gone.of("desktop")]
        cloned = cloned_desktops(zfs, live, desktops) if zfs else []
        run_phase(vc, [removal(name) for name in desktops], progress, opts, 8, report)
        if zfs:
            _remove_clones(zfs, [n for n in cloned if n not in report.failed], opts, progress, report)
        everywhere: set[str] = set()
        for a in gone.of("nfs_mount"):
            key = f"{a.name}@{a.host}"
            if a.name not in everywhere:
                ds = vc.ref(vim.Datastore, live.datastores[a.name].moid)
                task = nfs.unmount(vc.ref(vim.HostSystem, live.hosts[a.host or ""]), ds)
                if task is not None:
                    everywhere.add(a.name)
                    _wait(vc, a.name, task)
            report.done.append(key)
            progress(key, "done")
        appliances = [a.name for a in gone.of("appliance")]
        for name in appliances:
            if storage and name in storage:
                _release(storage[name], opts, progress)
        run_phase(vc, [removal(name) for name in appliances], progress, opts, 4, report)
        for a in gone.of("resource_pool"):
            _remove(vc, vim.ResourcePool, live.pools[a.name], a.name, progress, report)
        for a in gone.of("folder"):
            _remove(vc, vim.Folder, live.folders[a.name], a.name, progress, report)
        return finish(report, vc, started)
    finally:
        vc.close()


def _wait(vc: Vc, name: str, task: Any) -> None:
    """Wait for one task already started; its fault becomes a VCenterError."""
    out = run_bounded(vc, [Work(key=name, steps=[lambda vc, _: task])])
    if out.failed:
        raise VCenterError(f"{name}: {out.failed[name]}")


def _remove(vc: Vc, cls: Any, moid: str, name: str, progress: Progress, report: Report) -> None:
    """Destroy a container we made, only when empty: destroying a folder would take foreign VMs with it."""
    obj = vc.ref(cls, moid)
    children = obj.childEntity if cls is vim.Folder else list(obj.vm or []) + list(obj.resourcePool or [])
    if children:
        progress(name, "done", f"kept: holds {len(children)} objects arcvsa does not own")
        return
    _wait(vc, name, obj.Destroy_Task())
    report.done.append(name)
    progress(name, "done")


def _release(storage: ApplianceStorage, opts: Options, progress: Progress) -> None:
    """Release one appliance's pool before its VM goes. An appliance that cannot be reached does not keep
    its VM: the VM goes anyway, and the event says which disks may still carry the pool's labels."""
    try:
        if not opts.password:
            raise ApplianceApiError(f"releasing {storage.name}'s pool needs its admin password")
        done = release(storage, opts.password, cancelled=opts.cancelled)
    except (ApplianceApiError, OSError) as exc:
        progress(
            storage.name, "info", f"pool {storage.pool} not released ({exc}): disks mapped raw may still carry "
            "its labels; wipe them from the Disks page of the appliance that takes them next",
        )  # fmt: skip
        return
    progress(storage.name, "info", "; ".join(done) or f"pool {storage.pool} was gone already")


def _remove_horizon_pool(
    spec: HorizonSpec, name: str, opts: Options, progress: Progress, report: Report
) -> None:
    """Delete the Horizon pool of that name if it exists (a manual pool's VMs are left to the rest)."""
    key = f"horizon:{name}"
    password = opts.horizon_password or (spec.password.get_secret_value() if spec.password else "")
    try:
        with horizon.session(spec, password) as client:
            found = client.find_pool(name)
            if found is not None:
                client.delete_pool(str(found["id"]))
    except (horizon.HorizonError, VCenterError, OSError) as exc:
        report.fail(key, exc, progress)
        return
    report.done.append(key)
    progress(key, "done", "removed from Horizon" if found is not None else "not in Horizon")


def _remove_clones(
    zfs: ZfsClones, desktops: list[str], opts: Options, progress: Progress, report: Report
) -> None:
    """Destroy the destroyed desktops' ZFS clones and then arcvsa's golden snapshot (remove_clones)."""
    key = f"zfs-clones:{zfs.name}"
    try:
        if not opts.password:
            raise ApplianceApiError(f"removing the ZFS clones needs {zfs.name}'s admin password")
        thumbprint = zfs.thumbprint or first_contact(zfs.endpoint, 30.0, zfs.name)
        api = ApplianceApi(zfs.endpoint, thumbprint, name=zfs.name, cancelled=opts.cancelled)
        api.login(opts.password)
        removed = remove_clones(api, zfs.pool, zfs.dataset, desktops)
    except (ApplianceApiError, OSError) as exc:
        report.fail(key, exc, progress)
        return
    report.done.append(key)
    progress(key, "done", f"destroyed {', '.join(removed)}" if removed else "no ZFS clones left")
