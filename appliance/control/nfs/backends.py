"""The appliance's one NFS server: which backend serves the exports, and switching between them.

Both servers bind port 2049, so exactly one runs: the other is emptied of arcvsa's exports and
stopped (and disabled, so a reboot keeps the choice). knfsd is started only once it has an export:
its nfs.conf turns off every NFS version nothing is exported over, and rpc.nfsd will not start with none.
"""

from __future__ import annotations

from enum import StrEnum

from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.nfs import ganesha, knfsd
from appliance.control.nfs.ganesha import Changes
from appliance.control.nfs.model import Export

SYSTEMCTL_TIMEOUT = 120.0


class Backend(StrEnum):
    """The NFS server implementation."""

    ganesha = "ganesha"
    knfsd = "knfsd"


UNITS = {Backend.ganesha: "nfs-ganesha", Backend.knfsd: "nfs-server"}


def _systemctl(gw: Gateway, *words: str, ok_codes: tuple[int, ...] = (0,)) -> int:
    return gw.run(["systemctl", *words], timeout=SYSTEMCTL_TIMEOUT, ok_codes=ok_codes).exit_code


def running(gw: Gateway, backend: Backend) -> bool:
    """Whether the backend's service is active now (``systemctl is-active``: 0 active, 3 not)."""
    return _systemctl(gw, "is-active", "--quiet", UNITS[backend], ok_codes=(0, 3)) == 0


def reconcile(gw: Gateway, files: Files, backend: Backend, desired: list[Export]) -> Changes:
    """Make ``backend`` export exactly ``desired`` (the service is assumed to be the chosen one)."""
    if backend is Backend.ganesha:
        ganesha.ensure_service(gw, files)
        return ganesha.reconcile(gw, files, desired)
    changes = knfsd.reconcile(gw, files, desired)
    if desired:
        _systemctl(gw, "enable", "--now", UNITS[backend])
        if changes.restart_needed:  # NFS versions are server-wide: they change on a restart only
            _systemctl(gw, "restart", UNITS[backend])
    return changes


def retire(gw: Gateway, files: Files, backend: Backend) -> None:
    """Empty ``backend`` of arcvsa's exports, then stop and disable its service."""
    if backend is Backend.knfsd:
        knfsd.reconcile(gw, files, [])
    elif running(gw, backend):
        ganesha.reconcile(gw, files, [])
    else:  # no DBus without the daemon: only its files are left to remove
        for name in files.listdir(ganesha.EXPORTS_DIR):
            if name.startswith(ganesha.PREFIX) and name.endswith(".conf"):
                files.remove(f"{ganesha.EXPORTS_DIR}/{name}")
    _systemctl(gw, "disable", "--now", UNITS[backend])


def activate(gw: Gateway, files: Files, backend: Backend, desired: list[Export]) -> Changes:
    """Serve ``desired`` from ``backend`` alone: the other one retired first (idempotent)."""
    retire(gw, files, Backend.knfsd if backend is Backend.ganesha else Backend.ganesha)
    if backend is Backend.ganesha:
        _systemctl(gw, "enable", "--now", UNITS[backend])
    return reconcile(gw, files, backend, desired)
