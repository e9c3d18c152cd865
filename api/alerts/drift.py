"""An alert for each noun the last reconcile could not bring to its desired state (appliance.control
.reconciled): what it is and the error that stopped it, until a later reconcile converges it."""

from __future__ import annotations

from api.alerts.schemas import Alert
from appliance.control.errors import ServiceDown
from appliance.control.reconciled import Noun, Reconciled

# What each noun is to an admin, and what its drift costs.
SUBJECTS = {
    Noun.nfs_exports: "NFS exports",
    Noun.zfs_parameters: "ZFS module parameters",
    Noun.iscsi_targets: "iSCSI targets",
    Noun.firewall: "Firewall rules",
    Noun.api_folder: "The api's folder (/var/lib/arcvsa)",
}
EFFECTS = {
    Noun.nfs_exports: "ESXi hosts may not reach the datastores that are not served",
    Noun.zfs_parameters: "the caches and write throttle run on other values than the tuning plan's",
    Noun.iscsi_targets: "ESXi hosts may not reach the LUNs of the targets LIO does not hold as configured",
    Noun.firewall: "hosts may be let in or kept out other than the settings, exports and targets say",
    Noun.api_folder: "the api may not read the state the control service publishes, or its own files",
}


def drift_alerts(reconciled: list[Reconciled]) -> list[Alert]:
    """Critical for each noun whose reconcile failed; none for a server that is not running (its own
    alert, nfs/service, says so: the reconcile has nothing to talk to)."""
    found = []
    for outcome in reconciled:
        failure = outcome.failure
        if failure is None or failure.error == ServiceDown.__name__:
            continue
        found.append(
            Alert(
                key=f"reconcile/{outcome.noun.value}",
                severity="critical",
                subject=SUBJECTS[outcome.noun],
                message=(
                    f"{SUBJECTS[outcome.noun]} could not be brought to their configured state "
                    f"({outcome.at:%Y-%m-%d %H:%M:%S} UTC): {failure.message}. {EFFECTS[outcome.noun]}; "
                    "the appliance tries again every minute"
                ),
            )
        )
    return found
