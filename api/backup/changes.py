"""A restore: a verb the control service runs as root (api.privileged), since it imports pools and
converges every section on what it stored."""

from __future__ import annotations

from pydantic import BaseModel, Field

from api.backup import service
from api.backup.schemas import RestoreReport, RestoreRequest
from api.backup.section import Context
from api.privileged.host import Host
from api.state import poll


class Restored(BaseModel):
    report: RestoreReport
    restart_needed: bool = Field(description="what it changed is served only from the api's next start")


def restore(host: Host, body: RestoreRequest, by: str, address: str) -> Restored:
    """``by``: who restores; ``address``: where the request came from (the firewall must not cut it off)."""
    sections, settings = host.backup_sections, host.settings
    with host.sessionmaker() as db:
        ctx = Context(
            db=db, box=host.secretbox, files=host.storage_files, settings=settings,
            gw=host.storage_gateway, by=by, address=address,
        )  # fmt: skip
        report = service.restore(ctx, sections, body)
    poll.after_change(host, service.touched(sections, report))
    return Restored(report=report, restart_needed=service.restart_needed(sections, report))


VERBS = (restore,)
