"""Configuration backup (every section's desired state, sealed) and restore (open, import the pools,
store every section, converge each, report).

The backup knows no domain: each one gives a :class:`~api.backup.section.Section` and the app lists
them. A restore changes nothing until the file is opened and every section of it checked. Then the
pools the sections need are imported (by their GUID, so a pool of the same name from elsewhere is never
taken for the backup's), the datasets they need looked up, and every section stored in one transaction:
what cannot be met here (a dataset gone, a parameter this zfs lacks) is reported in ``not_restored``,
never dropped in silence. Last, each section is converged by the reconcile its domain runs for a change
through the api; one that cannot converge now keeps its stored state and says why (the poller retries
what it reconciles).

Fresh or not: an appliance whose sections hold configuration (exports, iSCSI targets, vCenter
connections) refuses a restore unless ``replace`` is asked for.
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ValidationError

from api import VERSION
from api.appliance import service as appliance
from api.backup import envelope, migrate
from api.backup.schemas import (
    BackupZfsPool,
    Converged,
    ConvergeError,
    Payload,
    RestoredSection,
    RestoreReport,
    RestoreRequest,
)
from api.backup.section import Context, Restoring, Section, Skipped
from api.errors import ApiError, Conflict
from api.state.deps import IMPORT_PARTS
from api.state.snapshot import Published, required
from appliance.control import datasets, imports, pools
from appliance.control.errors import ControlError
from appliance.control.gateway import Gateway
from appliance.control.observed import Failure, Part

log = logging.getLogger(__name__)


class RestoreRefused(Conflict):
    """The appliance holds configuration already and ``replace`` was not asked for."""

    field = "replace"


# --- backup ------------------------------------------------------------------------------------------


def _pools(needed: list[str], published: Published | None) -> list[BackupZfsPool]:
    """The pools of ``needed``, each with its GUID as the published state has it."""
    names = sorted({d.split("/")[0] for d in needed})
    if not names:
        return []
    observed = required(published).observed
    guids = {p.name: p.guid for p in observed.part(Part.pools, observed.spaces)}
    return [BackupZfsPool(name=name, guid=guids.get(name)) for name in names]


def collect(ctx: Context, sections: Sequence[Section], published: Published | None) -> Payload:
    """The appliance's desired state, secrets opened (kept in memory only until sealed again)."""
    skipped: list[Skipped] = []
    found: dict[str, BaseModel] = {}
    for section in sections:
        value = section.collect(ctx, skipped)
        if value is not None:
            found[section.key] = value
    needed = sorted({name for s in sections if s.key in found for name in s.needs(found[s.key])})
    return Payload(
        pools=_pools(needed, published),
        datasets=needed,
        sections={key: value.model_dump(mode="json") for key, value in found.items()},
        skipped=skipped,
    )


def backup(
    ctx: Context, sections: Sequence[Section], published: Published | None, passphrase: str
) -> tuple[str, bytes]:
    """(file name, file bytes) of a backup of this appliance's configuration under ``passphrase``."""
    host = appliance.file_hostname()
    payload = collect(ctx, sections, published)
    data = envelope.seal(payload.model_dump(mode="json"), passphrase, arcvsa_version=VERSION, hostname=host)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"arcvsa-config-{host}-{stamp}{envelope.SUFFIX}", data


# --- restore -----------------------------------------------------------------------------------------


def _malformed(where: str, err: ValidationError) -> envelope.BackupMalformed:
    first = err.errors()[0]
    at = ".".join(str(part) for part in first["loc"])
    return envelope.BackupMalformed(
        f"The backup's configuration cannot be read: {where}{'.' + at if at else ''}: {first['msg']}"
    )


def read(body: RestoreRequest) -> tuple[dict[str, Any], Payload]:
    """(envelope header, payload in the current format) of an uploaded backup; typed errors for every
    way it can be wrong."""
    try:
        data = base64.b64decode(body.file_base64, validate=True)
    except (binascii.Error, ValueError):
        raise envelope.BackupMalformed("file_base64 is not base64") from None
    header = envelope.header(data)
    raw = migrate.current(header["format_version"], envelope.unseal(data, body.passphrase))
    try:
        return header, Payload.model_validate(raw)
    except ValidationError as err:
        raise _malformed("payload", err) from None


def values(payload: Payload, sections: Sequence[Section]) -> dict[str, BaseModel | None]:
    """Each section's part of the payload, checked against its model (None: the backup has none)."""
    out: dict[str, BaseModel | None] = {}
    for section in sections:
        raw = payload.sections.get(section.key)
        try:
            out[section.key] = None if raw is None else section.model.model_validate(raw)
        except ValidationError as err:
            raise _malformed(section.key, err) from None
    return out


