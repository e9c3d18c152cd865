"""Which appliances destroy releases the storage of, and where it reaches them (provisioning.release)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance.api_flows import L2ARC, LUN0, LUN1, SLOG
from support.appliance_server import replayed_appliances
from support.provisioning import first_contacts
from support.release_replay import PASSWORD, appliance_to_release

import provisioning.release as releasing
from provisioning.plan import DeploymentPlan
from provisioning.release import ApplianceStorage, planned_storage, release

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


def test_release_takes_the_pool_s_exports_off_and_destroys_it_with_its_disks_freed(tmp_path: Path) -> None:
    with appliance_to_release(tmp_path) as (server, runner):
        made = len(runner.calls)
        storage = ApplianceStorage("vsa-1", server.endpoint, server.thumbprint, "tank")
        assert release(storage, PASSWORD) == [
            "export of tank/vdi removed",
            "pool tank destroyed, its disks freed",
        ]
    ran = [" ".join(c[-4:]) for c in runner.calls[made:]]
    removed = ran.index("org.ganesha.nfsd.exportmgr RemoveExport q 101")
    assert removed < ran.index("zpool destroy tank"), "the export goes before its pool"
    cleared = [c[-1] for c in runner.calls[made:] if c[:2] == ["zpool", "labelclear"]]
    assert cleared == [f"{d}-part1" for d in (LUN0, LUN1, SLOG, L2ARC)], "every disk of the pool freed"


def test_a_pool_that_is_gone_already_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    contacts = first_contacts(monkeypatch, releasing)
    with replayed_appliances(tmp_path, 1, "fleet", PASSWORD) as [(server, runner)]:
        storage = ApplianceStorage("vsa-1", server.endpoint, None, "tank")  # pinned on first contact
        started = len(runner.calls)  # the api's start observed the appliance (no pool tank)
        assert release(storage, PASSWORD) == []
        assert contacts == [60.0], "an unpinned appliance is given a minute to answer its first contact"
        assert runner.calls[started:] == [], "nothing destroyed: the pool's absence was read, not asked"
