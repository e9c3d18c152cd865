"""plan and apply a DeploymentPlan against a vCenter (destroy: provisioning.destroy).

apply: read the live state, refuse the plan before any change if it cannot work (provisioning.diff.check),
then fleet → NFS datastore → pool, each phase creating only what the diff says is missing. Failures of
single objects are collected; a later apply starts from a fresh diff, so it resumes where this one stopped.
"""

from __future__ import annotations

import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyVmomi import vim, vmodl

from ovf.errors import OvfError
from ovf.ova import verify_ova
from provisioning import nfs, ownership, pools
from provisioning.appliances import appliance_works
from provisioning.diff import Diff, check, diff
from provisioning.errors import Cancelled, PlacementNotFound, PlanError
from provisioning.live import LiveState, read_state
from provisioning.plan import DeploymentPlan
from provisioning.progress import Login, Options, Progress, Report, finish, run_phase
from provisioning.tasks import Vc


def plan(si: Any, deployment: DeploymentPlan, adopting: dict[str, str] | None = None) -> Diff:
    """The changes apply would make; raises the PlanError apply would raise. Changes nothing.

    `adopting`: Options.adopt of the coming apply, so that the VMs it would adopt are not collisions here.
    """
    live = read_state(si, deployment.datacenter, deployment.cluster)
    if deployment.pool and adopting:
        vc = Vc(lambda: si)
        adopt(vc, deployment.name, deployment.pool.source, live, adopting, mark=False)
    check(deployment, live)
    return diff(deployment, live)


def _preflight(vc: Vc, deployment: DeploymentPlan, changes: Diff) -> Any:
    """Checks that need vCenter or files: the OVA (digests and descriptor) and the customization spec."""
    if deployment.fleet and changes.of("appliance", "create"):
        ova = Path(deployment.fleet.ova_path)
        if not ova.is_file():
            raise PlacementNotFound(f"no OVA at {ova}", field="fleet.ova_path")
        try:
            verify_ova(ova)
        except (OvfError, tarfile.TarError) as exc:
            raise PlanError(f"{ova} is not a sound arcvsa OVA: {exc}", field="fleet.ova_path") from exc
    return pools.customization(vc, deployment.pool) if deployment.pool else None


def apply(login: Login, deployment: DeploymentPlan, opts: Options | None = None) -> Report:
    """Make what the diff says is missing. Raises PlanError before any change, Cancelled, SessionExpired."""
    opts = opts or Options()
    started = time.monotonic()
    report = Report()
    vc = Vc(login)
    try:
        live = read_state(vc.si, deployment.datacenter, deployment.cluster)
        if deployment.pool and opts.adopt:
            adopt(vc, deployment.name, deployment.pool.source, live, opts.adopt)
        check(deployment, live)
        changes = diff(deployment, live)
        custom = _preflight(vc, deployment, changes)
        progress = Progress(opts, _units(changes))
        progress(None, "info", f"{len(changes.actions)} changes: {changes.counts()}")
        keys = ownership.field_keys(vc.content)
        if deployment.fleet and changes.of("appliance") + changes.of("disk"):
            works = appliance_works(
                vc, deployment.name, deployment.fleet, live, changes.actions, keys,
                probe=opts.probe, password=opts.password, on_bytes=_bytes(progress),
            )  # fmt: skip
            run_phase(vc, works, progress, opts, opts.fleet_concurrency, report)
            if _stop(report, progress, "the NFS datastore and the pool"):
                return finish(report, vc, started)
        if deployment.nfs and changes.of("nfs_mount"):
            _mount_all(vc, deployment, live, changes, keys, progress, report, opts)
            if _stop(report, progress, "the pool"):
                return finish(report, vc, started)
        if deployment.pool:
            if deployment.nfs:  # the datastore may be new: the pool needs its moid and free space
                live = read_state(vc.si, deployment.datacenter, deployment.cluster)
                check(deployment, live)
                changes = diff(deployment, live)
            placement = pools.ensure_placement(vc, deployment.name, deployment.pool, live, keys)
            works = pools.desktop_works(
                vc, deployment.name, deployment.pool, live, changes.actions, keys, placement, custom
            )
            run_phase(vc, works, progress, opts, deployment.pool.concurrency, report)
        return finish(report, vc, started)
    finally:
        vc.close()


def adopt(
    vc: Vc, owner: str, source: str, live: LiveState, tasks: dict[str, str], *, mark: bool = True
) -> list[str]:
    """Mark as ours the unmarked VMs our own clone tasks made (in vCenter only when `mark`); their names.

    A clone in flight when its run died (api stopped, session gone) completes in vCenter without us.
    Its VM carries no mark yet, but the clone task that made it is ours: if vCenter still knows that task
    and its result is that very VM, the VM is adopted; otherwise it stays a NameCollision to look at.
    """
    keys: dict[str, int] | None = None
    adopted = []
    for name, task_id in tasks.items():
        vm = live.vm(name)
        if vm is None or vm.owner is not None:
            continue
        try:
            info = vc.ref(vim.Task, task_id).info
        except vmodl.fault.ManagedObjectNotFound:
            continue  # vCenter forgot the task: cannot prove it was ours
        if info.state == "success" and getattr(info.result, "_moId", None) == vm.moid:
            if mark:
                keys = keys or ownership.field_keys(vc.content)
                ownership.mark(
                    vc.content, keys, vc.ref(vim.VirtualMachine, vm.moid), owner=owner, source=source
                )
            vm.owner, vm.source = owner, source
            adopted.append(name)
    return adopted


def _units(changes: Diff) -> int:
    appliances = {a.name.split("/#")[0] for a in changes.actions if a.kind in ("appliance", "disk")}
    return len(appliances) + len(changes.of("nfs_mount")) + len(changes.of("desktop"))


def _bytes(progress: Progress) -> Callable[[int, int], None]:
    last = [-1]

    def report(sent: int, total: int) -> None:
        tenth = sent * 10 // max(total, 1)
        if tenth != last[0]:
            last[0] = tenth
            progress(None, "bytes", f"OVA upload {sent} of {total} bytes")

    return report


def _stop(report: Report, progress: Progress, what: str) -> bool:
    """Whether to stop before `what`: a later phase needs every object of the earlier one."""
    if progress.opts.cancelled():
        raise Cancelled(f"cancelled before {what}")
    if report.failed:
        progress(None, "info", f"stopped before {what}: {len(report.failed)} failed")
    return bool(report.failed)


def _mount_all(
    vc: Vc, deployment: DeploymentPlan, live: LiveState, changes: Diff, keys: dict[str, int],
    progress: Progress, report: Report, opts: Options,
) -> None:  # fmt: skip
    assert deployment.nfs is not None
    for action in changes.of("nfs_mount"):
        if opts.cancelled():
            raise Cancelled("cancelled while mounting the NFS datastore")
        key = f"{action.name}@{action.host}"
        host = vc.ref(vim.HostSystem, live.cluster_hosts[action.host or ""])
        try:
            nfs.mount(vc.content, host, deployment.nfs, deployment.name, keys)
        except vim.fault.NotAuthenticated:
            vc.relogin()
            nfs.mount(vc.content, vc.rebind(host), deployment.nfs, deployment.name, keys)
        except vim.fault.VimFault as exc:
            report.failed[key] = f"{type(exc).__name__}: {getattr(exc, 'msg', exc)}"
            progress(key, "failed", report.failed[key])
            continue
        report.done.append(key)
        progress(key, "done")
