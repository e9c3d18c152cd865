"""Where the appliances run and whether they fit, on made-up state: an appliance counts as in place only on
its own host, what the deployment made and no longer plans is reported as an orphan (and torn down by
destroy), and an appliance its host has no room for is refused on its field before any change."""

from __future__ import annotations

from typing import Any

import pytest

from ovf.hardware import APPLIANCE_HARDWARE
from provisioning.diff import check, diff, teardown
from provisioning.errors import InsufficientResources, PlacementNotFound, PlanError
from provisioning.live import LiveDatastore, LiveHost, LiveState, LiveVm
from provisioning.plan import DeploymentPlan

GIB = 1024**3
MIB = 1024**2
SMALL = APPLIANCE_HARDWARE.option("small")


def vm(
    name: str, host: str | None, owner: str | None = "dep", source: str | None = None, **kw: Any
) -> LiveVm:
    base: dict[str, Any] = {"moid": f"vm-{name}", "name": name, "folder": "group-1", "power_state": "poweredOn",
            "owner": owner, "source": source, "snapshots": {}, "committed_bytes": 0, "disks": [(0, 8 * GIB)],
            "host": host}  # fmt: skip
    return LiveVm(**{**base, **kw})


def host(moid: str, free_memory: int = 64 * GIB, **kw: Any) -> LiveHost:
    base: dict[str, Any] = {"moid": moid, "memory_bytes": 128 * GIB, "memory_used_bytes": 128 * GIB - free_memory,
            "cpu_mhz": 2000, "cpu_cores": 16, "cpu_threads": 32, "cpu_used_mhz": 0,
            "networks": {"network-1"}}  # fmt: skip
    return LiveHost(**{**base, **kw})


def live(*vms: LiveVm, **stats: LiveHost) -> LiveState:
    return LiveState(
        datacenter="datacenter-1", vm_folder="group-v1", cluster="domain-c1", root_pool="resgroup-1",
        cluster_memory_bytes=256 * GIB, hosts={"esx1": "host-1", "esx2": "host-2", "lone": "host-9"},
        cluster_hosts={"esx1": "host-1", "esx2": "host-2"},
        datastores={"san": LiveDatastore("datastore-1", "san", "VMFS", 1000 * GIB, 900 * GIB, None,
                                         {"host-1", "host-2", "host-9"})},
        networks={"vsa": "network-1", "other": "network-2"}, kinds={"network-1": "Network", "network-2": "Network"},
        folders={"vdi": "group-2"}, folder_owners={"group-2": "dep"}, pools={"rp": "resgroup-2"},
        pool_owners={"resgroup-2": "someone"}, vms={v.name: [v] for v in vms},
        host_stats={"esx1": host("host-1"), "esx2": host("host-2"), **stats},
    )  # fmt: skip


def plan(hosts: tuple[str, ...] = ("esx1",), size: str = "small", network: str = "vsa") -> DeploymentPlan:
    appliances = [{"host": h, "name": f"vsa-{i + 1}"} for i, h in enumerate(hosts)]
    fleet = {
        "ova_path": "x.ova",
        "network": network,
        "datastore": "san",
        "size": size,
        "appliances": appliances,
    }
    return DeploymentPlan.model_validate({"name": "dep", "datacenter": "dc", "cluster": "c", "fleet": fleet})


def ops(state: LiveState, p: DeploymentPlan) -> list[tuple[str, str, str]]:
    return [(a.op, a.kind, a.name) for a in diff(p, state).actions]


# --- placement ----------------------------------------------------------------------------------------------


def test_an_appliance_on_its_own_host_is_in_place() -> None:
    d = diff(plan(), live(vm("vsa-1", "host-1")))
    assert d.actions == [] and d.unchanged == 1


def test_an_appliance_on_another_host_of_the_cluster_is_moved_back() -> None:
    d = diff(plan(), live(vm("vsa-1", "host-2")))
    assert [(a.op, a.kind, a.name, a.host) for a in d.actions] == [("move", "appliance", "vsa-1", "esx1")]
    assert d.unchanged == 0
    assert "vMotion from esx2 to esx1" in d.actions[0].detail


def test_an_appliance_outside_the_cluster_is_moved_back_into_it() -> None:
    d = diff(plan(), live(vm("vsa-1", "host-9")))
    assert d.actions[0].op == "move" and "esx2" not in d.actions[0].detail
    assert "from lone (outside the cluster) to esx1" in d.actions[0].detail


def test_a_move_is_what_apply_does_an_orphan_is_only_reported() -> None:
    d = diff(plan(), live(vm("vsa-1", "host-2"), vm("vsa-2", "host-2")))
    assert ops(live(vm("vsa-1", "host-2"), vm("vsa-2", "host-2")), plan()) == [
        ("move", "appliance", "vsa-1"),
        ("orphan", "appliance", "vsa-2"),
    ]
    assert [(a.op, a.name) for a in d.to_make().actions] == [("move", "vsa-1")]
    assert d.counts() == {"move appliance": 1, "orphan appliance": 1}


