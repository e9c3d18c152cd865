"""Starting and cancelling a calibration: verbs the control service runs as root (api.privileged). fio
writes to raw LUNs, so the runs are that service's threads; their progress goes to the database, which
the api's reads answer from."""

from __future__ import annotations

from api.calibration import service
from api.calibration.schemas import CalibrationCreate, CalibrationOut
from api.errors import Conflict
from api.privileged.host import Host


def start(host: Host, body: CalibrationCreate) -> CalibrationOut:
    with host.sessionmaker() as db:
        service.refuse_if_busy(db)  # before any tool runs
        prepared = service.check(host.storage_gateway, body)
        row = service.create(db, body, prepared)
        host.calibrations.submit(row.id, host.storage_gateway, body, prepared)
        return service.out(row)


def cancel(host: Host, calibration_id: int) -> CalibrationOut:
    with host.sessionmaker() as db:
        row = service.get(db, calibration_id)
        if row.state not in service.ACTIVE:
            raise Conflict(f"calibration {calibration_id} is {row.state} already")
        host.calibrations.cancel(calibration_id)
        return service.out(row)


VERBS = (start, cancel)
