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

from pyVmomi import vim

from ovf.errors import OvfError
from ovf.ova import verify_ova
from provisioning import horizon, nfs, ownership, pools
from provisioning.adoption import adopt
from provisioning.appliance_api import ApplianceApi, first_contact, prepare_clones
from provisioning.appliance_errors import ApplianceApiError
from provisioning.appliances import appliance_works
from provisioning.diff import Diff, check, diff, export_clients, golden_folder, storage_signature
from provisioning.errors import Cancelled, PlacementNotFound, PlanError, VCenterError
from provisioning.health import endpoint_of
from provisioning.live import LiveState, read_state
from provisioning.plan import ApplianceSpec, DeploymentPlan
from provisioning.progress import Login, Options, Progress, Report, finish, run_phase
from provisioning.tasks import Vc, Work


def plan(si: Any, deployment: DeploymentPlan, adopting: dict[str, str] | None = None) -> Diff:
    """The changes apply would make; raises the PlanError apply would raise. Changes nothing.

    `adopting`: Options.adopt of the coming apply, so that the VMs it would adopt are not collisions here.
    """
    live = read_state(si, deployment.datacenter, deployment.cluster)
    if deployment.pool and adopting:
        adopt(Vc(lambda: si), deployment.name, deployment.pool, live, adopting, mark=False)
    check(deployment, live)
    return diff(deployment, live)


def _moves(vc: Vc, live: LiveState, changes: Diff) -> list[Work]:
    """vMotion each misplaced appliance to its planned host (into the cluster's root pool from outside it)."""
    works = []
    for action in changes.of("appliance", "move"):
        vm = live.vm(action.name)
        assert vm is not None and action.host is not None
        target = live.cluster_hosts[action.host]
        inside = vm.host in live.cluster_hosts.values()

        def relocate(vc: Vc, _: Any, moid: str = vm.moid, target: str = target, inside: bool = inside) -> Any:
            spec = vim.vm.RelocateSpec(host=vc.ref(vim.HostSystem, target))
            if not inside:
                assert live.root_pool is not None
                spec.pool = vc.ref(vim.ResourcePool, live.root_pool)
            return vc.ref(vim.VirtualMachine, moid).RelocateVM_Task(spec=spec)

        works.append(Work(key=f"vmotion:{action.name}", steps=[relocate]))
    return works


def _preflight(vc: Vc, deployment: DeploymentPlan, changes: Diff, opts: Options) -> Any:
    """Checks that need vCenter or files: the OVA (digests and descriptor) and the customization spec."""
    if deployment.fleet and changes.of("appliance", "create"):
        ova = Path(deployment.fleet.ova_path)
        if not ova.is_file():
            raise PlacementNotFound(f"no OVA at {ova}", field="fleet.ova_path")
        try:
            verify_ova(ova)
        except (OvfError, tarfile.TarError) as exc:
            raise PlanError(f"{ova} is not a sound arcvsa OVA: {exc}", field="fleet.ova_path") from exc
    zfs = deployment.pool is not None and deployment.pool.full_copy == "zfs"
    if (changes.of("storage") or zfs) and not _password(deployment, opts):
        raise PlanError(
            "the appliances' storage is built through their api, which needs the admin password the "
            "plan gives them: set fleet.admin_password",
            field="fleet.admin_password",
        )
    if deployment.horizon and not _horizon_password(deployment, opts):
        raise PlanError("the Horizon pool needs the administrator's password", field="horizon.password")
    return pools.customization(vc, deployment.pool) if deployment.pool else None


def serving_appliance(deployment: DeploymentPlan) -> ApplianceSpec:
    """The appliance whose address the NFS datastore mounts (else the first one): it holds the golden."""
    assert deployment.fleet is not None and deployment.nfs is not None
    for spec in deployment.fleet.appliances:
        address = spec.properties.get("ipv4_address") or deployment.fleet.properties.get("ipv4_address")
        if address == deployment.nfs.server:
            return spec
    return deployment.fleet.appliances[0]


