"""/api/deployments: stored plans; plan (diff against vCenter), apply and destroy (as jobs)."""

from __future__ import annotations

from fastapi import APIRouter, Request, status

from api.deployments import service
from api.deployments.held import held_of
from api.deployments.schemas import DeploymentCreate, DeploymentOut, DeploymentUpdate, JobSecrets, PlanOut
from api.deps import AppSettings, Box, Db
from api.errors import Conflict, ErrorBody
from api.fleet import bundle as fleet_bundle
from api.jobs import service as jobs
from api.jobs.routes import CONFLICT, NOT_FOUND, SECRET_MISSING
from api.jobs.runner import runner_of
from api.jobs.schemas import JobOut
from api.secretbox import SecretBox

router = APIRouter(prefix="/api/deployments", tags=["deployments"])
REFUSED: dict[int | str, dict[str, object]] = {422: {"model": ErrorBody}, 409: {"model": ErrorBody}}


@router.get("")
def list_deployments(db: Db) -> list[DeploymentOut]:
    """Every stored deployment."""
    return [service.out(r) for r in service.list_all(db)]


@router.post("", status_code=status.HTTP_201_CREATED, responses={**NOT_FOUND, **CONFLICT})
def create_deployment(body: DeploymentCreate, box: Box, db: Db) -> DeploymentOut:
    """Store a plan for a vCenter connection; nothing changes in vCenter yet."""
    return service.out(service.create(db, box, body))


@router.get("/{deployment_id}", responses=NOT_FOUND)
def get_deployment(deployment_id: int, db: Db) -> DeploymentOut:
    """One deployment and its plan."""
    return service.out(service.get(db, deployment_id))


@router.put("/{deployment_id}", responses={**NOT_FOUND, **CONFLICT})
def update_deployment(deployment_id: int, body: DeploymentUpdate, box: Box, db: Db) -> DeploymentOut:
    """Change the plan (grow, shrink, recompose); the next apply makes vCenter match it."""
    return service.out(service.update(db, box, deployment_id, body.plan))


@router.delete(
    "/{deployment_id}", status_code=status.HTTP_204_NO_CONTENT, responses={**NOT_FOUND, **CONFLICT}
)
def delete_deployment(deployment_id: int, db: Db) -> None:
    """Forget a deployment (what it made stays in vCenter: destroy it first to remove that)."""
    service.delete(db, deployment_id)


@router.post("/{deployment_id}/plan", responses={**NOT_FOUND, **REFUSED})
def plan_deployment(deployment_id: int, box: Box, db: Db, settings: AppSettings) -> PlanOut:
    """Diff the plan against vCenter: what apply would change. Changes nothing; refuses a bad plan."""
    return service.plan(db, box, deployment_id, settings.vcenter_timeout)


@router.post(
    "/{deployment_id}/apply",
    status_code=status.HTTP_202_ACCEPTED,
    responses={**NOT_FOUND, **CONFLICT, **SECRET_MISSING},
)
def apply_deployment(
    deployment_id: int, request: Request, box: Box, db: Db, body: JobSecrets | None = None
) -> JobOut:
    """Start a job that makes what is missing; follow it under /api/jobs. A plan with appliances needs their
    admin password (and one with Horizon its password) in this request: 422 secret_required names it."""
    return _start(deployment_id, "apply", request, box, db, body)


@router.post(
    "/{deployment_id}/destroy",
    status_code=status.HTTP_202_ACCEPTED,
    responses={**NOT_FOUND, **CONFLICT, **SECRET_MISSING},
)
def destroy_deployment(
    deployment_id: int, request: Request, box: Box, db: Db, body: JobSecrets | None = None
) -> JobOut:
    """Start a job that removes every object this deployment made, and nothing else. Removing a Horizon pool
    or ZFS clones needs that password in this request (422 secret_required names it)."""
    return _start(deployment_id, "destroy", request, box, db, body)


@router.post(
    "/{deployment_id}/upgrade",
    status_code=status.HTTP_202_ACCEPTED,
    responses={**NOT_FOUND, **CONFLICT, **SECRET_MISSING},
)
def upgrade_deployment(
    deployment_id: int,
    request: Request,
    box: Box,
    db: Db,
    settings: AppSettings,
    body: JobSecrets | None = None,
) -> JobOut:
    """Start a rolling upgrade of its appliances with the bundle kept on the manager (PUT
    /api/fleet/bundle): the bundle is staged on every appliance first, then each is upgraded in turn and
    must be healthy on the new release (api, pools ONLINE, exports active) before the next; the first that
    fails stops it, and the rest stay on their release. Needs the appliances' admin password."""
    if fleet_bundle.staged(settings) is None:
        raise Conflict("no upgrade bundle is kept on the manager: upload one first (PUT /api/fleet/bundle)")
    return _start(deployment_id, "upgrade", request, box, db, body)


def _start(
    deployment_id: int, kind: str, request: Request, box: SecretBox, db: Db, body: JobSecrets | None
) -> JobOut:
    job = service.start_job(db, box, held_of(request), runner_of(request), deployment_id, kind, body)
    return jobs.out(job)
