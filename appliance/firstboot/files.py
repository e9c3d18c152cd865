"""Config files as values, written atomically under a root directory.

Every path in a plan is the path inside the appliance (/etc/hostname); `root` maps it onto the
disk (/ on the appliance, a temp dir in tests), so the same code runs unprivileged in tests.
A write goes to a temporary file in the same directory, is fsynced, then renamed over the target:
a power cut leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from appliance.control.files import fsync_dir, owned_like_folder


@dataclass(frozen=True)
class FileChange:
    """One file first boot wants in place.

    `owner` (uid, gid) is for a file in an account's home: sshd opens authorized_keys as the account,
    so a 0600 key file (or 0700 directory) that root owns would lock the account's key out. With
    `parent_mode` the directory gets the owner too. None keeps an existing file's owner.
    """

    path: PurePosixPath
    content: bytes
    mode: int = 0o644
    only_if_absent: bool = False
    parent_mode: int | None = None
    owner: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if not self.path.is_absolute() or ".." in self.path.parts:
            raise ValueError(f"{self.path}: plan paths must be absolute and without '..'")


def rooted(root: Path, path: PurePosixPath) -> Path:
    """Where an appliance path lives under `root`."""
    return root.joinpath(*path.parts[1:])


def read_text(root: Path, path: PurePosixPath) -> str | None:
    """A file's text under root, or None when it does not exist."""
    try:
        return rooted(root, path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def write_atomic(root: Path, change: FileChange) -> bool:
    """Put `change` in place; False when nothing had to be written (same content, or kept as is)."""
    target = rooted(root, change.path)
    previous = target.stat() if target.exists() else None
    if previous is not None:
        if change.only_if_absent:
            return False
        same_owner = change.owner is None or (previous.st_uid, previous.st_gid) == change.owner
        if (
            target.read_bytes() == change.content
            and (previous.st_mode & 0o7777) == change.mode
            and same_owner
        ):
            return False
    target.parent.mkdir(parents=True, exist_ok=True)
    if change.parent_mode is not None:
        target.parent.chmod(change.parent_mode)
        if change.owner is not None:
            os.chown(target.parent, *change.owner)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(change.content)
            fh.flush()
            if change.owner is not None:
                os.fchown(fh.fileno(), *change.owner)
            os.fchmod(fh.fileno(), change.mode)
            if change.owner is None and previous is not None and os.geteuid() == 0:
                # keep the owner and group (/etc/shadow belongs to group shadow)
                os.fchown(fh.fileno(), previous.st_uid, previous.st_gid)
            elif change.owner is None and previous is None:
                owned_like_folder(fh.fileno(), target.parent)  # the api's folder: the api's files
            os.fsync(fh.fileno())
        tmp.replace(target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(target.parent)
    return True


def remove(root: Path, path: PurePosixPath) -> bool:
    """Delete the file, durably; False when it was not there."""
    target = rooted(root, path)
    try:
        target.unlink()
    except FileNotFoundError:
        return False
    fsync_dir(target.parent)
    return True