def _zfs_copy(
    deployment: DeploymentPlan,
    live: LiveState,
    pins: dict[str, str],
    password: str | None,
    progress: Progress,
) -> pools.ZfsCopy:
    """Log in to the serving appliance and snapshot the golden's dataset (once per apply)."""
    assert deployment.pool is not None and deployment.nfs is not None
    spec = serving_appliance(deployment)
    endpoint = endpoint_of(spec)
    if endpoint is None or not password:
        raise PlanError(
            f"full_copy 'zfs' needs {spec.name}'s api: an api_endpoint or static address and the admin password",
            field="pool.full_copy",
        )
    pin = pins.get(spec.name) or spec.api_thumbprint_sha256
    if pin is None:  # the fleet was made by an earlier run that recorded no pin: first contact now
        pin = pins[spec.name] = first_contact(endpoint, 30.0, spec.name)
        progress(spec.name, "pin", pin)
    api = ApplianceApi(endpoint, pin, name=spec.name, cancelled=progress.opts.cancelled)
    api.login(password)
    golden = live.vm(deployment.pool.golden_vm)
    assert golden is not None  # check() proved it
    _, folder, vmx = golden_folder(golden.vm_path)
    pool, dataset = deployment.nfs.dataset()
    source = prepare_clones(api, pool, f"{dataset}/{folder}", deployment.pool.snapshot)
    progress(
        spec.name,
        "info",
        f"ZFS clones from {source.snapshot}" + (" (taken now)" if source.snapshot_taken else ""),
    )
    return pools.ZfsCopy(api=api, source=source, dataset=dataset, datastore=deployment.nfs.name, vmx=vmx)


def horizon_key(deployment: DeploymentPlan) -> str:
    """How a run reports the Horizon pool: 'horizon:<pool name>'."""
    assert deployment.horizon is not None and deployment.pool is not None
    return f"horizon:{deployment.horizon.pool_name or deployment.pool.name}"


def _horizon_password(deployment: DeploymentPlan, opts: Options) -> str | None:
    secret = deployment.horizon.password if deployment.horizon else None
    return opts.horizon_password or (secret.get_secret_value() if secret else None)


def _hand_to_horizon(
    vc: Vc, deployment: DeploymentPlan, opts: Options, progress: Progress, report: Report
) -> None:
    """The pool's desktops as a Horizon manual pool: created with all of them, or given the new ones."""
    assert deployment.horizon is not None and deployment.pool is not None
    key = horizon_key(deployment)
    live = read_state(vc.si, deployment.datacenter, deployment.cluster)
    machines = {
        n: vm.moid
        for n in deployment.pool.desktop_names()
        if (vm := live.vm(n)) is not None and vm.owner == deployment.name
    }
    new = {k for k in report.done if k in machines}
    password = _horizon_password(deployment, opts)
    assert password is not None  # _preflight refused the plan without one
    try:
        with horizon.session(deployment.horizon, password) as client:
            said = horizon.ensure_manual_pool(client, deployment.horizon, deployment.pool, machines, new)
    except (horizon.HorizonError, VCenterError, OSError) as exc:
        report.fail(key, exc, progress)
        return
    report.done.append(key)
    progress(key, "done", said)


def _release_from_horizon(
    deployment: DeploymentPlan, leaving: dict[str, str], opts: Options, progress: Progress, report: Report
) -> bool:
    """Remove the desktops about to be destroyed (name → moid) from the Horizon manual pool; whether done."""
    assert deployment.horizon is not None and deployment.pool is not None
    key = horizon_key(deployment)
    password = _horizon_password(deployment, opts)
    assert password is not None  # _preflight refused the plan without one
    try:
        with horizon.session(deployment.horizon, password) as client:
            said = horizon.release_machines(client, deployment.horizon, deployment.pool, leaving)
    except (horizon.HorizonError, VCenterError, OSError) as exc:
        report.fail(key, exc, progress, " (the desktops leaving it are kept)")
        return False
    progress(key, "info", said)
    return True


def _password(deployment: DeploymentPlan, opts: Options) -> str | None:
    """The appliances' admin password: the api's sealed copy (Options), else the plan's own."""
    secret = deployment.fleet.admin_password if deployment.fleet else None
    return opts.password or (secret.get_secret_value() if secret else None)