def _storage(gw: Gateway, payload: Payload, restoring: Restoring) -> tuple[list[str], list[str]]:
    """(imported, present): the pools imported by their GUID where they are not yet (by name for a
    format 1 file); the datasets the sections need looked up."""
    imported: list[str] = []
    present: list[str] = []
    if not payload.pools:
        return imported, present
    here = {p.name: p.guid for p in pools.space(gw)}
    failed = set()
    for pool in payload.pools:
        if pool.name in here:
            if pool.guid is not None and here[pool.name] not in (None, pool.guid):
                failed.add(pool.name)
                restoring.lost(
                    "pool",
                    pool.name,
                    f"another pool of this name is imported here (GUID {here[pool.name]}, the backup's is "
                    f"{pool.guid}): export it, then restore again",
                )
            else:
                present.append(pool.name)
            continue
        try:
            if pool.guid is None:
                pools.import_pool(gw, pool.name)
            else:
                imports.import_by_id(gw, pool.guid, pool.name)
        except ControlError as err:
            failed.add(pool.name)
            restoring.lost("pool", pool.name, f"not imported: {err}")
            continue
        imported.append(pool.name)
        log.info("restore: pool %s imported (GUID %s)", pool.name, pool.guid or "not in the backup")
    for name in payload.datasets:
        if name.split("/")[0] in failed:
            continue  # reported with its pool, and again with each export or target that needs it
        try:
            restoring.found[name] = datasets.get(gw, name)
        except ControlError as err:
            restoring.lost("dataset", name, str(err))
    return imported, present


def _converge(ctx: Context, section: Section, value: BaseModel | None) -> Converged | None:
    """The section's converge, its typed error kept as the outcome (the section stays stored)."""
    try:
        with section.changing(ctx):
            changes = section.converge(ctx, value)
    except ControlError as err:
        failure = ConvergeError(**Failure.of(err).model_dump())
    except ApiError as err:
        failure = ConvergeError(error=type(err).__name__, message=str(err))
    else:
        return None if changes is None else Converged(section=section.key, changes=changes)
    return Converged(section=section.key, changes=[], failure=failure)


def restore(ctx: Context, sections: Sequence[Section], body: RestoreRequest) -> RestoreReport:
    """Open the backup, import its storage, store every section, converge each; say what could not be."""
    header, payload = read(body)
    wanted = values(payload, sections)
    held = [said for section in sections if (said := section.held(ctx))]
    if held and not body.replace:
        raise RestoreRefused(
            f"This appliance is configured already ({', '.join(held)}): restore with replace to replace "
            "its configuration with the backup's"
        )
    for section in sections:  # after every refusal: a refused restore writes nothing, adoption included
        section.prepare(ctx)
    restoring = Restoring()
    for s in payload.skipped:
        restoring.lost(s.kind, s.name, f"not in the backup: {s.reason}")
    for key in sorted(set(payload.sections) - {s.key for s in sections}):
        restoring.lost("section", key, "this release does not know this part of a configuration")
    pools_imported, pools_present = _storage(ctx.gw, payload, restoring)
    stored: dict[str, list[str]] = {}
    try:
        for section in sections:
            stored[section.key] = section.store(ctx, wanted[section.key], restoring)
        ctx.db.commit()
    except BaseException:
        ctx.db.rollback()
        raise
    converged = [
        c
        for s in sections
        if s.key in restoring.to_converge and (c := _converge(ctx, s, wanted[s.key])) is not None
    ]
    log.info(
        "configuration restored by %s from %s (%s, format %d): pools imported %s, %s; %d not restored",
        ctx.by,
        header["hostname"],
        header["created_at"],
        header["format_version"],
        pools_imported,
        "; ".join(f"{key} {items}" for key, items in stored.items()),
        len(restoring.missing),
    )
    return RestoreReport(
        source_hostname=header["hostname"],
        source_version=header["arcvsa_version"],
        created_at=header["created_at"],
        format_version=header["format_version"],
        pools_imported=pools_imported,
        pools_present=pools_present,
        restored=[RestoredSection(section=s.key, title=s.title, items=stored[s.key]) for s in sections],
        converged=converged,
        sessions_ended=restoring.sessions_ended,
        not_restored=restoring.missing,
    )


def touched(sections: Sequence[Section], report: RestoreReport) -> tuple[Part, ...]:
    """The parts of the published state a restore changed: the pools it imported (their datasets, the
    disks they took, what is left to import), and what the sections' converges changed."""
    parts: tuple[Part, ...] = IMPORT_PARTS if report.pools_imported else ()
    changed = {c.section for c in report.converged if c.changes}
    for section in sections:
        if section.key in changed:
            parts += section.touches
    return parts


def restart_needed(sections: Sequence[Section], report: RestoreReport) -> bool:
    """Whether what the restore changed is served only from the api's next start (a certificate)."""
    changed = {c.section for c in report.converged if c.changes}
    return any(s.restarts_api and s.key in changed for s in sections)
