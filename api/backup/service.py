"""Configuration backup (collect, seal) and restore (open, import the pools, store, reconcile, report).

A restore changes nothing until the file opened and its payload checked. Then, in this order: the pools
the backup names are imported where they are not yet; the datasets the exports and LUNs need are looked
up; the NFS server is reconciled with the exports whose datasets are there, and only then is the
database replaced in one transaction (a failed reconcile leaves it as it was, as an export change does);
last, iSCSI targets, module parameters and the TLS certificate, each on its own: what fails is reported
in ``not_restored`` beside everything the backup named and could not bring back, never dropped.

Fresh or not: an appliance with exports, iSCSI targets or vCenter connections refuses a restore unless
``replace`` is asked for. Replacing keeps the LIO targets it has (they may carry live LUNs: remove them
through the api) and the vCenter connections that deployments still refer to.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from api import VERSION
from api.appliance import service as appliance
from api.auth.service import now
from api.auth.tables import LoginSession, User
from api.backup import envelope
from api.backup.schemas import (
    BackupExport,
    BackupNotify,
    BackupScrapeToken,
    BackupTarget,
    BackupTls,
    BackupUser,
    BackupVCenter,
    NotRestored,
    Payload,
    RestoreReport,
    RestoreRequest,
    Skipped,
    StorageNeeds,
)
from api.certificate import service as certificates
from api.deployments.table import Deployment
from api.errors import ApiError, Conflict
from api.exports import service as exports
from api.exports.table import NfsExport, StorageSetting
from api.iscsi import service as iscsi_service
from api.notify import service as notify
from api.notify.schemas import NotifySettings, SyslogSettings
from api.notify.table import NotifyConfig
from api.prometheus.tokens import ScrapeToken
from api.secretbox import SecretBox
from api.settings import Settings
from api.tls import paths
from api.tuning import service as tuning
from api.vcenters.table import VCenter
from appliance.control import datasets, pools
from appliance.control.datasets import Dataset
from appliance.control.errors import ControlError
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.iscsi import TargetSpec
from appliance.control.nfs import backends
from appliance.control.nfs.model import Export, check_set

log = logging.getLogger(__name__)


class RestoreRefused(Conflict):
    """The appliance holds configuration already and ``replace`` was not asked for."""

    field = "replace"


# --- backup ------------------------------------------------------------------------------------------


def _targets(
    db: Session, box: SecretBox, files: Files, settings: Settings
) -> tuple[list[BackupTarget], list[Skipped]]:
    """The stored targets, with their CHAP secrets; a target LIO has that is not stored is named."""
    specs = iscsi_service.stored(db, box, files, settings)
    out = [
        BackupTarget(iqn=t.iqn, zvol=t.zvol, initiators=t.initiators, chap=t.chap, wwn=t.wwn) for t in specs
    ]
    reason = "not made by arcvsa (one LUN on a zvol): recreate it with targetcli"
    held = {t.iqn for t in specs}
    skipped = [
        Skipped(kind="iscsi_target", name=t.iqn, reason=reason)
        for t in iscsi_service.targets()
        if t.iqn not in held
    ]
    return out, skipped


def _tls(settings: Settings) -> BackupTls | None:
    cert, key = paths(settings.data_dir)
    try:
        return BackupTls(
            certificate=cert.read_text(encoding="ascii"), private_key=key.read_text(encoding="ascii")
        )
    except (FileNotFoundError, UnicodeDecodeError):
        return None


def _open(box: SecretBox, sealed: bytes, kind: str, name: str, skipped: list[Skipped]) -> str | None:
    """A stored secret in plain text; None (and a note for the restore) when the key no longer opens it."""
    try:
        return box.open(sealed)
    except RuntimeError:
        skipped.append(Skipped(kind=kind, name=name, reason="its stored secret cannot be decrypted here"))
        return None


def _notify(db: Session, box: SecretBox, skipped: list[Skipped]) -> BackupNotify | None:
    if db.get(NotifyConfig, 1) is None:
        return None
    settings, sealed = notify.load(db)
    plain = settings.model_copy(update={"smtp_password_set": False})
    password = _open(box, sealed, "smtp_password", "notify", skipped) if sealed is not None else None
    return BackupNotify(settings=plain, smtp_password=password)


def collect(db: Session, box: SecretBox, files: Files, settings: Settings) -> Payload:
    """The appliance's configuration, secrets opened (kept in memory only until sealed again)."""
    users = [
        BackupUser(username=u.username, password_hash=u.password_hash, created_at=u.created_at)
        for u in db.scalars(select(User).order_by(User.username))
    ]
    targets, skipped = _targets(db, box, files, settings)
    vcenters = []
    for v in db.scalars(select(VCenter).order_by(VCenter.name)):
        password = _open(box, v.password_sealed, "vcenter", v.name, skipped)
        if password is not None:
            vcenters.append(
                BackupVCenter(
                    name=v.name,
                    host=v.host,
                    port=v.port,
                    username=v.username,
                    password=password,
                    thumbprint_sha256=v.thumbprint_sha256,
                    created_at=v.created_at,
                )
            )
    chosen = db.get(StorageSetting, exports.BACKEND_KEY)
    nfs = [BackupExport.model_validate(e.model_dump()) for e in exports.desired(db)]
    tokens = [
        BackupScrapeToken(
            name=t.name,
            token_sha256=t.token_sha256,
            created_by=t.created_by,
            created_at=t.created_at,
            last_used_at=t.last_used_at,
        )
        for t in db.scalars(select(ScrapeToken).order_by(ScrapeToken.id))
    ]
    needed = sorted({e.dataset for e in nfs} | {t.zvol for t in targets})
    return Payload(
        users=users,
        vcenters=vcenters,
        nfs_backend=chosen.value if chosen is not None else None,
        exports=nfs,
        iscsi_targets=targets,
        tuning=tuning.plan(db),
        notify=_notify(db, box, skipped),
        tls=_tls(settings),
        scrape_tokens=tokens,
        storage=StorageNeeds(pools=sorted({d.split("/")[0] for d in needed}), datasets=needed),
        skipped=skipped,
    )


