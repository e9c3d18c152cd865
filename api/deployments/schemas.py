"""Deployment requests and answers. The plan itself is provisioning.plan.DeploymentPlan."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field, SecretStr

from provisioning.diff import Action
from provisioning.plan import DeploymentPlan


class DeploymentCreate(BaseModel):
    vcenter_id: int = Field(description="The vCenter connection to deploy through")
    plan: DeploymentPlan = Field(
        description="What to deploy; its name is the deployment's id in vCenter. Secrets given here are kept "
        "sealed for the Appliances page only: a job takes its secrets from its own request (JobSecrets)"
    )


class DeploymentUpdate(BaseModel):
    plan: DeploymentPlan = Field(
        description="The new plan (same name): change count to grow or shrink, snapshot to recompose"
    )


class DeploymentOut(BaseModel):
    id: int = Field(description="Deployment id")
    name: str = Field(description="Deployment name, recorded on every object it creates")
    vcenter_id: int = Field(description="The vCenter connection")
    plan: DeploymentPlan = Field(description="The stored plan; secrets are never returned")
    created_at: datetime = Field(description="When it was stored")
    updated_at: datetime = Field(description="When its plan last changed")


class PlanOut(BaseModel):
    actions: list[Action] = Field(description="Every change apply would make, in order")
    counts: dict[str, int] = Field(description="Changes by operation and kind, e.g. {'create desktop': 100}")
    unchanged: int = Field(description="Planned objects that exist already")


class JobSecrets(BaseModel):
    """The secrets one job needs, given with the request that starts it; they live as long as the job."""

    admin_password: SecretStr | None = Field(
        default=None,
        description="The appliances' admin password: needed to apply a plan with a fleet, and to destroy "
        "ZFS clones through an appliance",
    )
    horizon_password: SecretStr | None = Field(
        default=None,
        description="The Horizon administrator's password: needed when the plan has a Horizon pool",
    )
