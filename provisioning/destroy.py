"""destroy: remove what a deployment made, found by the ownership marks on the objects, and nothing else."""

from __future__ import annotations

import time
from typing import Any

from pyVmomi import vim

from provisioning import nfs, pools
from provisioning.diff import teardown
from provisioning.errors import VCenterError
from provisioning.live import read_state
from provisioning.progress import Login, Options, Progress, Report, finish, run_phase
from provisioning.tasks import Vc, Work, run_bounded


def destroy(login: Login, owner: str, datacenter: str, cluster: str, opts: Options | None = None) -> Report:
    """Remove every object whose owner mark is `owner`: desktops, mounts, appliances, pool, folders."""
    opts = opts or Options()
    started = time.monotonic()
    report = Report()
    vc = Vc(login)
    try:
        live = read_state(vc.si, datacenter, cluster)
        gone = teardown(owner, live)
        progress = Progress(opts, len(gone.actions))
        progress(None, "info", f"{len(gone.actions)} objects to remove: {gone.counts()}")

        def removal(name: str) -> Work:
            vm = live.vm(name)
            assert vm is not None
            return Work(
                key=name,
                steps=[lambda vc, _: vc.ref(vim.VirtualMachine, vm.moid), pools.power_off, pools.destroy],
            )

        run_phase(vc, [removal(a.name) for a in gone.of("desktop")], progress, opts, 8, report)
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
        run_phase(vc, [removal(a.name) for a in gone.of("appliance")], progress, opts, 4, report)
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
