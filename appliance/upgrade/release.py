"""Releases on the appliance: ``/opt/arcvsa/releases/<version>/`` (a payload plus its RELEASE.json) and
``/opt/arcvsa/current``, a symlink to the one the units run. The venv's .pth names ``current/lib``, so
switching the link (one rename, atomic) switches the code; the previous release stays for a rollback.
"""

from __future__ import annotations

import os
import shutil
import tarfile
from pathlib import Path

from pydantic import ValidationError

from appliance.upgrade.bundle import Manifest
from appliance.upgrade.errors import Incompatible, Malformed, NotNewer

ROOT = Path("/opt/arcvsa")
RELEASE_FILE = "RELEASE.json"
# A payload has these and nothing else at its top.
PAYLOAD_TOP = {"lib", "web", "systemd", "README.md"}


def releases(root: Path) -> Path:
    return root / "releases"


def read(folder: Path) -> Manifest | None:
    """The release installed in ``folder``, or None when it has no readable RELEASE.json."""
    try:
        return Manifest.model_validate_json((folder / RELEASE_FILE).read_bytes())
    except (OSError, ValidationError):
        return None


def current(root: Path) -> Manifest | None:
    """The release the units run now."""
    return read(root / "current")


def check_fits(new: Manifest, running: Manifest) -> None:
    """Refuse a release that is not newer than the running one, or needs another base system."""
    if new.release < running.release or new.version == running.version:
        raise NotNewer(f"{new.version} (release {new.release}) is not newer than {running.version}")
    if new.base_key != running.base_key:
        raise Incompatible(
            f"{new.version} needs another base system than this image's: deploy its OVA and restore a "
            "configuration backup"
        )


def installed(root: Path) -> list[Manifest]:
    """Every complete release on the disk, newest first."""
    found = [read(folder) for folder in releases(root).glob("*") if not folder.name.startswith(".")]
    return sorted((m for m in found if m is not None), key=lambda m: m.release, reverse=True)


def install(root: Path, manifest: Manifest, payload: Path) -> Path:
    """Unpack ``payload`` as release ``manifest.version`` (replacing a half-installed one)."""
    final = releases(root) / manifest.version
    partial = releases(root) / f".{manifest.version}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        with tarfile.open(payload, "r:") as tar:
            tops = {Path(name).parts[0] for name in tar.getnames() if name not in ("", ".")}
            if not tops <= PAYLOAD_TOP or "lib" not in tops:
                raise Malformed(f"the payload's top folders are {sorted(tops)}, not {sorted(PAYLOAD_TOP)}")
            # The "data" filter refuses absolute paths, '..', devices and links out of the folder.
            tar.extractall(partial, filter="data")
        (partial / RELEASE_FILE).write_bytes(manifest.to_json())
        shutil.rmtree(final, ignore_errors=True)
        partial.rename(final)
    except (tarfile.TarError, OSError) as err:
        shutil.rmtree(partial, ignore_errors=True)
        raise Malformed(f"the payload could not be unpacked: {err}") from None
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return final


def readable(folder: Path) -> None:
    """Let every user read ``folder`` (a release): the api runs as its own user, and the upgrader writes
    with a umask of 0077, which tarfile keeps for folders and compileall for the byte code."""
    for parent, folders, files in os.walk(folder):
        for name in folders:
            os.chmod(Path(parent, name), 0o755)  # noqa: S103 (the code of a release is no secret)
        for name in files:
            path = Path(parent, name)
            if not path.is_symlink():
                os.chmod(path, path.stat().st_mode & 0o7777 | 0o444)
    os.chmod(folder, 0o755)  # noqa: S103


def switch(root: Path, version: str) -> None:
    """Point ``current`` at release ``version`` with one rename (never a moment without a link)."""
    target = releases(root) / version
    if read(target) is None:
        raise Malformed(f"release {version} is not installed")
    link = root / "current"
    tmp = root / ".current.new"
    tmp.unlink(missing_ok=True)
    os.symlink(Path("releases") / version, tmp)
    os.replace(tmp, link)
    fd = os.open(root, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def prune(root: Path, keep: set[str]) -> list[str]:
    """Remove releases not in ``keep`` (and leftovers of interrupted installs); returns their names."""
    removed = []
    for folder in releases(root).iterdir():
        if folder.name not in keep:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder.name)
    return sorted(removed)
