"""nfs-ganesha backend (FSAL_VFS): one file per export under exports.d, changes applied over DBus.

The main config pins the ports (the lab forwards them; firewalls name them), turns UDP off (broken in
6.5) and includes exports.d with ``%dir``, so a restart reads the same exports DBus added live.

After every start ganesha refuses creates and truncates (NFS3ERR_JUKEBOX; OPEN in v4) for its grace
period, 90 s by default: no VM can power on (swap file) on any datastore meanwhile. Leases of 30 s and a
grace of 40 s (a lease and some margin, so every v4.1 client can reclaim) halve that stall. The image
ships this config, so the first export is added live and needs no restart (packer/scripts/20-units.sh).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from appliance.control import dbus
from appliance.control.errors import AlreadyExists, BadOutput, NotFound, ServiceDown
from appliance.control.files import Files
from appliance.control.gateway import Gateway, Rules
from appliance.control.nfs.model import Export, Protocol, check_set

MAIN_CONF = "/etc/ganesha/ganesha.conf"
EXPORTS_DIR = "/etc/ganesha/exports.d"
PREFIX = "arcvsa-"
DEST = "org.ganesha.nfsd"
EXPORT_MGR = "/org/ganesha/nfsd/ExportMgr"
RULES: Rules = (
    (r"already active|already exists", AlreadyExists),
    # The bus's ServiceUnknown messages (dbus-daemon's, dbus-broker's): nothing owns the name, i.e.
    # ganesha is not running. busctl prints the message, not the error's name.
    (r"was not provided by any \.service|The name is not activatable", ServiceDown),
    (r"export id not found|No export with id", NotFound),
)
# systemd calls the forking daemon started before it owns its bus name (seconds later on a busy box); a
# DBus call meanwhile answers ServiceUnknown. Its starts are waited on for this long at most.
BUS_WAIT = 60.0
HEADER = "# Written by arcvsa (appliance.control.nfs.ganesha); changes here are overwritten.\n"
# At boot ganesha must start after the datasets are mounted, or it exports empty mount points.
DROP_IN = "/etc/systemd/system/nfs-ganesha.service.d/arcvsa.conf"
DROP_IN_TEXT = f"{HEADER}[Unit]\nAfter=zfs-mount.service\nWants=zfs-mount.service\n"


def render_main() -> str:
    """The main ganesha.conf. No NLM and no rquota: ESXi locks NFS 3 datastores with its own lock files
    and never asks for quotas, and a service nobody calls is only a port to defend (and NLM would need
    rpc.statd on a port of its own)."""
    return (
        HEADER
        + """NFS_CORE_PARAM {
    Protocols = 3, 4;
    NFS_Port = 2049;
    MNT_Port = 20048;
    Enable_NLM = false;
    Enable_RQUOTA = false;
    Enable_UDP = false;
}
NFSV4 {
    Minor_Versions = 1, 2;
    Only_Numeric_Owners = true;
    Lease_Lifetime = 30;
    Grace_Period = 40;
}
EXPORT_DEFAULTS {
    Access_Type = None;
    Squash = Root_Squash;
}
"""
        + f"%dir {EXPORTS_DIR}\n"
    )


def render_export(export: Export) -> str:
    """One EXPORT block: nothing for anyone, read-write without root squash for the listed hosts."""
    protocols = "3" if export.protocol is Protocol.v3 else "4"
    clients = ", ".join(export.clients)
    return f"""{HEADER}EXPORT {{
    Export_Id = {export.export_id};
    Path = "{export.path}";
    Pseudo = "{export.pseudo}";
    Protocols = {protocols};
    Transports = TCP;
    SecType = sys;
    Access_Type = None;
    Squash = Root_Squash;
    FSAL {{
        Name = VFS;
    }}
    CLIENT {{
        Clients = {clients};
        Access_Type = RW;
        Squash = No_Root_Squash;
    }}
}}
"""


def ensure_service(gw: Gateway, files: Files) -> bool:
    """Main config and boot ordering in place; True when ganesha was restarted for them.

    Only a main config that is not arcvsa's (the package's: other ports, no exports.d) costs a restart.
    One an older release wrote (an in-place upgrade) is replaced and read at ganesha's next start: a
    restart would stall every datastore (v3 writes for seconds, creates for the grace period), and an
    upgrade keeps NFS serving. The boot ordering needs a daemon-reload only.
    """
    if files.write(DROP_IN, DROP_IN_TEXT):
        gw.run(["systemctl", "daemon-reload"])
    gw.run(["mkdir", "-p", EXPORTS_DIR])
    before = files.read(MAIN_CONF)
    restart = files.write(MAIN_CONF, render_main()) and not (before or "").startswith(HEADER)
    if restart:
        gw.run(["systemctl", "restart", "nfs-ganesha"], timeout=120)
        wait_on_bus(gw)
    return restart


def on_bus(gw: Gateway) -> bool:
    """Whether ganesha owns its bus name now (asked afresh: it changes as ganesha starts or stops)."""
    argv = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner")
    reply = dbus.call(gw, *argv, "s", DEST)
    if reply not in ([True], [False]):
        raise BadOutput(f"NameHasOwner {DEST}: unexpected answer {reply}")
    return bool(reply[0])


def wait_on_bus(
    gw: Gateway,
    timeout: float = BUS_WAIT,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Return once a started ganesha owns its bus name; ServiceDown when it has not after ``timeout``."""
    deadline = clock() + timeout
    while not on_bus(gw):
        if clock() >= deadline:
            raise ServiceDown(
                f"nfs-ganesha started but did not take {DEST} on the system bus in {timeout:.0f} s"
            )
        sleep(0.25)


