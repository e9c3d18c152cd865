"""Deployments: store plans, diff them against vCenter, and run apply/destroy for the job runner."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from api.auth.service import now
from api.deployments.held import HeldSecrets
from api.deployments.schemas import DeploymentCreate, DeploymentOut, JobSecrets, PlanOut
from api.deployments.table import Deployment
from api.errors import Conflict, NotFound, SecretRequired
from api.fleet import upgrade as fleet_upgrade
from api.jobs import service as jobs
from api.jobs.runner import JobRunner, Outcome
from api.jobs.table import Job
from api.secretbox import SecretBox
from api.settings import Settings
from api.vcenters import service as vcenters
from provisioning import apply as provisioning
from provisioning import session
from provisioning.destroy import destroy, zfs_clones
from provisioning.errors import Cancelled
from provisioning.plan import DeploymentPlan
from provisioning.progress import Options
from provisioning.release import planned_storage


def out(row: Deployment) -> DeploymentOut:
    return DeploymentOut(
        id=row.id,
        name=row.name,
        vcenter_id=row.vcenter_id,
        plan=DeploymentPlan.model_validate_json(row.plan_json),
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def get(db: Session, deployment_id: int) -> Deployment:
    row = db.get(Deployment, deployment_id)
    if row is None:
        raise NotFound(f"No deployment {deployment_id}")
    return row


def list_all(db: Session) -> list[Deployment]:
    return list(db.scalars(select(Deployment).order_by(Deployment.name)))


SECRET_FIELDS: dict[str, Any] = {"fleet": {"admin_password"}, "horizon": {"password"}}


def secrets_of(row: Deployment, box: SecretBox) -> dict[str, str]:
    """The sealed copy of the secrets last given (the Appliances page reads the pools' state with it; the
    support bundle scrubs them). Jobs never read it: each takes its secrets from its own request.
    A row sealed before Horizon holds the admin password alone."""
    if not row.secrets_sealed:
        return {}
    opened = box.open(row.secrets_sealed)
    try:
        found = json.loads(opened)
    except ValueError:
        found = None
    return (
        {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {"admin_password": opened}
    )


def _seal(row: Deployment, box: SecretBox, given: dict[str, str]) -> None:
    if given:  # a secret left out stays as it was
        kept = secrets_of(row, box)
        kept.update(given)
        row.secrets_sealed = box.seal(json.dumps(kept))


def _store(row: Deployment, plan: DeploymentPlan, box: SecretBox) -> None:
    given = {
        "admin_password": plan.fleet.admin_password if plan.fleet else None,
        "horizon_password": plan.horizon.password if plan.horizon else None,
    }
    _seal(row, box, {k: v.get_secret_value() for k, v in given.items() if v is not None})
    row.plan_json = plan.model_dump_json(exclude=SECRET_FIELDS)
    row.updated_at = now()


def create(db: Session, box: SecretBox, body: DeploymentCreate) -> Deployment:
    vcenters.get(db, body.vcenter_id)
    if db.scalar(select(Deployment.id).where(Deployment.name == body.plan.name)) is not None:
        raise Conflict(f"A deployment named {body.plan.name!r} exists already", field="plan.name")
    row = Deployment(name=body.plan.name, vcenter_id=body.vcenter_id, created_at=now())
    _store(row, body.plan, box)
    db.add(row)
    db.commit()
    return row


def update(db: Session, box: SecretBox, deployment_id: int, plan: DeploymentPlan) -> Deployment:
    row = get(db, deployment_id)
    if plan.name != row.name:
        raise Conflict("a deployment's name is recorded on its objects and cannot change", field="plan.name")
    if (busy := jobs.active_of(db, row.id)) is not None:
        raise Conflict(f"job {busy.id} is {busy.state}; change the plan when it has finished", job_id=busy.id)
    _keep_pins(DeploymentPlan.model_validate_json(row.plan_json), plan)
    _store(row, plan, box)
    db.commit()
    return row


def delete(db: Session, deployment_id: int) -> None:
    row = get(db, deployment_id)
    if (busy := jobs.active_of(db, row.id)) is not None:
        raise Conflict(f"job {busy.id} is {busy.state}", job_id=busy.id)
    db.delete(row)
    db.commit()


SECRET_WORDS = {
    "admin_password": "appliances' admin password",
    "horizon_password": "Horizon administrator's password",
}


def needed_secrets(plan: DeploymentPlan, kind: str) -> list[str]:
    """The JobSecrets fields a job of `kind` on `plan` needs."""
    if kind == "upgrade":  # the appliances' api login, nothing of vCenter or Horizon
        return ["admin_password"]
    zfs_copies = plan.fleet is not None and plan.pool is not None and plan.pool.full_copy == "zfs"
    needed = []
    # apply: the appliances' OVF property and their api's login; destroy: the login that releases the
    # pools they serve (provisioning.release) and removes ZFS clones
    if plan.fleet and (kind == "apply" or zfs_copies or plan.nfs is not None):
        needed.append("admin_password")
    if plan.horizon and (kind == "apply" or plan.pool):
        needed.append("horizon_password")
    return needed


def _given(row: Deployment, kind: str, body: JobSecrets | None) -> dict[str, str]:
    """The secrets the job needs, from the request only; a missing one is refused by name."""
    plan = DeploymentPlan.model_validate_json(row.plan_json)
    given = {}
    for name in needed_secrets(plan, kind):
        value = getattr(body, name, None) if body else None
        if value is None or not value.get_secret_value():
            raise SecretRequired(
                f"The {kind} job of {row.name} needs the {SECRET_WORDS[name]}: give it for this run "
                "(a password given before is never reused)",
                field=name,
            )
        given[name] = value.get_secret_value()
    return given


def start_job(
    db: Session, box: SecretBox, held: HeldSecrets, runner: JobRunner, deployment_id: int, kind: str,
    body: JobSecrets | None,
) -> Job:  # fmt: skip
    """Start an apply, destroy or rolling upgrade with the secrets of this request (422 naming the one
    missing). An upgrade needs appliances (and the route, a bundle kept on the manager)."""
    row = get(db, deployment_id)
    if kind == "upgrade":
        plan = DeploymentPlan.model_validate_json(row.plan_json)
        if plan.fleet is None or not plan.fleet.appliances:
            raise Conflict(f"deployment {row.name} has no appliances to upgrade")
    given = _given(row, kind, body)
    job = jobs.create(db, deployment_id, kind)
    _hand_over(db, box, held, runner, row, job, given)
    return job


def resume_job(
    db: Session, box: SecretBox, held: HeldSecrets, runner: JobRunner, job_id: int, body: JobSecrets | None
) -> Job:
    """Run a failed or cancelled job again, with the secrets of this request (never its first run's)."""
    job = jobs.get(db, job_id)
    if job.state not in ("failed", "cancelled"):
        raise Conflict(f"job {job_id} is {job.state}; only failed or cancelled jobs resume")
    if (busy := jobs.active_of(db, job.deployment_id)) is not None:
        raise Conflict(f"job {busy.id} of this deployment is {busy.state}", job_id=busy.id)
    row = get(db, job.deployment_id)
    given = _given(row, job.kind, body)
    job.state, job.cancel_requested = "queued", False
    db.commit()
    _hand_over(db, box, held, runner, row, job, given)
    return job


def _hand_over(
    db: Session, box: SecretBox, held: HeldSecrets, runner: JobRunner, row: Deployment, job: Job,
    given: dict[str, str],
) -> None:  # fmt: skip
    _seal(row, box, given)
    db.commit()
    held.put(row.id, given)
    runner.submit(job.id)


def vcenter_login(db: Session, box: SecretBox, row: Deployment, timeout: float) -> Callable[[], Any]:
    vc = vcenters.get(db, row.vcenter_id)
    return functools.partial(
        session.login, vc.host, vc.port, vc.username, box.open(vc.password_sealed),
        thumbprint_sha256=vc.thumbprint_sha256, timeout=timeout,
    )  # fmt: skip


def plan(db: Session, box: SecretBox, deployment_id: int, timeout: float) -> PlanOut:
    row = get(db, deployment_id)
    si = vcenter_login(db, box, row, timeout)()
    try:
        adopting = jobs.clone_tasks(db, row.id)
        changes = provisioning.plan(si, DeploymentPlan.model_validate_json(row.plan_json), adopting)
    finally:
        session.logout(si)
    return PlanOut(actions=changes.actions, counts=changes.counts(), unchanged=changes.unchanged)


def execute(
    kind: str,
    deployment_id: int,
    record: Callable[[str, str | None, str, int, int], None],
    cancelled: Callable[[], bool],
    *,
    factory: sessionmaker[Session],
    box: SecretBox,
    held: HeldSecrets,
    timeout: float,
    settings: Settings,
    options: Callable[[], Options] = Options,
) -> Outcome:
    """Run one apply, destroy or rolling upgrade for the job runner (api.jobs.runner.Execute)."""
    secrets = held.take(deployment_id)
    with factory() as db:
        row = get(db, deployment_id)
        login = vcenter_login(db, box, row, timeout)
        deployment = DeploymentPlan.model_validate_json(row.plan_json)
        adopt = jobs.clone_tasks(db, deployment_id)
    if missing := [f for f in needed_secrets(deployment, kind) if not secrets.get(f)]:
        # Only a run the api restarted gets here (the routes refuse a request without them).
        words = " and the ".join(SECRET_WORDS[f] for f in missing)
        return Outcome(
            "failed", f"the api restarted and keeps no passwords: resume it and give the {words}", {}
        )
    if kind == "upgrade":
        return fleet_upgrade.run(settings, deployment, secrets["admin_password"], record, cancelled)
    opts = options()
    opts.adopt = adopt
    opts.password = secrets.get("admin_password")
    opts.horizon_password = secrets.get("horizon_password")
    opts.cancelled = cancelled

    def on_event(e: Any) -> None:
        record(e.kind, e.object, e.message, e.done, e.total)
        if e.kind == "pin" and e.object:
            record_pin(factory, deployment_id, e.object, e.message)

    opts.on_event = on_event
    try:
        if kind == "apply":
            report = provisioning.apply(login, deployment, opts)
        else:
            handed = None
            if deployment.horizon and deployment.pool:
                handed = (deployment.horizon, deployment.horizon.pool_name or deployment.pool.name)
            report = destroy(
                login,
                deployment.name,
                deployment.datacenter,
                deployment.cluster,
                opts,
                horizon_pool=handed,
                zfs=zfs_clones(deployment),
                pool=deployment.pool,
                storage=planned_storage(deployment),
            )
    except Cancelled as exc:
        return Outcome("cancelled", str(exc), {})
    summary = f"{len(report.done)} done, {len(report.failed)} failed in {report.seconds:.1f} s"
    if report.relogins:
        summary += f"; logged in again {report.relogins}x"
    if report.failed:
        return Outcome("failed", summary + "; apply again to retry what failed", report.failed)
    return Outcome("succeeded", summary, {})


def _keep_pins(old: DeploymentPlan, new: DeploymentPlan) -> None:
    """An edited plan that names no thumbprint keeps the one pinned on first contact (same endpoint):
    trust on first use must not turn into trust on every edit."""
    if not (old.fleet and new.fleet):
        return
    pinned = {(a.name, a.api_endpoint): a.api_thumbprint_sha256 for a in old.fleet.appliances}
    for spec in new.fleet.appliances:
        if spec.api_thumbprint_sha256 is None:
            spec.api_thumbprint_sha256 = pinned.get((spec.name, spec.api_endpoint))


def record_pin(factory: sessionmaker[Session], deployment_id: int, appliance: str, thumbprint: str) -> None:
    """Keep the certificate an appliance presented on first contact in the stored plan: later runs pin it."""
    with factory() as db:
        row = get(db, deployment_id)
        plan = DeploymentPlan.model_validate_json(row.plan_json)
        for spec in plan.fleet.appliances if plan.fleet else []:
            if spec.name == appliance and spec.api_thumbprint_sha256 is None:
                spec.api_thumbprint_sha256 = thumbprint
                row.plan_json = plan.model_dump_json(exclude=SECRET_FIELDS)
                row.updated_at = now()
                db.commit()


def job_runner(state: Any) -> JobRunner:
    """The app's job runner; `state.provisioning_options` (a factory of Options) is what tests swap."""
    state.provisioning_options = Options
    state.held_secrets = HeldSecrets()
    run = functools.partial(
        execute,
        factory=state.sessionmaker,
        box=state.secretbox,
        held=state.held_secrets,
        timeout=state.settings.vcenter_timeout,
        settings=state.settings,
        options=lambda: state.provisioning_options(),
    )
    return JobRunner(state.sessionmaker, run)
