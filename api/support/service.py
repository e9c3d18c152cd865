"""Build the support bundle: the appliance's items (appliance.control.support), the api's own (version,
build manifest, settings, alerts), both redaction layers over every file, a manifest, one tar.gz.

Never in a bundle: the SQLite database, the secrets key, the TLS private key, the admin password hash.
A failing item is recorded in the manifest and the bundle is still made.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import logging
import os
import platform
import socket
import stat
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api import VERSION, tls
from api.alerts import service as alerts
from api.appliance import service as appliance
from api.auth.tables import LoginSession, User
from api.deployments import service as deployments
from api.deployments.table import Deployment
from api.notify import service as notify
from api.prometheus.tokens import ScrapeToken
from api.secretbox import SecretBox
from api.settings import Settings
from api.state.snapshot import Published
from api.support import redact
from api.support.schemas import Manifest, ManifestItem, Redaction
from api.vcenters.table import VCenter
from appliance.control import iscsi, support
from appliance.control.errors import ControlError
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.support import Piece

log = logging.getLogger(__name__)
NEVER = [
    "the SQLite database (arcvsa.db)",
    "the secrets key (secrets.key)",
    "the TLS private key (tls.key)",
    "the admin password hash (admin-password.argon2)",
]


@dataclass(frozen=True)
class Bundle:
    """The archive and the name to save it under."""

    filename: str
    data: bytes
    manifest: Manifest


@dataclass
class Secrets:
    """What layer 2 masks: plain secrets, and texts masked only in their base64 form."""

    plain: list[str]
    encoded: list[str]
    unreadable: int = 0


def _open(box: SecretBox, sealed: bytes | None, found: Secrets) -> str | None:
    if not sealed:
        return None
    try:
        return box.open(sealed)
    except RuntimeError:  # the key file changed: the value cannot be in any log written since
        found.unreadable += 1
        return None


def _file_text(path: Path) -> str | None:
    """A plain file's text, never a link's target: the bundle is made as root, and some of these files
    lie in the api's folder."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            return handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def known_secrets(db: Session, box: SecretBox, settings: Settings, saveconfig: str | None) -> Secrets:
    """Every secret this appliance knows: stored passwords opened, stored hashes and tokens as they are,
    the key files, and the CHAP secrets in LIO's saved config."""
    found = Secrets(plain=[], encoded=[])
    for vc in db.scalars(select(VCenter)):
        password = _open(box, vc.password_sealed, found)
        if password:
            found.plain.append(password)
            found.encoded.append(f"{vc.username}:{password}")  # HTTP Basic
    for row in db.scalars(select(Deployment)):
        try:
            found.plain += [v for v in deployments.secrets_of(row, box).values() if v]
        except RuntimeError:
            found.unreadable += 1
    config, sealed = notify.load(db)
    smtp = _open(box, sealed, found)
    if smtp:
        found.plain.append(smtp)
        user = config.smtp.username
        found.encoded += [f"\0{user}\0{smtp}", f"{user}\0{smtp}"]  # SMTP AUTH PLAIN
    found.plain += [u.password_hash for u in db.scalars(select(User))]
    for session in db.scalars(select(LoginSession)):
        found.plain += [session.token_sha256, session.csrf_token]
    found.plain += [t.token_sha256 for t in db.scalars(select(ScrapeToken))]
    if settings.admin_password is not None:
        found.plain.append(settings.admin_password.get_secret_value())
    for path in (settings.admin_password_hash_file, settings.key_file):
        if (text := _file_text(path)) is not None:
            found.plain.append(text.strip())
    _, key = tls.paths(settings.data_dir)
    if (pem := _file_text(key)) is not None:
        found.plain.append(pem.strip())
        # each base64 line of the key, so no part of it survives a partial copy
        found.plain += [ln.strip() for ln in pem.splitlines() if ln.strip() and not ln.startswith("-----")]
    found.plain += support.lio_secrets(saveconfig)
    return found


def _json_file(path: Path) -> str | None:
    text = _file_text(path)
    return text if text is None or text.endswith("\n") else text + "\n"


def _api_piece(name: str, what: str, make: Callable[[], str | None]) -> Piece:
    start = time.monotonic()
    try:
        text = make()
    except (ControlError, OSError, ValueError) as err:
        return Piece(
            name=name,
            source=f"api: {what}",
            status="failed",
            error_type=type(err).__name__,
            error=str(err),
            seconds=round(time.monotonic() - start, 3),
        )
    if text is None:
        return Piece(
            name=name,
            source=f"api: {what}",
            status="missing",
            error_type="FileNotFoundError",
            error="no such file",
        )
    return Piece(
        name=name, source=f"api: {what}", status="ok", text=text, seconds=round(time.monotonic() - start, 3)
    )


