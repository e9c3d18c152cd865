"""An alert when the NFS server the exports are on is not running: every ESXi host loses those datastores."""

from __future__ import annotations

from api.alerts.schemas import Alert
from appliance.control.errors import ControlError
from appliance.control.gateway import Gateway
from appliance.control.nfs import backends
from appliance.control.nfs.backends import Backend

KEY = "nfs/service"


def nfs_alert(gw: Gateway, backend: Backend, exports: int) -> Alert | None:
    """Critical while the chosen backend's service is not active and has exports to serve (with none,
    a stopped server serves nobody: knfsd is not even started before its first export)."""
    if exports == 0:
        return None
    try:
        state = backends.service_state(gw, backend)
    except ControlError as exc:
        return Alert(
            key=KEY,
            severity="critical",
            subject=f"NFS server ({backend.value})",
            message=f"the NFS server's state could not be read: {exc}",
        )
    if state.active_state == "active":
        return None
    crashed = state.result not in ("success", "")
    return Alert(
        key=KEY,
        severity="critical",
        subject=f"NFS server ({backend.value})",
        message=(
            f"{state.unit} is {state.active_state} ({state.sub_state}"
            + (f", ended by {state.result}" if crashed else "")
            + f"): ESXi hosts cannot reach its {exports} export(s); start it again "
            "(PUT /api/storage/nfs/backend re-applies the exports) and see its journal in the support bundle"
        ),
    )
