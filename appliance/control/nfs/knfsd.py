"""Kernel NFS server backend: one file per export in /etc/exports.d, applied with ``exportfs -ra``.

knfsd picks NFS versions for the whole server (nfs.conf), not per export: the versions in use are
turned on there, and check_set still keeps each datastore on one protocol per host.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from appliance.control.errors import BadOutput
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.nfs.ganesha import Changes
from appliance.control.nfs.model import Export, Protocol, check_set

EXPORTS_DIR = "/etc/exports.d"
NFS_CONF = "/etc/nfs.conf.d/arcvsa.conf"
PREFIX = "arcvsa-"
HEADER = "# Written by arcvsa (appliance.control.nfs.knfsd); changes here are overwritten.\n"


def export_file(export_id: int) -> str:
    """Where an export's line lives."""
    return f"{EXPORTS_DIR}/{PREFIX}{export_id}.exports"


def render_export(export: Export) -> str:
    """One exports(5) line: read-write, no root squash, synchronous, for the listed hosts only."""
    insecure = ",insecure" if export.insecure_ports else ""
    options = f"rw,sync,no_root_squash,no_subtree_check,sec=sys,fsid={export.export_id}{insecure}"
    hosts = " ".join(f"{client}({options})" for client in export.clients)
    return f'{HEADER}"{export.path}" {hosts}\n'


def render_nfs_conf(exports: list[Export]) -> str:
    """nfs.conf fragment: the versions in use on, NFSv2 and 4.0 off (ESXi mounts 3 or 4.1); ports pinned
    to ganesha's, so firewalls and the lab's forwards serve either backend."""
    used = {e.protocol for e in exports}
    v3 = "y" if Protocol.v3 in used else "n"
    v4 = "y" if Protocol.v41 in used else "n"
    return f"{HEADER}[nfsd]\nvers2=n\nvers3={v3}\nvers4={v4}\nvers4.0=n\nvers4.1={v4}\nvers4.2=n\n[mountd]\nport=20048\n[lockd]\nport=32803\nudp-port=32803\n"


def reconcile(gw: Gateway, files: Files, desired: list[Export], *, config: bool = True) -> Changes:
    """Make the kernel server export exactly ``desired``; re-export only when a file changed.
    ``config``: write nfs.conf too (not on a timer: see backends.converge)."""
    check_set(desired)
    changes = Changes()
    wanted = {e.export_id: e for e in desired}
    for name in files.listdir(EXPORTS_DIR):
        stem = name.removeprefix(PREFIX).removesuffix(".exports")
        if (
            name.startswith(PREFIX)
            and name.endswith(".exports")
            and stem.isdigit()
            and int(stem) not in wanted
        ):
            files.remove(f"{EXPORTS_DIR}/{name}")
            changes.removed.append(int(stem))
    for export_id, export in sorted(wanted.items()):
        existed = files.read(export_file(export_id)) is not None
        if files.write(export_file(export_id), render_export(export)):
            (changes.updated if existed else changes.added).append(export_id)
    changes.restart_needed = config and files.write(NFS_CONF, render_nfs_conf(desired))
    if changes.changed:
        gw.run(["exportfs", "-ra"], timeout=60)
    return changes


# Server-wide counters: knfsd keeps no per-export I/O statistics.
RPC_STATS = "/proc/net/rpc/nfsd"
V3_READ, V3_WRITE = 6, 7  # proc3: null getattr setattr lookup access readlink read write ...
V4_READ, V4_WRITE = 25, 38  # proc4ops: indexed by NFSv4 operation number (OP_READ, OP_WRITE)


class ServerIO(BaseModel):
    """Cumulative NFS I/O of the kernel server since nfsd started (all exports, all versions)."""

    read_ops: int = Field(description="READ calls (NFSv3 READ + NFSv4 OP_READ)")
    read_bytes: int = Field(description="bytes read by clients")
    write_ops: int = Field(description="WRITE calls (NFSv3 WRITE + NFSv4 OP_WRITE)")
    write_bytes: int = Field(description="bytes written by clients")


def _op(values: list[int], index: int) -> int:
    return values[index] if index < len(values) else 0


def parse_rpc_stats(text: str) -> ServerIO:
    """ServerIO from /proc/net/rpc/nfsd (lines "io READ WRITE", "proc3 N ...", "proc4ops N ...")."""
    rows = {cols[0]: cols[1:] for cols in (line.split() for line in text.splitlines()) if cols}
    io = rows.get("io")
    if not io or len(io) < 2 or not io[0].isdigit() or not io[1].isdigit():
        raise BadOutput(f"{RPC_STATS}: no io line")
    v3 = [int(v) for v in rows.get("proc3", [])[1:] if v.isdigit()]
    v4 = [int(v) for v in rows.get("proc4ops", [])[1:] if v.isdigit()]
    return ServerIO(
        read_ops=_op(v3, V3_READ) + _op(v4, V4_READ),
        read_bytes=int(io[0]),
        write_ops=_op(v3, V3_WRITE) + _op(v4, V4_WRITE),
        write_bytes=int(io[1]),
    )


def server_io(files: Files) -> ServerIO | None:
    """The kernel server's counters now, or None when nfsd is not loaded."""
    text = files.read(RPC_STATS)
    return None if text is None else parse_rpc_stats(text)


def exported_paths(files: Files) -> dict[int, str]:
    """{export id: path} of the export files arcvsa wrote (first quoted word of each)."""
    out = {}
    for name in files.listdir(EXPORTS_DIR):
        stem = name.removeprefix(PREFIX).removesuffix(".exports")
        if not (name.startswith(PREFIX) and name.endswith(".exports") and stem.isdigit()):
            continue
        for line in (files.read(f"{EXPORTS_DIR}/{name}") or "").splitlines():
            if line.startswith('"'):
                out[int(stem)] = line[1:].split('"', 1)[0]
                break
    return out