def backup(
    db: Session, box: SecretBox, files: Files, settings: Settings, passphrase: str
) -> tuple[str, bytes]:
    """(file name, file bytes) of a backup of this appliance's configuration under ``passphrase``."""
    host = appliance.file_hostname()
    payload = collect(db, box, files, settings)
    data = envelope.seal(payload.model_dump(mode="json"), passphrase, arcvsa_version=VERSION, hostname=host)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"arcvsa-config-{host}-{stamp}{envelope.SUFFIX}", data


# --- restore -----------------------------------------------------------------------------------------


@dataclass
class _Progress:
    """What a restore has done so far (becomes the report)."""

    missing: list[NotRestored] = field(default_factory=list)
    imported: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    found: dict[str, Dataset] = field(default_factory=dict)

    def lost(self, kind: str, name: str, reason: str) -> None:
        self.missing.append(NotRestored(kind=kind, name=name, reason=reason))


def read(body: RestoreRequest) -> tuple[dict[str, Any], Payload]:
    """(envelope header, payload) of an uploaded backup; typed errors for every way it can be wrong."""
    try:
        data = base64.b64decode(body.file_base64, validate=True)
    except (binascii.Error, ValueError):
        raise envelope.BackupMalformed("file_base64 is not base64") from None
    header = envelope.header(data)
    raw = envelope.unseal(data, body.passphrase)
    try:
        return header, Payload.model_validate(raw)
    except ValidationError as err:
        raise envelope.BackupMalformed(
            f"The backup's configuration cannot be read: {err.errors()[0]['msg']}"
        ) from None


def _configured(db: Session, files: Files) -> list[str]:
    """What makes this appliance not fresh."""
    held = []
    if count := len(exports.desired(db)):
        held.append(f"{count} NFS export(s)")
    if count := len(iscsi_service.saved_targets(files)):
        held.append(f"{count} iSCSI target(s)")
    if count := len(list(db.scalars(select(VCenter.id)))):
        held.append(f"{count} vCenter connection(s)")
    return held


