"""The smallest valid deployment plan's parts, for tests that need a plan but test something else."""

from __future__ import annotations

from typing import Any

from provisioning.plan import DeploymentPlan

FLEET = {"ova_path": "x.ova", "network": "n", "datastore": "d",
         "appliances": [{"host": "h", "name": "vsa-0", "api_endpoint": "10.0.0.5:443"}]}  # fmt: skip
POOL = {
    "name": "p",
    "count": 1,
    "naming": "d-#",
    "folder": "f",
    "golden_vm": "g",
    "snapshot": "s",
    "datastore": "d",
}
HORIZON = {"endpoint": "hz:443", "username": "a", "domain": "d", "vcenter": "vc"}
NFS = {"name": "arc", "server": "10.0.0.5", "path": "/tank/vdi"}


def plan(**extra: Any) -> DeploymentPlan:
    """Deployment 'dep' in datacenter 'dc', cluster 'c', with the parts given."""
    return DeploymentPlan.model_validate({"name": "dep", "datacenter": "dc", "cluster": "c", **extra})
