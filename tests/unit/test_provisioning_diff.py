"""Plan versus live state, on made-up state: what apply would do, what destroy may touch."""

from __future__ import annotations

import pytest

from provisioning.diff import check, diff, teardown
from provisioning.errors import HostNotInCluster, NameCollision, PlacementNotFound, PlanError, SnapshotMissing
from provisioning.live import LiveDatastore, LiveState, LiveVm
from provisioning.plan import DeploymentPlan, DesktopPoolSpec

GIB = 1024**3


def vm(
    name: str, owner: str | None = None, source: str | None = None, power: str = "poweredOn", **kw: object
) -> LiveVm:
    base = {"moid": f"vm-{name}", "name": name, "folder": "group-1", "power_state": power, "owner": owner,
            "source": source, "snapshots": {}, "committed_bytes": 0, "disks": []}  # fmt: skip
    return LiveVm(**{**base, **kw})  # type: ignore[arg-type]


def live(*vms: LiveVm) -> LiveState:
    golden = vm("golden", snapshots={"base": "snapshot-1"}, disks=[(0, 40 * GIB)])
    return LiveState(
        datacenter="datacenter-1", vm_folder="group-v1", cluster="domain-c1", root_pool="resgroup-1",
        cluster_memory_bytes=64 * GIB, hosts={"esx1": "host-1", "esx2": "host-2", "lone": "host-9"},
        cluster_hosts={"esx1": "host-1", "esx2": "host-2"},
        datastores={"nfs": LiveDatastore("datastore-1", "nfs", "NFS", 1000 * GIB, 100 * GIB, None, {"host-1"})},
        networks={"vsa": "network-1"}, kinds={"network-1": "Network"}, folders={"vdi": "group-2"},
        folder_owners={"group-2": "dep"}, pools={}, pool_owners={},
        vms={v.name: [v] for v in (golden, *vms)},
    )  # fmt: skip


def plan(**pool: object) -> DeploymentPlan:
    spec = {"name": "p", "count": 4, "naming": "d-##", "folder": "vdi", "golden_vm": "golden", "snapshot": "base",
            "datastore": "nfs", "memory_mb": 1024, **pool}  # fmt: skip
    return DeploymentPlan(name="dep", datacenter="dc", cluster="c", pool=DesktopPoolSpec.model_validate(spec))


def test_names_come_from_the_pattern() -> None:
    pool = plan(first_number=9).pool
    assert pool is not None
    assert pool.desktop_names() == ["d-09", "d-10", "d-11", "d-12"]
    assert pool.matches("d-123") and not pool.matches("d-1x") and not pool.matches("e-01")


def test_diff_creates_what_is_missing_and_keeps_what_is_ours() -> None:
    state = live(vm("d-01", "dep", "golden@base"), vm("d-02", "dep", "golden@base", power="poweredOff"))
    d = diff(plan(), state)
    assert d.counts() == {"power_on desktop": 1, "create desktop": 2}
    assert d.unchanged == 2


def test_shrink_deletes_only_our_desktops_and_recompose_replaces_them() -> None:
    state = live(vm("d-01", "dep", "golden@base"), vm("d-05", "dep", "golden@base"), vm("d-06"))
    d = diff(plan(count=1, snapshot="base"), state)
    assert [(a.op, a.name) for a in d.of("desktop")] == [("delete", "d-05")]
    state.vms["golden"][0].snapshots["v2"] = "snapshot-2"
    assert diff(plan(count=1, snapshot="v2"), state).counts() == {"replace desktop": 1, "delete desktop": 1}


def test_checks_refuse_before_any_change() -> None:
    with pytest.raises(NameCollision) as caught:
        check(plan(), live(vm("d-03"), vm("d-04", "someone-else")))
    assert caught.value.names == ["d-03", "d-04"]
    with pytest.raises(SnapshotMissing):
        check(plan(snapshot="nope"), live())
    with pytest.raises(PlacementNotFound):
        check(plan(datastore="gone"), live())
    fleet = {
        "ova_path": "x.ova",
        "network": "vsa",
        "datastore": "nfs",
        "appliances": [{"host": "lone", "name": "v"}],
    }
    with pytest.raises(HostNotInCluster, match="not a member"):
        check(
            DeploymentPlan.model_validate(
                {"name": "dep", "datacenter": "dc", "cluster": "c", "fleet": fleet}
            ),
            live(),
        )


def test_an_nfs_version_change_is_refused() -> None:
    state = live()
    state.datastores["nfs"].owner = "dep"
    nfs = {"name": "nfs", "server": "192.0.2.1", "path": "/vdi", "version": "4.1"}
    with pytest.raises(PlanError, match="mounted as NFS; the plan says NFS41"):
        check(
            DeploymentPlan.model_validate({"name": "dep", "datacenter": "dc", "cluster": "c", "nfs": nfs}),
            state,
        )


def test_teardown_names_only_owned_objects_desktops_first_folders_last() -> None:
    state = live(
        vm("d-01", "dep", "golden@base"), vm("vsa-1", "dep"), vm("d-02", "other", "golden@base"), vm("x")
    )
    state.datastores["nfs"].owner = "dep"
    d = teardown("dep", state)
    assert [(a.op, a.kind, a.name) for a in d.actions] == [
        ("delete", "desktop", "d-01"),
        ("delete", "nfs_mount", "nfs"),
        ("delete", "appliance", "vsa-1"),
        ("delete", "folder", "vdi"),
    ]


@pytest.mark.parametrize(
    ("properties", "error"),
    [
        ({"hostnme": "x"}, "'hostnme' is not an OVF property"),
        ({"admin_password": "secret123"}, "give it as fleet.admin_password"),
        ({"role": "boss"}, "role='boss' is not one of"),
    ],
)
def test_fleet_properties_are_checked_against_the_ovf_catalogue(
    properties: dict[str, str], error: str
) -> None:
    fleet = {
        "ova_path": "x.ova",
        "network": "n",
        "datastore": "d",
        "appliances": [{"host": "h", "name": "v", "properties": properties}],
    }
    with pytest.raises(ValueError, match=error):
        DeploymentPlan.model_validate({"name": "dep", "datacenter": "dc", "cluster": "c", "fleet": fleet})


def test_an_appliance_thumbprint_is_checked_and_normalised() -> None:
    fleet = {
        "ova_path": "x.ova",
        "network": "n",
        "datastore": "d",
        "appliances": [{"host": "h", "name": "v"}],
    }
    fleet["appliances"][0]["api_thumbprint_sha256"] = "ab" * 32  # type: ignore[index]
    plan = DeploymentPlan.model_validate({"name": "dep", "datacenter": "dc", "cluster": "c", "fleet": fleet})
    assert plan.fleet is not None and plan.fleet.appliances[0].api_thumbprint_sha256 == ":".join(["AB"] * 32)
    fleet["appliances"][0]["api_thumbprint_sha256"] = "ab" * 20  # type: ignore[index]
    with pytest.raises(ValueError, match="SHA-1"):
        DeploymentPlan.model_validate({"name": "dep", "datacenter": "dc", "cluster": "c", "fleet": fleet})
