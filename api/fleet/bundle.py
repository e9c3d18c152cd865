"""The upgrade bundle a rolling upgrade gives every appliance of a deployment, kept on the manager.

It is checked here as an appliance checks one (signature against the build's upgrade key, payload hash)
before any appliance is asked to take it, then kept as uploaded: each appliance checks it again, and
that it fits its base system, when the roll stages it there (provisioning.rolling).
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

from anyio import to_thread
from pydantic import ValidationError

from api.errors import Conflict
from api.settings import Settings
from api.upgrades.schemas import Release
from api.upgrades.service import save_upload
from appliance.upgrade import bundle
from appliance.upgrade.errors import Unsigned


def _folder(settings: Settings) -> Path:
    return settings.data_dir / "fleet-upgrade"


def path_of(settings: Settings) -> Path:
    return _folder(settings) / "bundle.upgrade"


def _manifest_file(settings: Settings) -> Path:
    return _folder(settings) / "manifest.json"


def staged(settings: Settings) -> bundle.Manifest | None:
    """The kept bundle's manifest, if one is kept."""
    try:
        manifest = bundle.Manifest.model_validate_json(_manifest_file(settings).read_bytes())
    except (OSError, ValidationError):
        return None
    return manifest if path_of(settings).is_file() else None


async def receive(settings: Settings, body: AsyncIterator[bytes], busy: bool) -> Release:
    """Keep an uploaded bundle in place of the one kept, once its signature and payload are checked."""
    if busy:
        raise Conflict("a rolling upgrade is running: the bundle it uses cannot change under it")
    try:
        key = bundle.load_public_key(settings.upgrade_key_file.read_text(encoding="ascii"))
    except FileNotFoundError:
        raise Unsigned(f"this manager has no upgrade key ({settings.upgrade_key_file})") from None
    folder = _folder(settings)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    incoming, check = folder / "incoming.upgrade", folder / "check"
    try:
        await save_upload(body, incoming)

        def verify() -> bundle.Manifest:
            with incoming.open("rb") as source:
                return bundle.verify(source, key, check)

        manifest = await to_thread.run_sync(verify)
        _manifest_file(settings).unlink(missing_ok=True)  # never a manifest beside another bundle
        incoming.replace(path_of(settings))
        (check / "manifest.json").replace(_manifest_file(settings))
    finally:
        incoming.unlink(missing_ok=True)
        shutil.rmtree(check, ignore_errors=True)
    return Release.model_validate(manifest.model_dump())


def discard(settings: Settings, busy: bool) -> None:
    if busy:
        raise Conflict("a rolling upgrade is running: the bundle it uses cannot change under it")
    _manifest_file(settings).unlink(missing_ok=True)
    path_of(settings).unlink(missing_ok=True)
