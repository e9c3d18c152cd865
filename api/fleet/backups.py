"""A configuration backup of every appliance in one action, kept on the manager as one archive.

Each appliance makes its own backup (POST /api/backup on it, as its admin over its pinned certificate),
encrypted there under the passphrase given: the archive holds each appliance's file as that appliance
wrote it, so any one of them restores onto its appliance (or a replacement) with the appliance's own
restore. The manager never sees a configuration in clear. Appliances are asked at once, each within
TIMEOUT; one that fails is named in the archive's report and the others are kept. The manager keeps the
KEEP newest archives.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import re
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sqlalchemy.orm import Session

from api.backup import envelope
from api.errors import NotFound
from api.fleet import dashboard
from api.fleet.dashboard import Fleet, stored
from api.fleet.schemas import FleetBackup, FleetBackupItem
from api.fleet.sessions import ApplianceSessions
from api.secretbox import SecretBox
from provisioning.appliance_api import ApplianceApi
from provisioning.appliance_errors import ApplianceApiError
from provisioning.health import endpoint_of
from provisioning.plan import ApplianceSpec

#: seconds an appliance has to make its backup (scrypt at its pinned cost, on a slow CPU too)
TIMEOUT = 120.0
WORKERS = 8
KEEP = 5
REPORT = "fleet-backup.json"
NAME = re.compile(r"^arcvsa-fleet-backup-\d{8}T\d{9}Z\.zip$")  # to the millisecond: names sort by time


def folder(data_dir: Path) -> Path:
    return data_dir / "fleet-backups"


def take(
    db: Session,
    box: SecretBox,
    sessions: ApplianceSessions,
    data_dir: Path,
    passphrase: str,
    deployment_id: int | None = None,
) -> FleetBackup:
    fleets = stored(db, box)
    if deployment_id is not None:
        fleets = [f for f in fleets if f.row.id == deployment_id]
        if not fleets:
            raise NotFound(f"Deployment {deployment_id} does not exist or has no appliances")
    jobs = [(f, spec) for f in fleets for spec in f.appliances]
    if not jobs:
        raise NotFound("No deployment has appliances to back up")
    with ThreadPoolExecutor(max_workers=min(WORKERS, len(jobs)), thread_name_prefix="fleet-backup") as pool:
        done = list(pool.map(lambda job: _one(job[0], job[1], sessions, passphrase), jobs))
    now = dt.datetime.now(dt.UTC)
    name = f"arcvsa-fleet-backup-{now.strftime('%Y%m%dT%H%M%S')}{now.microsecond // 1000:03d}Z.zip"
    items = [item for item, _ in done]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for item, data in done:
            if item.file is not None and data is not None:
                archive.writestr(item.file, data)
        report = {
            "created_at": now.isoformat(timespec="milliseconds"),
            "appliances": [i.model_dump() for i in items],
        }
        archive.writestr(REPORT, json.dumps(report, indent=2) + "\n")
    out = folder(data_dir)
    out.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = out / name
    partial = path.with_suffix(".partial")
    partial.write_bytes(buffer.getvalue())
    partial.chmod(0o600)
    partial.replace(path)
    _prune(out)
    return FleetBackup(
        name=name,
        created_at=now.isoformat(timespec="milliseconds"),
        size_bytes=path.stat().st_size,
        taken=sum(1 for i in items if i.state == "taken"),
        appliances=items,
    )


def _one(
    fleet: Fleet, spec: ApplianceSpec, sessions: ApplianceSessions, passphrase: str
) -> tuple[FleetBackupItem, bytes | None]:
    deployment = fleet.row.name

    def item(state: str, reason: str | None = None, file: str | None = None) -> FleetBackupItem:
        return FleetBackupItem.model_validate(
            {"deployment": deployment, "appliance": spec.name, "state": state, "reason": reason, "file": file}
        )

    endpoint = endpoint_of(spec)
    if endpoint is None or spec.api_thumbprint_sha256 is None:
        return item("not deployed", "its certificate is not pinned yet: apply pins it on first contact"), None
    if fleet.password is None:
        return item("failed", "no admin password stored with the deployment"), None
    api = ApplianceApi(endpoint, spec.api_thumbprint_sha256, name=spec.name, timeout=dashboard.TIMEOUT)
    try:
        api.health()  # a dead or silent appliance is named within the fleet view's budget, not a backup's
        api.timeout = TIMEOUT
        status, data = sessions.send(api, fleet.password, "POST", "/api/backup", {"passphrase": passphrase})
        api.answer("POST", "/api/backup", status, data)
    except ApplianceApiError as exc:
        return item("failed", str(exc)), None
    file = f"{deployment}/{spec.name}{envelope.SUFFIX}"
    return item("taken", file=file), json.dumps(data, indent=2).encode() + b"\n"


def listed(data_dir: Path) -> list[FleetBackup]:
    """The archives kept, newest first."""
    out = folder(data_dir)
    paths = sorted((p for p in out.glob("*.zip") if NAME.match(p.name)), reverse=True) if out.is_dir() else []
    return [_read(p) for p in paths]


def path_of(data_dir: Path, name: str) -> Path:
    path = folder(data_dir) / name
    if not NAME.match(name) or not path.is_file():
        raise NotFound(f"No fleet backup named {name}")
    return path


def _read(path: Path) -> FleetBackup:
    with zipfile.ZipFile(path) as archive:
        report = json.loads(archive.read(REPORT))
    items = [FleetBackupItem.model_validate(i) for i in report["appliances"]]
    return FleetBackup(
        name=path.name,
        created_at=report["created_at"],
        size_bytes=path.stat().st_size,
        taken=sum(1 for i in items if i.state == "taken"),
        appliances=items,
    )


def _prune(out: Path) -> None:
    for old in sorted((p for p in out.glob("*.zip") if NAME.match(p.name)), reverse=True)[KEEP:]:
        old.unlink(missing_ok=True)
