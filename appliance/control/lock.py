"""An exclusive lock shared by threads and processes alike (the api's requests, the poller, the
reconcilers): one flock per holder.

flock locks an open file, not a process, so each holder opens the lock file anew: two threads of one
process wait for each other as two processes do. The kernel drops the lock with the holder's file, so a
holder that dies (a power cut, a kill) never leaves it taken.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from appliance.control.files import owned_like_folder


@contextlib.contextmanager
def held(path: Path) -> Iterator[None]:
    """Hold the lock named by ``path`` (created, 0600, with its directory and its directory's owner)
    until the block ends."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = _open(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _open(path: Path) -> int:
    """The lock file, given the folder's owner only by the open that makes it: a lock is taken on every
    change, and the file is made once."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return os.open(path, os.O_RDWR | os.O_NOFOLLOW)
    try:
        owned_like_folder(fd, path.parent)
    except BaseException:
        os.close(fd)
        raise
    return fd
