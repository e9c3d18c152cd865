"""The first-boot run: once only, all or nothing, and the guestinfo copy blanked afterwards.

Order matters: the marker is checked before anything is read, every file is rendered before any
is written (plan.make_plan), the marker is written last, so an interrupted run is simply run again
on the next boot.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from appliance.control import sshd
from appliance.firstboot.environment import parse_environment
from appliance.firstboot.files import FileChange, remove, rooted, write_atomic
from appliance.firstboot.model import validate_properties
from appliance.firstboot.plan import make_plan
from appliance.firstboot.runner import Runner
from appliance.firstboot.source import DEFAULT_CDROMS, blank_guestinfo, read_environment
from process import ProcessError

MARKER = PurePosixPath("/var/lib/arcvsa/firstboot.done")
HOSTNAME_TIMEOUT = 15.0
SSH_OFF = PurePosixPath(sshd.OFF_FILE)


@dataclass(frozen=True)
class Outcome:
    """What a first-boot run did."""

    status: Literal["applied", "skipped"]
    transport: str | None = None
    origin: str | None = None
    changed: tuple[str, ...] = ()
    warnings: tuple[str, ...] = field(default_factory=tuple)


def already_done(root: Path) -> bool:
    """Whether the once-only marker is there."""
    return rooted(root, MARKER).exists()


def run_firstboot(
    root: Path,
    runner: Runner,
    *,
    cdroms: Sequence[Path] = DEFAULT_CDROMS,
    live: bool = False,
    now: dt.datetime | None = None,
) -> Outcome:
    """Apply the OVF environment once. Raises a FirstBootError subclass; then nothing was written.

    `live` also sets the running kernel's host name (the unit runs before the network is up, so
    networkd, chrony, sshd and the api read the new files when they start).
    """
    if already_done(root):
        return Outcome(status="skipped")
    now = now or dt.datetime.now(dt.UTC)
    doc = read_environment(runner, cdroms)
    warnings: list[str] = []
    try:
        env = parse_environment(doc.data)
        props = validate_properties(env.properties)
        plan = make_plan(props, root=root, runner=runner, now=now)
    finally:
        if doc.transport == "guestinfo":
            try:
                blank_guestinfo(runner)
            except (ProcessError, OSError) as exc:
                warnings.append(f"could not blank guestinfo.ovfEnv: {exc}")
    changed = [str(change.path) for change in plan.files if write_atomic(root, change)]
    # SSH on: its switch file goes (appliance.control.sshd). ssh.service is in this boot's transaction,
    # ordered after this unit, and tests the file only when its turn comes: no systemctl call here.
    if plan.ssh and remove(root, SSH_OFF):
        changed.append(str(SSH_OFF))
    if live:
        runner(["hostname", plan.hostname], timeout=HOSTNAME_TIMEOUT)
    marker = {"finished_at": now.isoformat(), "transport": doc.transport, "origin": doc.origin}
    write_atomic(root, FileChange(MARKER, (json.dumps(marker, sort_keys=True) + "\n").encode()))
    return Outcome(
        status="applied",
        transport=doc.transport,
        origin=doc.origin,
        changed=tuple(changed),
        warnings=tuple([*plan.warnings, *warnings]),
    )