def _dump(value: Any) -> str:
    return json.dumps(value, indent=1, default=str) + "\n"


def api_pieces(db: Session, settings: Settings, hostname: str, published: Published | None) -> list[Piece]:
    """What the api itself knows: its version and build, its settings (no secret), the alerts now (as
    the appliance's state was last published with them, and the certificate's)."""
    arcvsa = {"version": VERSION, "hostname": hostname, "python": platform.python_version()}
    public = settings.model_dump(mode="json", exclude={"admin_password"})
    found = alerts.served(published, settings.data_dir, settings.metrics_interval_seconds)
    alert_list = _api_piece(
        "api/alerts.json", "GET /api/alerts", lambda: _dump([a.model_dump(mode="json") for a in found])
    )
    return [
        _api_piece("versions/arcvsa.json", "api.VERSION", lambda: _dump(arcvsa)),
        _api_piece(
            "versions/build-manifest.json",
            str(settings.build_manifest),
            lambda: _json_file(settings.build_manifest),
        ),
        _api_piece(
            "api/appliance.json",
            str(settings.appliance_config),
            lambda: _json_file(settings.appliance_config),
        ),
        _api_piece(
            "api/firstboot.json",
            str(settings.data_dir / "firstboot.json"),
            lambda: _json_file(settings.data_dir / "firstboot.json"),
        ),
        _api_piece("api/settings.json", "the api's settings (ARCVSA_*)", lambda: _dump(public)),
        alert_list,
    ]


def _tar(top: str, files: list[tuple[str, bytes]], when: dt.datetime) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, data in files:
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mode, info.mtime = len(data), 0o644, int(when.timestamp())
            info.uname = info.gname = "root"
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def build(
    gw: Gateway,
    files: Files,
    db: Session,
    box: SecretBox,
    settings: Settings,
    *,
    by: str,
    published: Published | None = None,
    now: dt.datetime | None = None,
) -> Bundle:
    """The bundle for this appliance now; never fails for a tool's, a file's or an alert's fault."""
    now = now or dt.datetime.now(dt.UTC)
    hostname = socket.gethostname()
    pieces = support.collect(gw, files, timeout=support.COMMAND_TIMEOUT)
    pieces += api_pieces(db, settings, hostname, published)
    saveconfig = next((p.text for p in pieces if p.source == f"file: {iscsi.SAVECONFIG}"), None)
    secrets = known_secrets(db, box, settings, saveconfig)
    masker = redact.Masker.of(secrets.plain, secrets.encoded)
    counts = redact.Counts()

    out: list[tuple[str, bytes]] = []
    items: list[ManifestItem] = []
    for piece in pieces:
        data = b""
        if piece.text is not None:
            text = masker.mask(redact.redact_document(piece.name, piece.text, counts), counts)
            data = text.encode("utf-8")
            out.append((piece.name, data))
        items.append(
            ManifestItem(
                name=piece.name,
                source=piece.source,
                status=piece.status,
                error_type=piece.error_type,
                error=None
                if piece.error is None
                else masker.mask(redact.redact_text(piece.error, counts), counts),
                exit_code=piece.exit_code,
                truncated=piece.truncated,
                size=len(data),
                seconds=piece.seconds,
            )
        )
    manifest = Manifest(
        product="arcvsa",
        version=VERSION,
        hostname=hostname,
        created_at=now,
        created_by=by,
        never_included=NEVER,
        items=items,
        redaction=Redaction(
            marker=redact.REDACTED,
            secrets_known=masker.known,
            secrets_too_short=masker.too_short,
            secrets_unreadable=secrets.unreadable,
            structural=counts.structural,
            by_value=counts.by_value,
        ),
    )
    # masked again as a whole: nothing in it should match, but it is the one file not masked piece by piece
    listing = masker.mask(manifest.model_dump_json(indent=1) + "\n", redact.Counts())
    out.insert(0, ("MANIFEST.json", listing.encode("utf-8")))
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    top = f"arcvsa-support-{appliance.file_hostname(hostname)}-{stamp}"
    failed = [i.name for i in items if i.status != "ok"]
    log.info(
        "support bundle %s for %s: %d items, %d not collected %s", top, by, len(items), len(failed), failed
    )
    return Bundle(filename=f"{top}.tar.gz", data=_tar(top, out, now), manifest=manifest)