def export_file(export_id: int) -> str:
    """Where an export's file lives."""
    return f"{EXPORTS_DIR}/{PREFIX}{export_id}.conf"


def _manage(gw: Gateway, method: str, signature: str = "", *args: str | int) -> list[Any]:
    """Call ganesha's export manager object (``method``: interface.Member), its refusals typed."""
    return dbus.call(gw, DEST, EXPORT_MGR, method, signature, *args, rules=RULES)


class LiveExport(BaseModel):
    """An export ganesha serves now."""

    export_id: int = Field(description="Export_Id")
    path: str = Field(description="exported path")


def live(gw: Gateway) -> list[LiveExport]:
    """What ganesha exports now (ShowExports), without its pseudo root (id 0)."""
    reply = _manage(gw, "org.ganesha.nfsd.exportmgr.ShowExports")
    rows = reply[1] if len(reply) > 1 and isinstance(reply[1], list) else []
    return [LiveExport(export_id=row[0], path=row[1]) for row in rows if row[0] != 0]


class Changes(BaseModel):
    """What a reconcile did."""

    added: list[int] = Field(default_factory=list, description="export ids added")
    updated: list[int] = Field(default_factory=list, description="export ids whose file changed")
    removed: list[int] = Field(default_factory=list, description="export ids removed")
    restart_needed: bool = Field(False, description="the main config changed: core settings apply on restart")

    @property
    def changed(self) -> bool:
        """True when anything was done."""
        return bool(self.added or self.updated or self.removed)


def _managed_ids(names: list[str]) -> set[int]:
    ids = set()
    for name in names:
        stem = name.removeprefix(PREFIX).removesuffix(".conf")
        if name.startswith(PREFIX) and name.endswith(".conf") and stem.isdigit():
            ids.add(int(stem))
    return ids


def _clear_leftovers(files: Files, names: list[str]) -> set[int]:
    """Remove temporary export files an older release left in exports.d; the export ids they held.

    ganesha's ``%dir`` include reads them (hidden or not) before the export's own file, so after a cut
    during a write it serves the leftover's EXPORT block and refuses the stored one as a duplicate.
    """
    held = set()
    for name in names:
        if not name.startswith(f".{PREFIX}"):
            continue
        files.remove(f"{EXPORTS_DIR}/{name}")
        stem = name.removeprefix(f".{PREFIX}").partition(".conf.")[0]
        if stem.isdigit():
            held.add(int(stem))
    return held


def reconcile(gw: Gateway, files: Files, desired: list[Export], *, config: bool = True) -> Changes:
    """Make ganesha export exactly ``desired``: remove stale, update changed, add missing; no restart.
    ``config``: write the main config too (not on a timer: see backends.converge)."""
    check_set(desired)
    changes = Changes(restart_needed=config and files.write(MAIN_CONF, render_main()))
    names = files.listdir(EXPORTS_DIR)
    resend = _clear_leftovers(files, names)
    running = {e.export_id for e in live(gw)}
    wanted = {e.export_id: e for e in desired}
    for export_id in sorted((_managed_ids(names) | resend) - set(wanted)):
        if export_id in running:
            _manage(gw, "org.ganesha.nfsd.exportmgr.RemoveExport", "q", export_id)
        files.remove(export_file(export_id))
        changes.removed.append(export_id)
    for export_id, export in sorted(wanted.items()):
        path = export_file(export_id)
        written = files.write(path, render_export(export))
        selector = f"EXPORT(Export_Id={export_id})"
        if export_id not in running:
            _manage(gw, "org.ganesha.nfsd.exportmgr.AddExport", "ss", path, selector)
            changes.added.append(export_id)
        elif written or export_id in resend:
            _manage(gw, "org.ganesha.nfsd.exportmgr.UpdateExport", "ss", path, selector)
            changes.updated.append(export_id)
    return changes


class ExportIO(BaseModel):
    """Per-export NFS counters since ganesha started."""

    export_id: int = Field(description="Export_Id")
    protocol: str = Field(description="NFSv3 or NFSv41")
    read_ops: int = Field(description="read operations")
    read_bytes: int = Field(description="bytes read by clients")
    write_ops: int = Field(description="write operations")
    write_bytes: int = Field(description="bytes written by clients")
    latency_ns: int = Field(0, description="time ganesha spent on those reads and writes, ns (summed)")


def io_stats(gw: Gateway, export_id: int, protocol: Protocol) -> ExportIO:
    """Read/write counters of one export (zero until the first I/O)."""
    method = "GetNFSv3IO" if protocol is Protocol.v3 else "GetNFSv41IO"
    member = f"org.ganesha.nfsd.exportstats.{method}"
    reply = _manage(gw, member, "q", export_id)
    label = "NFSv3" if protocol is Protocol.v3 else "NFSv41"
    if not reply or reply[0] is not True:
        return ExportIO(
            export_id=export_id, protocol=label, read_ops=0, read_bytes=0, write_ops=0, write_bytes=0
        )
    # Reply (ganesha 6.5): ok, message, timestamp, then per direction (requested bytes, transferred
    # bytes, operations, errors, total latency ns, queue wait ns). "requested" stays 0 for reads here.
    read, write = reply[3], reply[4]
    return ExportIO(
        export_id=export_id,
        protocol=label,
        read_ops=int(read[2]),
        read_bytes=int(read[1]),
        write_ops=int(write[2]),
        write_bytes=int(write[1]),
        latency_ns=int(read[4]) + int(write[4]),
    )
