"""An alert when the NFS server the exports are on is not running: every ESXi host loses those datastores."""

from __future__ import annotations

from api.alerts.schemas import Alert
from appliance.control.nfs.backends import Backend, ServiceState
from appliance.control.observed import Failure

KEY = "nfs/service"


def nfs_alert(
    services: dict[Backend, ServiceState | Failure] | None, backend: Backend, exports: int
) -> Alert | None:
    """Critical while the chosen backend's service, as last observed, is not active and has exports to
    serve (with none, a stopped server serves nobody: knfsd is not even started before its first export)."""
    state = services.get(backend) if services is not None else None
    # nothing to serve, or this backend not observed yet (chosen since the last pass): the next pass says
    if exports == 0 or state is None:
        return None
    if isinstance(state, Failure):
        return Alert(
            key=KEY,
            severity="critical",
            subject=f"NFS server ({backend.value})",
            message=f"the NFS server's state could not be read: {state.message}",
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
