"""/api/calibrations: desktop-density ramps and SAN checks on this appliance. Thin: the service and
appliance.control.calibration do the work; the target is checked before anything runs."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from api.calibration import changes, service
from api.calibration.schemas import CalibrationCreate, CalibrationOut
from api.deps import Db
from api.errors import ErrorBody
from api.privileged.deps import Controlled

router = APIRouter(prefix="/api/calibrations", tags=["calibration"])
REFUSED: dict[int | str, dict[str, object]] = {
    404: {"model": ErrorBody},
    409: {"model": ErrorBody},
    422: {"model": ErrorBody},
    502: {"model": ErrorBody},
    504: {"model": ErrorBody},
}


@router.post("", status_code=status.HTTP_202_ACCEPTED, responses=REFUSED)
def start_calibration(body: CalibrationCreate, control: Controlled) -> CalibrationOut:
    """Start a ramp or a SAN check in the background; follow it with GET /api/calibrations/{id}.

    422 for bad input or a LUN without confirm_overwrite, 404 for an unknown LUN or dataset, 409 for a
    LUN in use (a pool's, a file system's) or while another calibration runs.
    """
    return control(changes.start, body)


@router.get("", responses=REFUSED)
def list_calibrations(db: Db) -> list[CalibrationOut]:
    """Every calibration, newest first, with its steps' figures."""
    return [service.out(r) for r in service.list_all(db)]


@router.get("/{calibration_id}", responses=REFUSED)
def get_calibration(calibration_id: int, db: Db) -> CalibrationOut:
    """One calibration: progress while it runs, every step's figures and the result."""
    return service.out(service.get(db, calibration_id))


@router.post("/{calibration_id}/cancel", status_code=status.HTTP_202_ACCEPTED, responses=REFUSED)
def cancel_calibration(calibration_id: int, control: Controlled) -> CalibrationOut:
    """Stop a running ramp after its current step (the steps done are kept)."""
    return control(changes.cancel, calibration_id)


@router.delete("/{calibration_id}", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def delete_calibration(calibration_id: int, db: Db) -> Response:
    """Forget a finished calibration; 409 while it runs."""
    service.delete(db, calibration_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