def _storage(gw: Gateway, needs: StorageNeeds, done: _Progress) -> None:
    """Import the pools not imported yet; look up the datasets the exports and LUNs need."""
    if not needs.pools:
        return
    imported = set(pools.list_names(gw))
    failed = set()
    for pool in needs.pools:
        if pool in imported:
            done.present.append(pool)
            continue
        try:
            pools.import_pool(gw, pool)
        except ControlError as err:
            failed.add(pool)
            done.lost("pool", pool, f"not imported: {err}")
            continue
        done.imported.append(pool)
        log.info("restore: pool %s imported", pool)
    for name in needs.datasets:
        if name.split("/")[0] in failed:
            continue  # reported with its pool, and again with each export or target that needs it
        try:
            done.found[name] = datasets.get(gw, name)
        except ControlError as err:
            done.lost("dataset", name, str(err))


def _nfs(payload: Payload, done: _Progress) -> list[Export]:
    """The backup's exports whose datasets are mounted file systems here (at their mount point now)."""
    out = []
    for e in payload.exports:
        found = done.found.get(e.dataset)
        mountpoint = found.mountpoint if found is not None else None
        if found is None:
            done.lost("export", str(e.export_id), f"its dataset {e.dataset} is missing")
        elif found.type != "FILESYSTEM" or not (mountpoint or "").startswith("/"):
            done.lost("export", str(e.export_id), f"{e.dataset} is not a mounted file system")
        else:
            out.append(Export(**{**e.model_dump(), "path": str(mountpoint)}))
    check_set(out)
    return out


def _users(db: Session, payload: Payload, done: _Progress) -> bool:
    if not payload.users:
        done.lost("users", "-", "the backup holds no user: this appliance's users are kept")
        return False
    db.execute(delete(LoginSession))
    db.execute(delete(User))
    db.add_all(User(**u.model_dump()) for u in payload.users)
    return True


def _vcenters(db: Session, box: SecretBox, payload: Payload, done: _Progress) -> None:
    """Same-named connections updated in place (deployments refer to them by id), others added or removed."""
    existing = {v.name: v for v in db.scalars(select(VCenter))}
    for item in payload.vcenters:
        row = existing.pop(item.name, None)
        if row is None:
            row = VCenter(name=item.name, created_at=item.created_at)
            db.add(row)
        row.host, row.port, row.username = item.host, item.port, item.username
        row.password_sealed, row.thumbprint_sha256 = box.seal(item.password), item.thumbprint_sha256
    for row in existing.values():
        if db.scalar(select(Deployment.id).where(Deployment.vcenter_id == row.id).limit(1)) is not None:
            done.lost(
                "vcenter", row.name, "kept: not in the backup, but deployments on this appliance use it"
            )
        else:
            db.delete(row)


def _settings(db: Session, box: SecretBox, payload: Payload, applied: list[Export], chosen: str) -> None:
    db.execute(delete(NfsExport))
    stamp = now()
    for e in applied:
        db.add(
            NfsExport(
                export_id=e.export_id,
                dataset=e.dataset,
                path=e.path,
                protocol=e.protocol.value,
                clients_json=json.dumps(e.clients),
                insecure_ports=e.insecure_ports,
                created_at=stamp,
                updated_at=stamp,
            )
        )
    if payload.nfs_backend is not None:
        row = db.get(StorageSetting, exports.BACKEND_KEY)
        if row is None:
            db.add(StorageSetting(key=exports.BACKEND_KEY, value=chosen, updated_at=stamp))
        else:
            row.value, row.updated_at = chosen, stamp
    db.execute(delete(NotifyConfig))
    if payload.notify is not None:
        password = payload.notify.smtp_password
        settings = NotifySettings(smtp=payload.notify.settings.smtp, syslog=payload.notify.settings.syslog)
        sealed = box.seal(password) if password else None
        db.add(NotifyConfig(id=1, settings_json=settings.model_dump_json(), smtp_password=sealed))
    db.execute(delete(ScrapeToken))
    db.add_all(ScrapeToken(**t.model_dump()) for t in payload.scrape_tokens)


