"""Kernel NFS server backend: one file per export in /etc/exports.d, applied with ``exportfs -ra``.

knfsd picks NFS versions for the whole server (nfs.conf), not per export: the versions in use are
turned on there, and check_set still keeps each datastore on one protocol per host.
"""

from __future__ import annotations

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


def reconcile(gw: Gateway, files: Files, desired: list[Export]) -> Changes:
    """Make the kernel server export exactly ``desired``; re-export only when a file changed."""
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
    changes.restart_needed = files.write(NFS_CONF, render_nfs_conf(desired))
    if changes.changed:
        gw.run(["exportfs", "-ra"], timeout=60)
    return changes
