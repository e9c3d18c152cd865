"""Config files the control package owns: written only when changed, atomically and durably.

A file is written in a staging folder, fsynced, renamed over the target and the target's folder fsynced:
a power cut leaves the old file or the new one. The staging folder matters because some readers take a
whole folder (ganesha's ``%dir`` include reads every file in it, hidden ones too): a temporary file left
there by a cut would be served as configuration nobody acknowledged.

``root`` lets tests (and the image build) write under another directory than /.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Protocol

# Root's own (arcvsa-metrics.service's StateDirectory): the api's folder, /var/lib/arcvsa, is not, and a
# file swapped in a staging folder the api may write would be renamed into /etc by root.
STAGING = "/var/lib/arcvsa-control/staging"


def folder_owner(folder: Path) -> tuple[int, int] | None:
    """The uid and gid root's processes give what they make in ``folder``: the folder's own, when this
    process is root and the folder is not root's (the api's folder, /var/lib/arcvsa); else None, where
    there is nothing to give (any other process, a developer's machine)."""
    if os.geteuid() != 0:
        return None
    found = os.stat(folder)
    owner = (found.st_uid, found.st_gid)
    return None if owner == (0, 0) else owner


def owned_like_folder(file: int | Path, folder: Path) -> None:
    """Give a file root has just made in ``folder`` the folder's owner and group (folder_owner).

    Root's services (the control service, the upgrader) write into the api's folder (/var/lib/arcvsa),
    whose files must stay the api's to read and replace, as SQLite gives its journals the database's
    owner.
    """
    owner = folder_owner(folder)
    if owner is None:
        return
    if isinstance(file, int):
        os.fchown(file, *owner)
    else:
        os.chown(file, *owner, follow_symlinks=False)


def write_temp(directory: Path, data: bytes, mode: int, prefix: str = ".arcvsa-") -> Path:
    """A new file in ``directory`` holding ``data``, fsynced, with ``mode`` (0600 until then) and the
    folder's owner (owned_like_folder)."""
    fd, name = tempfile.mkstemp(dir=directory, prefix=prefix, suffix=".new")
    try:
        owned_like_folder(fd, directory)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(name, mode)
    except BaseException:
        os.unlink(name)
        raise
    return Path(name)


def _folders(folder: Path) -> None:
    """``folder`` and its missing parents, each 0755 whatever the umask: a configuration folder in /etc
    (/etc/exports.d) is read by the api's user and by daemons that drop their privileges, and the
    control service runs with umask 0077."""
    missing = []
    while not folder.is_dir():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        made.mkdir(exist_ok=True)
        made.chmod(0o755)


def fsync_dir(directory: Path) -> None:
    """Make the renames in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Files(Protocol):
    """What the control package needs of a file system."""

    def read(self, path: str) -> str | None: ...

    def write(self, path: str, text: str, mode: int = 0o644) -> bool: ...

    def poke(self, path: str, text: str) -> None: ...

    def remove(self, path: str) -> bool: ...

    def listdir(self, path: str) -> list[str]: ...


class LocalFiles:
    """Files on this machine (below ``root``)."""

    def __init__(self, root: Path | str = "/") -> None:
        self.root = Path(root)

    def _at(self, path: str) -> Path:
        if not path.startswith("/") or ".." in Path(path).parts:
            raise ValueError(f"need an absolute path without '..': {path!r}")
        return self.root / path.lstrip("/")

    def read(self, path: str) -> str | None:
        """The file's text, or None when it does not exist."""
        try:
            return self._at(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def write(self, path: str, text: str, mode: int = 0o644) -> bool:
        """Write atomically and durably unless the content is already there; True when it changed."""
        if self.read(path) == text:
            return False
        target = self._at(path)
        _folders(target.parent)
        tmp = write_temp(self._staging(target.parent), text.encode("utf-8"), mode, f".{target.name}.")
        try:
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        fsync_dir(target.parent)
        return True

    def _staging(self, folder: Path) -> Path:
        """The staging folder when it shares ``folder``'s file system (a rename cannot cross one)."""
        staging = self._at(STAGING)
        staging.mkdir(mode=0o700, parents=True, exist_ok=True)
        return staging if staging.stat().st_dev == folder.stat().st_dev else folder

    def poke(self, path: str, text: str) -> None:
        """Write in place, no temp file: sysfs and procfs take a value only by a write to the file itself."""
        with self._at(path).open("w", encoding="utf-8") as handle:
            handle.write(text)

    def remove(self, path: str) -> bool:
        """Delete the file; True when it existed."""
        target = self._at(path)
        try:
            target.unlink()
        except FileNotFoundError:
            return False
        fsync_dir(target.parent)
        return True

    def listdir(self, path: str) -> list[str]:
        """File names in a folder (empty when it does not exist)."""
        folder = self._at(path)
        return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