def apply(login: Login, deployment: DeploymentPlan, opts: Options | None = None) -> Report:
    """Make what the diff says is missing. Raises PlanError before any change, Cancelled, SessionExpired."""
    opts = opts or Options()
    started = time.monotonic()
    report = Report()
    vc = Vc(login)
    try:
        live = read_state(vc.si, deployment.datacenter, deployment.cluster)
        if deployment.pool and opts.adopt:
            adopt(vc, deployment.name, deployment.pool, live, opts.adopt)
        check(deployment, live)
        planned = diff(deployment, live)
        changes = planned.to_make()
        custom = _preflight(vc, deployment, changes, opts)
        progress = Progress(opts, _units(changes, deployment))
        progress(None, "info", f"{len(changes.actions)} changes: {changes.counts()}")
        for orphan in planned.of("appliance", "orphan") + planned.of("desktop", "orphan"):
            progress(orphan.name, "info", f"orphan {orphan.kind}: {orphan.detail}")
        keys = ownership.field_keys(vc.content)
        pins: dict[str, str] = {}  # appliance → certificate pinned in this run
        moves = _moves(vc, live, changes)
        if moves:
            run_phase(vc, moves, progress, opts, opts.fleet_concurrency, report)
            if _stop(report, progress, "the rest of the fleet"):
                return finish(report, vc, started)
        if deployment.fleet and changes.of("appliance") + changes.of("disk") + changes.of("storage"):
            storage = None
            if deployment.nfs:
                storage = (
                    deployment.nfs, deployment.storage_profile(), export_clients(deployment, live),
                    storage_signature(deployment, live),
                )  # fmt: skip
            works = appliance_works(
                vc, deployment.name, deployment.fleet, live,
                [a for a in changes.actions if a.op != "move"], keys,
                probe=opts.probe, password=_password(deployment, opts), on_bytes=_bytes(progress),
                storage=storage, notify=progress, pins=pins,
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
                changes = diff(deployment, live).to_make()
            placement = pools.ensure_placement(vc, deployment.name, deployment.pool, live, keys)
            zfs = None
            if deployment.pool.full_copy == "zfs" and changes.of("desktop", "create", "replace"):
                try:
                    zfs = _zfs_copy(deployment, live, pins, _password(deployment, opts), progress)
                except ApplianceApiError as exc:  # the appliance refused or did not answer: no desktop yet
                    report.fail(f"zfs-copy:{deployment.pool.golden_vm}", exc, progress)
                    return finish(report, vc, started)
            actions = changes.actions
            if deployment.horizon:  # desktops to destroy leave the Horizon pool first
                leaving = {
                    a.name: vm.moid
                    for a in changes.of("desktop")
                    if a.op in ("delete", "replace") and (vm := live.vm(a.name)) is not None
                }
                if leaving and not _release_from_horizon(deployment, leaving, opts, progress, report):
                    actions = [a for a in actions if a.name not in leaving]  # kept while Horizon has them
            works = pools.desktop_works(
                vc, deployment.name, deployment.pool, live, actions, keys, placement, custom, zfs
            )
            run_phase(vc, works, progress, opts, deployment.pool.concurrency, report)
            if deployment.horizon and not _stop(report, progress, "the Horizon pool"):
                _hand_to_horizon(vc, deployment, opts, progress, report)
        return finish(report, vc, started)
    finally:
        vc.close()


def _units(changes: Diff, deployment: DeploymentPlan) -> int:
    appliances = {
        a.name.split("/#")[0]
        for a in changes.actions
        if a.kind in ("appliance", "disk", "storage") and a.op != "move"
    }
    horizon_step = 1 if deployment.horizon else 0
    moves = len(changes.of("appliance", "move"))
    return len(appliances) + moves + len(changes.of("nfs_mount")) + len(changes.of("desktop")) + horizon_step


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
            report.fail(key, exc, progress)
            continue
        report.done.append(key)
        progress(key, "done")
