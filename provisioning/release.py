"""Before an appliance VM goes, its pool goes through its api: exports off, pool destroyed, disks freed.

A VMDK dies with the VM, but a raw-mapped SAN LUN outlives it with the pool's labels on it, and the next
pool on that LUN would need force; an appliance that is reached at another address (NAT, the lab's
stand-in) outlives the VM altogether. So destroy releases the storage it built, and frees the disks.
"""

from __future__ import annotations

from dataclasses import dataclass

from provisioning import cancel
from provisioning.appliance_api import STORAGE, ApplianceApi, first_contact
from provisioning.health import endpoint_of
from provisioning.plan import DeploymentPlan


@dataclass
class ApplianceStorage:
    """What one appliance of a plan serves, and where its api answers."""

    name: str  # the appliance VM's name
    endpoint: str
    thumbprint: str | None  # the pinned certificate; None: pinned on first contact now
    pool: str


def planned_storage(deployment: DeploymentPlan) -> dict[str, ApplianceStorage]:
    """Each appliance of the plan that serves the NFS datastore, by VM name (none without one)."""
    fleet, share = deployment.fleet, deployment.nfs
    if fleet is None or share is None:
        return {}
    pool = share.dataset()[0]
    found = {}
    for spec in fleet.appliances:
        endpoint = endpoint_of(spec)
        if endpoint is not None:
            found[spec.name] = ApplianceStorage(spec.name, endpoint, spec.api_thumbprint_sha256, pool)
    return found


def release(
    storage: ApplianceStorage, password: str, timeout: float = 60.0, cancelled: cancel.Switch = cancel.never
) -> list[str]:
    """Take the pool's exports off and destroy the pool with its disks freed; what was done, in words.

    A pool that is gone already is no error: destroy may run again after a partial run.
    """
    thumbprint = storage.thumbprint or first_contact(storage.endpoint, timeout, storage.name)
    api = ApplianceApi(storage.endpoint, thumbprint, name=storage.name, timeout=timeout, cancelled=cancelled)
    api.login(password)
    if api.pool(storage.pool) is None:
        return []
    done = []
    prefix = storage.pool + "/"
    for export in api.exports():
        dataset = str(export.get("dataset") or "")
        if dataset == storage.pool or dataset.startswith(prefix):
            api.call("DELETE", f"{STORAGE}/exports/{export['export_id']}")
            done.append(f"export of {dataset} removed")
    api.call("DELETE", f"{STORAGE}/pools/{storage.pool}?free_disks=true")
    done.append(f"pool {storage.pool} destroyed, its disks freed")
    return done
