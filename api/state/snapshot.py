"""One file holds the appliance's observed state and the alerts derived from it; readers never run a tool.

The state poller (api.metrics.sampler's service) rewrites it every pass, and the api rewrites the parts
a change touched before it answers the change: a read after a change never shows the change's past.
Writers hold one lock from their first read of the tools to the rename, so a pass that started before a
change can never publish after it. The file is replaced whole (write, then rename), so a reader sees
the old snapshot or the new one, never half of one; readers parse it once per change of the file.

A snapshot of an earlier boot says nothing true of this one (pools not imported yet, services not
started): it is not served, and the first pass after boot publishes anew.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from api.alerts.schemas import Alert
from api.errors import StateNotPublished
from appliance.control import lock
from appliance.control.files import owned_like_folder
from appliance.control.observed import Observed
from appliance.control.reconciled import Reconciled

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
VERSION = 1


class Published(BaseModel):
    """The snapshot as written: when, in which boot, what was observed and the alerts it raises."""

    version: int = Field(VERSION, description="the snapshot's format")
    boot_id: str = Field(description="the kernel's boot id when it was observed")
    taken_at: datetime = Field(description="when the newest part was observed")
    polled_at: datetime | None = Field(
        None, description="when the poller last observed every part (a change refreshes only its own)"
    )
    observed: Observed = Field(description="the observed state, part by part")
    alerts: list[Alert] = Field(default_factory=list, description="alerts of the observed state and samples")
    reconciled: list[Reconciled] = Field(
        default_factory=list, description="the last reconcile of each noun (api.state.reconcile)"
    )


@functools.cache  # a process lives in one boot
def boot_id() -> str:
    """This boot's id ("" where the kernel has none to tell)."""
    try:
        return BOOT_ID.read_text(encoding="ascii").strip()
    except OSError:
        return ""


class Store:
    """The snapshot file at ``path``: read (parsed once per version of the file), locked, replaced."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._guard = threading.Lock()
        self._seen: tuple[int, int, int] | None = None
        self._parsed: Published | None = None

    def read(self) -> Published | None:
        """The snapshot of this boot; None before the first pass has published one."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return None
        key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        with self._guard:
            if key != self._seen:
                self._parsed, self._seen = self._load(), key
            found = self._parsed
        return found if found is not None and found.boot_id == boot_id() else None

    def _load(self) -> Published | None:
        try:
            found = Published.model_validate_json(self.path.read_bytes())
        except (
            OSError,
            ValidationError,
        ):  # torn by a power cut, or another version's: the next pass rewrites it
            return None
        return found if found.version == VERSION else None

    def writing(self) -> contextlib.AbstractContextManager[None]:
        """Hold the writers' lock (threads and processes alike, appliance.control.lock)."""
        return lock.held(self.path.with_suffix(".lock"))

    def write(self, published: Published) -> None:
        """Replace the snapshot (inside :meth:`writing`)."""
        temp = self.path.with_name(f".{self.path.name}.{os.getpid()}.{threading.get_ident()}")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out:
            owned_like_folder(out.fileno(), temp.parent)  # written by root, read by the api
            out.write(published.model_dump_json().encode())
        os.replace(temp, self.path)


def required(found: Published | None) -> Published:
    """``found``, or the typed refusal of a read that came before the state was first published."""
    if found is None:
        raise StateNotPublished(
            "the appliance is reading its storage state for the first time since it started; "
            "try again in a few seconds"
        )
    return found


def now() -> datetime:
    return datetime.now(UTC)