def test_orphans_are_what_this_deployment_made_and_no_longer_names() -> None:
    state = live(
        vm("vsa-1", "host-1"),
        vm("vsa-2", "host-2"),  # the appliance of a host taken out of the plan
        vm("old-01", None, source="golden@base"),  # a desktop of a naming the plan no longer has
        vm("vsa-3", "host-2", owner="other"),  # another deployment's
        vm("vsa-4", "host-2", owner=None),  # nobody's
    )
    orphans = [(a.kind, a.name, a.host) for a in diff(plan(), state).actions if a.op == "orphan"]
    assert orphans == [("desktop", "old-01", None), ("appliance", "vsa-2", "esx2")]


def test_destroy_removes_the_orphans_and_leaves_foreign_vms_and_pools_alone() -> None:
    state = live(
        vm("vsa-1", "host-1"),
        vm("vsa-2", "host-2"),
        vm("vsa-3", "host-2", owner="other"),
        vm("x", None, owner=None),
    )
    gone = teardown("dep", state)
    assert [(a.op, a.kind, a.name) for a in gone.actions] == [
        ("delete", "appliance", "vsa-1"),
        ("delete", "appliance", "vsa-2"),
        ("delete", "folder", "vdi"),
    ]  # the resource pool 'rp' is someone else's


# --- admission ----------------------------------------------------------------------------------------------


def test_exactly_enough_memory_is_admitted_one_mib_less_is_refused_on_the_hosts_field() -> None:
    need = SMALL.memory_mb * MIB
    check(plan(("esx1", "esx2")), live(esx2=host("host-2", free_memory=need)))
    with pytest.raises(InsufficientResources) as caught:
        check(plan(("esx1", "esx2")), live(esx2=host("host-2", free_memory=need - MIB)))
    assert caught.value.field == "fleet.appliances.1.host"
    assert "vsa-2 (Small (2 vCPU, 8 GiB RAM)) needs 8.0 GiB of memory; host 'esx2' has 8.0 GiB free" in str(
        caught.value
    )


def test_the_size_chosen_is_what_is_weighed() -> None:
    room = host("host-1", free_memory=12 * GIB)
    check(plan(size="small"), live(esx1=room))
    with pytest.raises(InsufficientResources, match=r"16\.0 GiB of memory"):
        check(plan(size="medium"), live(esx1=room))


def test_a_host_with_too_few_logical_cpus_or_too_little_free_cpu_is_refused() -> None:
    check(plan(), live(esx1=host("host-1", cpu_cores=2, cpu_threads=2)))
    with pytest.raises(InsufficientResources, match="2 vCPUs; host 'esx1' has 1 logical CPUs") as caught:
        check(plan(), live(esx1=host("host-1", cpu_cores=1, cpu_threads=1)))
    assert caught.value.field == "fleet.appliances.0.host"
    exact = SMALL.vcpus * 2000
    check(plan(), live(esx1=host("host-1", cpu_used_mhz=16 * 2000 - exact)))
    with pytest.raises(InsufficientResources, match=f"needs {exact} MHz"):
        check(plan(), live(esx1=host("host-1", cpu_used_mhz=16 * 2000 - exact + 1)))


def test_an_appliance_already_on_its_host_is_not_weighed_again_but_one_to_move_is() -> None:
    full = host("host-1", free_memory=0)
    check(plan(), live(vm("vsa-1", "host-1"), esx1=full))  # its memory is in the host's use already
    with pytest.raises(InsufficientResources, match="can move to it"):
        check(plan(), live(vm("vsa-1", "host-2"), esx1=full))
    made_small = vm("vsa-1", "host-2", memory_mb=2048, vcpus=1)  # weighed by what it has, not the plan's size
    check(plan(), live(made_small, esx1=host("host-1", free_memory=2 * GIB)))
    with pytest.raises(InsufficientResources, match=r"vsa-1 \(1 vCPU, 2 GiB RAM\) needs 2\.0 GiB"):
        check(plan(), live(made_small, esx1=host("host-1", free_memory=2 * GIB - MIB)))


def test_a_host_in_maintenance_or_disconnected_is_refused() -> None:
    with pytest.raises(PlanError, match="in maintenance mode") as caught:
        check(plan(), live(esx1=host("host-1", in_maintenance=True)))
    assert caught.value.field == "fleet.appliances.0.host"
    with pytest.raises(PlanError, match="not connected"):
        check(plan(), live(esx1=host("host-1", connected=False)))


def test_the_port_group_must_be_on_every_chosen_host() -> None:
    check(plan(("esx1", "esx2")), live())
    with pytest.raises(PlacementNotFound, match="host 'esx2' has no port group 'vsa'") as caught:
        check(plan(("esx1", "esx2")), live(esx2=host("host-2", networks={"network-2"})))
    assert caught.value.field == "fleet.network"
    with pytest.raises(PlacementNotFound, match="no network 'gone'"):
        check(plan(network="gone"), live())
