"""/api/tuning: profiles per pool type, the sizing calculator, and the live ZFS module parameters."""

from __future__ import annotations

from fastapi import APIRouter
from zfs_tuning import calculator, profiles
from zfs_tuning.schema import Profile

from api.deps import Db
from api.privileged.deps import Controlled
from api.storage.deps import Fs
from api.storage.routes import REFUSED
from api.tuning import changes, service
from api.tuning.schemas import Applied, Parameter, ParametersUpdate

router = APIRouter(prefix="/api/tuning", tags=["tuning"])


@router.get("/profiles")
def list_profiles() -> list[Profile]:
    """Every pool type's profile: dataset properties, module choices and why each value."""
    return list(profiles.load_all().values())


@router.post("/recommendation", responses=REFUSED)
def recommendation(body: calculator.SizingInput) -> calculator.Plan:
    """ARC, L2ARC, SLOG and module parameters for a desktop pool on this appliance, each with its why."""
    return calculator.plan(body)


@router.get("/parameters", responses=REFUSED)
def get_parameters(fs: Fs, db: Db) -> list[Parameter]:
    """The module parameters arcvsa tunes: value in effect and value set at module load."""
    return service.parameters(fs, db)


@router.put("/parameters", responses=REFUSED)
def put_parameters(body: ParametersUpdate, control: Controlled) -> Applied:
    """A new tuning plan: applied live where it differs, stored, and persisted whole in modprobe.d."""
    return control(changes.apply, body.params)
