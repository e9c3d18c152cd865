"""The appliance's one NFS server: which backend serves the exports, and switching between them.

Both servers bind port 2049, so exactly one runs: the other is emptied of arcvsa's exports and
stopped (and disabled, so a reboot keeps the choice). knfsd is started only once it has an export:
its nfs.conf turns off every NFS version nothing is exported over, and rpc.nfsd will not start with none.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from appliance.control.errors import BadOutput
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


class ServiceState(BaseModel):
    """What systemd says of a backend's service."""

    unit: str = Field(description="the systemd unit")
    active_state: str = Field(description="ActiveState: active, inactive, failed, activating, ...")
    sub_state: str = Field(description="SubState: running, dead, failed, auto-restart, ...")
    result: str = Field(description="Result of its last run: success, signal, exit-code, ...")
    restarts: int = Field(description="NRestarts: automatic restarts since it was started by hand")


def service_state(gw: Gateway, backend: Backend) -> ServiceState:
    """The backend's service as ``systemctl show`` tells it (exit 0 whatever the state: a read)."""
    unit = f"{UNITS[backend]}.service"
    argv = ["systemctl", "show", "--property=ActiveState,SubState,Result,NRestarts", unit]
    shown = dict(
        line.partition("=")[::2] for line in gw.query(argv, timeout=SYSTEMCTL_TIMEOUT).stdout.splitlines()
    )
    try:
        return ServiceState(
            unit=unit,
            active_state=shown["ActiveState"],
            sub_state=shown["SubState"],
            result=shown["Result"],
            restarts=int(shown["NRestarts"]),
        )
    except (KeyError, ValueError):
        raise BadOutput(f"systemctl show {unit}: unexpected answer {shown}") from None


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


def converge(gw: Gateway, files: Files, backend: Backend, desired: list[Export]) -> Changes:
    """Bring the running ``backend``'s export set back to ``desired`` (an export ganesha lost, a file
    edited or removed by hand), and nothing else: the server's config and its service are set at the api's
    start and by each change, which a timer must not redo (a restart stalls every datastore)."""
    if backend is Backend.ganesha:
        return ganesha.reconcile(gw, files, desired, config=False)
    return knfsd.reconcile(gw, files, desired, config=False)


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
        ganesha.wait_on_bus(gw)  # its exports are added over DBus
    return reconcile(gw, files, backend, desired)
