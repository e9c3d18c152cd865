"""Which appliances destroy releases the storage of, and where it reaches them (provisioning.release)."""

from __future__ import annotations

from typing import Any

from provisioning.plan import DeploymentPlan
from provisioning.release import planned_storage

PIN = "AB:" * 31 + "CD"


def plan(appliances: list[dict[str, Any]], nfs: bool = True) -> DeploymentPlan:
    return DeploymentPlan.model_validate(
        {
            "name": "dep", "datacenter": "dc", "cluster": "c",
            "fleet": {"ova_path": "x.ova", "network": "vsa", "datastore": "san", "appliances": appliances},
            **({"nfs": {"name": "arc", "server": "10.0.0.21", "path": "/tank/vdi", "version": "3"}} if nfs else {}),
        }
    )  # fmt: skip


def appliance(name: str, **extra: Any) -> dict[str, Any]:
    return {"host": f"esx-{name}", "name": name, "disks": [{"datastore": "san", "size_gb": 10}], **extra}


def test_each_appliance_is_reached_where_apply_reached_it_with_its_pin() -> None:
    found = planned_storage(
        plan(
            [
                appliance("vsa-1", properties={"ipv4_address": "10.0.0.21"}),
                appliance("vsa-2", api_endpoint="127.0.0.1:10443", api_thumbprint_sha256=PIN),
            ]
        )
    )
    assert sorted(found) == ["vsa-1", "vsa-2"]
    assert (found["vsa-1"].endpoint, found["vsa-1"].thumbprint, found["vsa-1"].pool) == (
        "10.0.0.21:443",
        None,
        "tank",
    )
    assert (found["vsa-2"].endpoint, found["vsa-2"].thumbprint) == ("127.0.0.1:10443", PIN)


def test_an_appliance_with_no_address_is_not_released() -> None:
    assert planned_storage(plan([appliance("vsa-1")])) == {}


def test_a_plan_without_a_datastore_releases_nothing() -> None:
    assert planned_storage(plan([appliance("vsa-1", api_endpoint="127.0.0.1:10443")], nfs=False)) == {}
