"""Every field of the provisioning models the api publishes is described (they become the OpenAPI docs)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from api.deployments.schemas import DeploymentCreate, DeploymentOut, DeploymentUpdate, PlanOut
from api.jobs.schemas import Failure, JobEventOut, JobOut
from provisioning.diff import Action, Diff
from provisioning.plan import ApplianceSpec, DeploymentPlan, DesktopPoolSpec, Fleet, LunDisk, NfsDatastore

MODELS = [DeploymentPlan, Fleet, ApplianceSpec, LunDisk, NfsDatastore, DesktopPoolSpec, Action, Diff, DeploymentCreate,
          DeploymentUpdate, DeploymentOut, PlanOut, JobOut, JobEventOut, Failure]  # fmt: skip


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_field_is_described(model: type[BaseModel]) -> None:
    assert [name for name, f in model.model_fields.items() if not f.description] == []