def _iscsi(
    files: Files, db: Session, box: SecretBox, settings: Settings, payload: Payload, done: _Progress
) -> list[str]:
    """Create and store the backup's targets LIO does not have; one failing does not stop the others."""
    if not payload.iscsi_targets:
        return []
    have = {t.iqn for t in iscsi_service.saved_targets(files)}
    made = []
    for t in payload.iscsi_targets:
        found = done.found.get(t.zvol)
        if t.iqn in have:
            done.lost("iscsi_target", t.iqn, "LIO has a target of this IQN already: kept as it is")
        elif found is None:
            done.lost("iscsi_target", t.iqn, f"its zvol {t.zvol} is missing")
        elif found.type != "VOLUME":
            done.lost("iscsi_target", t.iqn, f"{t.zvol} is not a zvol (type {found.type})")
        else:
            spec = TargetSpec(
                iqn=t.iqn,
                zvol=t.zvol,
                backstore=iscsi_service.backstore(t.zvol),
                initiators=t.initiators,
                chap=t.chap,
                wwn=t.wwn,
            )
            try:
                iscsi_service.add(db, box, files, settings, spec)
            except ControlError as err:
                done.lost("iscsi_target", t.iqn, str(err))
                continue
            made.append(t.iqn)
    return made


def _tuning(
    files: Files, settings: Settings, db: Session, payload: Payload, done: _Progress
) -> dict[str, int]:
    if not payload.tuning:
        return {}
    try:
        tuning.apply(files, settings, db, payload.tuning)
    except ControlError as err:
        done.lost("tuning", ",".join(sorted(payload.tuning)), str(err))
        return {}
    return dict(payload.tuning)


def _log_forwarding(gw: Gateway, files: Files, payload: Payload, done: _Progress) -> None:
    """The backup's log forwarding made real (off when it had no notification settings, as now stored)."""
    syslog = payload.notify.settings.syslog if payload.notify is not None else SyslogSettings()
    try:
        with notify.CHANGES:
            notify.apply_forwarding(gw, files, syslog)
    except ControlError as err:
        done.lost("log_forwarding", f"{syslog.host}:{syslog.port}", str(err))


def _certificate(settings: Settings, payload: Payload, by: str, done: _Progress) -> bool:
    if payload.tls is None:
        return False
    try:
        pair = certificates.check(payload.tls.certificate, payload.tls.private_key, datetime.now(UTC))
        certificates.install(settings.data_dir, pair, by=by)
    except ApiError as err:
        done.lost("tls", "certificate", str(err))
        return False
    return True


def restore(
    gw: Gateway, files: Files, db: Session, box: SecretBox, settings: Settings, body: RestoreRequest, by: str
) -> RestoreReport:
    """Open the backup, bring its storage and configuration back, and say what could not be."""
    header, payload = read(body)
    held = _configured(db, files)
    if held and not body.replace:
        raise RestoreRefused(
            f"This appliance is configured already ({', '.join(held)}): restore with replace to replace "
            "its configuration with the backup's"
        )
    done = _Progress()
    for s in payload.skipped:
        done.lost(s.kind, s.name, f"not in the backup: {s.reason}")
    _storage(gw, payload.storage, done)
    applied = _nfs(payload, done)
    with exports.changing(settings):  # no export change between the reconcile and the commit
        chosen = payload.nfs_backend or exports.backend(db, settings)
        if applied or exports.desired(db):
            backends.activate(gw, files, chosen, applied)
        users = _users(db, payload, done)
        _vcenters(db, box, payload, done)
        _settings(db, box, payload, applied, chosen.value)
        db.commit()
    targets = _iscsi(files, db, box, settings, payload, done)
    tuned = _tuning(files, settings, db, payload, done)
    _log_forwarding(gw, files, payload, done)
    tls = _certificate(settings, payload, by, done)
    log.info(
        "configuration restored by %s from %s (%s): pools imported %s, exports %s, targets %s, %d not restored",
        by,
        header["hostname"],
        header["created_at"],
        done.imported,
        [e.export_id for e in applied],
        targets,
        len(done.missing),
    )
    return RestoreReport(
        source_hostname=header["hostname"],
        source_version=header["arcvsa_version"],
        created_at=header["created_at"],
        pools_imported=done.imported,
        pools_present=done.present,
        exports_applied=[e.export_id for e in applied],
        nfs_backend=chosen,
        iscsi_targets_applied=targets,
        users=[u.username for u in db.scalars(select(User).order_by(User.username))],
        vcenters=[v.name for v in db.scalars(select(VCenter).order_by(VCenter.name))],
        scrape_tokens=[t.name for t in db.scalars(select(ScrapeToken).order_by(ScrapeToken.id))],
        notify_restored=payload.notify is not None,
        tuning_applied=tuned,
        tls_installed=tls,
        sessions_ended=users,
        not_restored=done.missing,
    )
