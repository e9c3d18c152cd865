"""Upgrades from the api's side: receive and verify a bundle, report, start the upgrader.

The upgrader stops and restarts the api, so it cannot run inside it: ``apply`` starts it as a
transient systemd unit (``arcvsa-upgrade``) running the current release's code, and the api reads its
``state.json`` afterwards (the new api, when it worked).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from anyio import to_thread
from pydantic import ValidationError

from api.settings import Settings
from api.upgrades.schemas import RUNNING, Release, Run, UpgradeStatus
from appliance.control.gateway import Gateway
from appliance.upgrade import bundle, release, state
from appliance.upgrade.errors import Busy, Unsigned

log = logging.getLogger("arcvsa.upgrades")

UNIT = "arcvsa-upgrade"
MAX_BUNDLE = bundle.MAX_PAYLOAD + 1024 * 1024
# A run whose state has not moved for this long is taken as dead (its unit was killed, the VM reset).
STALE_SECONDS = 3600


def _release(manifest: bundle.Manifest | None) -> Release | None:
    return Release.model_validate(manifest.model_dump()) if manifest is not None else None


def _staged(settings: Settings) -> Path:
    return settings.upgrade_dir / "staged"


def _state_file(settings: Settings) -> Path:
    return settings.upgrade_dir / state.FILE


def last_run(settings: Settings) -> Run | None:
    """The upgrader's state.json, or None when there is none (or it is unreadable)."""
    try:
        run = Run.model_validate_json(_state_file(settings).read_bytes())
    except (OSError, ValidationError):
        return None
    if run.state not in RUNNING or run.updated is None:
        return run
    age = dt.datetime.now(dt.UTC) - dt.datetime.fromisoformat(run.updated)
    return run.model_copy(update={"in_progress": age.total_seconds() < STALE_SECONDS})


def _running(settings: Settings) -> Run | None:
    run = last_run(settings)
    return run if run is not None and run.in_progress else None


def _save_run(settings: Settings, run: Run) -> None:
    """state.json as the upgrader writes it (the derived in_progress is not stored)."""
    state.save(_state_file(settings), run.model_dump(exclude={"in_progress"}))


def _staged_manifest(settings: Settings) -> bundle.Manifest | None:
    """The staged bundle's manifest (verified at upload; the upgrader verifies it again)."""
    try:
        return bundle.Manifest.model_validate_json((_staged(settings) / "manifest.json").read_bytes())
    except (OSError, ValidationError):
        return None


def status(settings: Settings) -> UpgradeStatus:
    root = settings.install_root
    return UpgradeStatus(
        current=_release(release.current(root)),
        installed=[r for m in release.installed(root) if (r := _release(m)) is not None],
        staged=_release(_staged_manifest(settings)),
        last=last_run(settings),
    )


def _check_fits(settings: Settings, manifest: bundle.Manifest) -> None:
    """Refuse at upload what the upgrader would refuse (it checks again where it runs)."""
    current = release.current(settings.install_root)
    if current is not None:  # None: not an appliance
        release.check_fits(manifest, current)


async def receive(settings: Settings, body: AsyncIterator[bytes]) -> Release:
    """Store an uploaded bundle, verify it and stage it in place of any staged one."""
    if (running := _running(settings)) is not None:
        raise Busy(f"an upgrade to {running.to_version} is running")
    try:
        key = bundle.load_public_key(settings.upgrade_key_file.read_text(encoding="ascii"))
    except FileNotFoundError:
        raise Unsigned(f"this appliance has no upgrade key ({settings.upgrade_key_file})") from None
    work = settings.upgrade_dir
    work.mkdir(mode=0o700, parents=True, exist_ok=True)
    incoming = work / "incoming.bundle"
    try:
        await save_upload(body, incoming)
        staged = _staged(settings)
        bundle.unstage(staged)

        def check() -> bundle.Manifest:
            with incoming.open("rb") as source:
                manifest = bundle.verify(source, key, staged)
            try:
                _check_fits(settings, manifest)
            except Exception:
                bundle.unstage(staged)
                raise
            return manifest

        manifest = await to_thread.run_sync(check)
    finally:
        incoming.unlink(missing_ok=True)
    log.info("upgrade bundle %s (release %d) verified and staged", manifest.version, manifest.release)
    staged_release = _release(manifest)
    assert staged_release is not None
    return staged_release


async def save_upload(body: AsyncIterator[bytes], path: Path) -> None:
    """Write an upload to ``path`` as it comes, refused past MAX_BUNDLE bytes."""
    size = 0
    with path.open("wb") as sink:
        async for chunk in body:
            size += len(chunk)
            if size > MAX_BUNDLE:
                raise bundle.Malformed(f"the upload is larger than {MAX_BUNDLE} bytes")
            sink.write(chunk)


def discard(settings: Settings) -> None:
    if _running(settings) is not None:
        raise Busy("an upgrade is running")
    bundle.unstage(_staged(settings))


def apply(gw: Gateway, settings: Settings, by: str) -> Run:
    """Start the upgrader on the staged bundle; the api answers before it is stopped."""
    if (running := _running(settings)) is not None:
        raise Busy(f"an upgrade to {running.to_version} is running")
    staged = _staged_manifest(settings)
    if staged is None:
        raise Busy("no upgrade bundle is staged: upload one first")
    current = release.current(settings.install_root)
    if current is None:
        raise Busy(f"{settings.install_root} holds no release: this is not an appliance")
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    run = Run(
        state="queued", from_version=current.version, to_version=staged.version, updated=now,
        steps=[{"at": now, "state": "queued"}], in_progress=True,
    )  # fmt: skip
    _save_run(settings, run)
    lib = settings.install_root / "releases" / current.version / "lib"
    python = settings.install_root / "venv" / "bin" / "python"
    # The upgrader runs the code of the release that runs now, whatever `current` points at later.
    try:
        gw.run(
            ["systemd-run", f"--unit={UNIT}", "--collect", "--quiet", f"--setenv=PYTHONPATH={lib}",
             "--property=UMask=0077", str(python), "-m", "appliance.upgrade", "apply"],
            timeout=60,
        )  # fmt: skip
    except Exception as err:
        failed = run.model_copy(update={"state": "failed", "error": f"the upgrader did not start: {err}"})
        _save_run(settings, failed)
        raise
    log.info("upgrade from %s to %s started by %s", current.version, staged.version, by)
    return run
