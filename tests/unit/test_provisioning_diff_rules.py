"""Every refusal of provisioning.diff.check, one bad thing at a time from a plan that passes, and each
limit at its edge; then what diff and teardown make of the same state, action by action.

The baseline: two appliances on the cluster's two hosts, an arcvsa NFS 4.1 datastore this deployment
owns, and a pool of four linked clones on it. Every test changes one thing of it."""

from __future__ import annotations

from typing import Any

import pytest

from provisioning.diff import Action, Diff, check, diff, golden_folder, orphans, teardown
from provisioning.errors import (
    HostNotInCluster,
    InsufficientResources,
    InsufficientSpace,
    LunNotFound,
    NameCollision,
    PlacementNotFound,
    PlanError,
    SnapshotMissing,
)
from provisioning.live import LiveDatastore, LiveHost, LiveLun, LiveState, LiveVm
from provisioning.plan import DeploymentPlan

NAA = "naa.600a0b80001234560000abcd12345678"
GIB = 1024**3  # not imported from the module under test: a wrong constant there must show
MIB = 1024**2


def vm(name: str, owner: str | None = "dep", source: str | None = None, **kw: Any) -> LiveVm:
    base: dict[str, Any] = {"moid": f"vm-{name}", "name": name, "folder": "group-1", "power_state": "poweredOn",
            "owner": owner, "source": source, "snapshots": {}, "committed_bytes": 0, "disks": []}  # fmt: skip
    return LiveVm(**{**base, **kw})


def golden(**kw: Any) -> LiveVm:
    base: dict[str, Any] = {"snapshots": {"base": "snapshot-1"}, "disks": [(0, 40 * GIB)],
            "vm_path": "[arc] golden/golden.vmx"}  # fmt: skip
    return vm("golden", owner=None, **{**base, **kw})


def host(moid: str, **kw: Any) -> LiveHost:
    base: dict[str, Any] = {"moid": moid, "memory_bytes": 128 * GIB, "memory_used_bytes": 0, "cpu_mhz": 2000,
            "cpu_cores": 16, "cpu_threads": 32, "cpu_used_mhz": 0, "networks": {"network-1"}}  # fmt: skip
    return LiveHost(**{**base, **kw})


def live(*vms: LiveVm, arc_free: int = 900 * GIB) -> LiveState:
    """A datacenter where the baseline plan passes: `vms` beside the golden VM."""
    return LiveState(
        datacenter="datacenter-1", vm_folder="group-v1", cluster="domain-c1", root_pool="resgroup-1",
        cluster_memory_bytes=64 * GIB, hosts={"esx1": "host-1", "esx2": "host-2", "lone": "host-9"},
        cluster_hosts={"esx1": "host-1", "esx2": "host-2"},
        datastores={
            "san": LiveDatastore("datastore-1", "san", "VMFS", 1000 * GIB, 900 * GIB, None, {"host-1", "host-2"}),
            "arc": LiveDatastore("datastore-2", "arc", "NFS41", 1000 * GIB, arc_free, "dep", {"host-1"}),
        },
        networks={"vsa": "network-1"}, kinds={"network-1": "Network"}, folders={"vdi": "group-2"},
        folder_owners={"group-2": "dep"}, pools={}, pool_owners={},
        vms={v.name: [v] for v in (golden(), *vms)},
        host_addresses={"esx1": ["10.0.0.11"], "esx2": ["10.0.0.12"]},
        host_luns={"esx1": {NAA: LiveLun(NAA, "02000000", f"/vmfs/devices/disks/{NAA}", 500 * GIB)}},
        host_stats={"esx1": host("host-1"), "esx2": host("host-2")},
    )  # fmt: skip


FLEET: dict[str, Any] = {
    "ova_path": "x.ova", "network": "vsa", "datastore": "san",
    "appliances": [{"host": "esx1", "name": "vsa-1", "disks": [{"datastore": "san", "size_gb": 10}]},
                   {"host": "esx2", "name": "vsa-2"}],
}  # fmt: skip
NFS: dict[str, Any] = {"name": "arc", "server": "10.0.0.21", "path": "/tank/vdi", "version": "4.1"}
POOL: dict[str, Any] = {"name": "p", "count": 4, "naming": "d-##", "folder": "vdi/pool-a", "golden_vm": "golden",
        "snapshot": "base", "datastore": "arc", "memory_mb": 1024}  # fmt: skip


def plan(**parts: Any) -> DeploymentPlan:
    """The baseline plan; a part given as None is left out, a dict given is merged into the baseline's."""
    spec: dict[str, Any] = {"name": "dep", "datacenter": "dc", "cluster": "c"}
    for key, base in (("fleet", FLEET), ("nfs", NFS), ("pool", POOL)):
        given = parts.pop(key, {})
        if given is not None:
            spec[key] = {**base, **given}
    return DeploymentPlan.model_validate({**spec, **parts})


def appliance(i: int, **kw: Any) -> dict[str, Any]:
    """The fleet with appliance i changed."""
    appliances = [dict(a) for a in FLEET["appliances"]]
    appliances[i].update(kw)
    return {"appliances": appliances}


def refused(error: type[Exception], p: DeploymentPlan, state: LiveState) -> Any:
    with pytest.raises(error) as caught:
        check(p, state)
    return caught.value


def test_the_baseline_passes() -> None:
    check(plan(), live())
    check(plan(fleet=None), live())
    check(plan(pool=None), live())
    check(plan(nfs=None, fleet=None, pool={"datastore": "san"}), live())


# --- the cluster and the hosts ------------------------------------------------------------------------------


def test_a_missing_cluster_is_refused_on_its_field() -> None:
    state = live()
    state.cluster = None
    e = refused(PlacementNotFound, plan(), state)
    assert str(e) == "datacenter 'dc' has no cluster 'c'" and e.field == "cluster"
    refused(PlacementNotFound, plan(fleet=None, nfs=None), state)


def test_an_appliance_on_a_host_outside_the_cluster_or_the_datacenter_is_refused() -> None:
    e = refused(HostNotInCluster, plan(fleet=appliance(1, host="lone")), live())
    assert str(e) == "host 'lone' is not a member of cluster 'c'" and e.field == "fleet.appliances.1.host"
    e = refused(HostNotInCluster, plan(fleet=appliance(1, host="nowhere")), live())
    assert str(e) == "host 'nowhere' does not exist in the datacenter of cluster 'c'"


# --- the appliances' disks ----------------------------------------------------------------------------------


def test_a_disk_datastore_missing_or_not_mounted_on_the_appliances_host_is_refused() -> None:
    disks = [{"datastore": "gone", "size_gb": 10}]
    e = refused(PlacementNotFound, plan(fleet=appliance(1, disks=disks)), live())
    assert str(e) == "host 'esx2' has no datastore 'gone'" and e.field == "fleet.appliances.1.disks"
    state = live()
    state.datastores["san"].hosts = {"host-1"}  # esx2 does not mount it
    e = refused(
        PlacementNotFound, plan(fleet=appliance(1, disks=[{"datastore": "san", "size_gb": 10}])), state
    )
    assert str(e) == "host 'esx2' has no datastore 'san'"
    check(plan(fleet=appliance(0, disks=[{"datastore": "san", "size_gb": 10}])), state)  # esx1 mounts it


def test_an_rdm_is_checked_for_its_lun_and_its_mapping_file_datastore() -> None:
    check(plan(fleet=appliance(0, disks=[{"rdm_lun": NAA}])), live())  # no datastore: its VM's folder
    check(plan(fleet=appliance(0, disks=[{"rdm_lun": NAA, "datastore": "san"}])), live())
    e = refused(
        PlacementNotFound, plan(fleet=appliance(0, disks=[{"rdm_lun": NAA, "datastore": "gone"}])), live()
    )
    assert not isinstance(e, LunNotFound) and str(e) == "host 'esx1' has no datastore 'gone'"
    e = refused(LunNotFound, plan(fleet=appliance(1, disks=[{"rdm_lun": NAA}])), live())
    assert str(e) == f"host 'esx2' sees no SCSI disk '{NAA}' to map raw (it sees: none)"
    assert e.field == "fleet.appliances.1.disks"
    state = live()
    state.host_luns["esx1"] = {n: state.host_luns["esx1"][NAA] for n in ("naa.2", "naa.1")}
    e = refused(LunNotFound, plan(fleet=appliance(0, disks=[{"rdm_lun": NAA}])), state)
    assert str(e).endswith("(it sees: naa.1, naa.2)")
    state = live()
    state.host_vmfs_luns["esx1"] = {NAA}
    e = refused(PlanError, plan(fleet=appliance(0, disks=[{"rdm_lun": NAA}])), state)
    assert (
        f"LUN '{NAA}' holds a VMFS datastore of host 'esx1'" in str(e)
        and e.field == "fleet.appliances.0.disks"
    )


# --- the appliances' names, network and datastore ----------------------------------------------------------


@pytest.mark.parametrize("owner", ["other", None])
def test_an_appliance_name_held_by_a_vm_we_do_not_own_is_a_collision(owner: str | None) -> None:
    e = refused(NameCollision, plan(pool=None), live(vm("vsa-2", owner=owner, host="host-2")))
    assert e.names == ["vsa-2"] and e.field == "fleet"
    assert str(e) == "names taken by VMs this deployment does not own: vsa-2"
    e = refused(NameCollision, plan(), live(vm("vsa-2", owner=owner, host="host-2")))
    assert e.field == "pool.naming"  # with a pool every collision is put on pool.naming, an appliance's too
    check(plan(), live(vm("vsa-2", host="host-2")))  # ours


def test_a_missing_network_or_fleet_datastore_is_refused_on_its_field() -> None:
    e = refused(PlacementNotFound, plan(fleet={"network": "gone"}), live())
    assert str(e) == "no network 'gone'" and e.field == "fleet.network"
    e = refused(PlacementNotFound, plan(fleet={"datastore": "gone"}), live())
    assert str(e) == "no datastore 'gone'" and e.field == "fleet.datastore"


def test_the_port_group_is_looked_for_on_every_host_with_figures() -> None:
    state = live()
    state.host_stats["esx2"].networks = {"network-2"}
    e = refused(PlacementNotFound, plan(), state)
    assert e.field == "fleet.network" and str(e).startswith("host 'esx2' has no port group 'vsa': add it")
    del state.host_stats["esx2"]  # vCenter gives no figures for it: nothing to look at
    check(plan(), state)


# --- room on the appliances' hosts --------------------------------------------------------------------------


def test_an_appliance_is_weighed_on_the_host_it_goes_on() -> None:
    small = 8 * 1024 * MIB
    state = live()
    state.host_stats["esx2"].memory_used_bytes = 128 * GIB - small
    check(plan(), state)
    state.host_stats["esx2"].memory_used_bytes += 1
    e = refused(InsufficientResources, plan(), state)
    assert e.field == "fleet.appliances.1.host"
    assert str(e) == (
        "vsa-2 (Small (2 vCPU, 8 GiB RAM)) needs 8.0 GiB of memory; host 'esx2' has 8.0 GiB free of 128.0 GiB: "
        "choose another host or a smaller size, or free memory on it before the appliance can go on it"
    )


def test_the_cpu_checks_of_an_appliance_name_the_numbers() -> None:
    state = live()
    state.host_stats["esx1"] = host("host-1", cpu_threads=1)
    e = refused(InsufficientResources, plan(), state)
    assert str(e) == (
        "vsa-1 (Small (2 vCPU, 8 GiB RAM)) has 2 vCPUs; host 'esx1' has 1 logical CPUs: choose a smaller size "
        "or another host"
    )
    state.host_stats["esx1"] = host("host-1", cpu_threads=2)
    check(plan(), state)
    state.host_stats["esx1"] = host("host-1", cpu_cores=4, cpu_used_mhz=4 * 2000 - 2 * 2000)
    check(plan(), state)
    state.host_stats["esx1"] = host("host-1", cpu_cores=4, cpu_used_mhz=4 * 2000 - 2 * 2000 + 1)
    e = refused(InsufficientResources, plan(), state)
    assert str(e) == (
        "vsa-1 (Small (2 vCPU, 8 GiB RAM)) needs 4000 MHz (2 cores at 2000 MHz); host 'esx1' has 3999 MHz free "
        "of 8000 MHz: choose another host or a smaller size"
    )
    assert e.field == "fleet.appliances.0.host"


def test_a_vm_to_move_is_weighed_by_its_own_size() -> None:
    moving = vm("vsa-2", host="host-1", memory_mb=4096, vcpus=3)
    state = live(moving)
    state.host_stats["esx2"] = host("host-2", memory_used_bytes=128 * GIB - 4 * GIB, cpu_threads=3)
    check(plan(), state)
    state.host_stats["esx2"].cpu_threads = 2
    e = refused(InsufficientResources, plan(), state)
    assert str(e).startswith("vsa-2 (3 vCPU, 4 GiB RAM) has 3 vCPUs")
    state.host_stats["esx2"] = host("host-2", memory_used_bytes=128 * GIB - 4 * GIB + 1)
    e = refused(InsufficientResources, plan(), state)
    assert str(e).startswith("vsa-2 (3 vCPU, 4 GiB RAM) needs 4.0 GiB") and "can move to it" in str(e)
    unknown = vm("vsa-2", host="host-1")  # no figures read: weighed as the plan's size
    state = live(unknown)
    state.host_stats["esx2"] = host("host-2", memory_used_bytes=128 * GIB - 4 * GIB)
    assert str(refused(InsufficientResources, plan(), state)).startswith("vsa-2 (Small (2 vCPU, 8 GiB RAM))")


def test_an_appliance_in_place_is_not_weighed_and_a_host_without_figures_is_not_weighed() -> None:
    state = live(vm("vsa-2", host="host-2"))
    state.host_stats["esx2"] = host("host-2", memory_used_bytes=128 * GIB, connected=False)
    check(plan(), state)
    state = live()
    del state.host_stats["esx2"]
    check(plan(), state)


@pytest.mark.parametrize(
    ("state", "words"),
    [({"in_maintenance": True}, "in maintenance mode"), ({"connected": False}, "not connected"),
     ({"connected": False, "in_maintenance": True}, "in maintenance mode")],
)  # fmt: skip
def test_a_host_that_cannot_take_an_appliance_says_why(state: dict[str, bool], words: str) -> None:
    s = live()
    s.host_stats["esx2"] = host("host-2", **state)
    e = refused(PlanError, plan(), s)
    assert str(e) == f"host 'esx2' is {words}: choose another host or bring it back"
    assert e.field == "fleet.appliances.1.host"


# --- the NFS datastore --------------------------------------------------------------------------------------


@pytest.mark.parametrize("owner", ["other", None])
def test_an_nfs_datastore_of_that_name_we_do_not_own_is_a_collision(owner: str | None) -> None:
    state = live()
    state.datastores["arc"].owner = owner
    e = refused(NameCollision, plan(), state)
    assert e.names == ["arc"] and e.field == "nfs.name"
    assert str(e) == "datastore 'arc' exists and is not arcvsa's"


def test_a_new_nfs_datastore_is_no_collision() -> None:
    state = live()
    del state.datastores["arc"]
    check(plan(pool={"datastore": "san"}), state)


@pytest.mark.parametrize(
    ("version", "mounted", "ok"),
    [("4.1", "NFS41", True), ("3", "NFS", True), ("3", "NFS41", False), ("4.1", "NFS", False),
     ("3", "", True), ("4.1", "", True)],
)  # fmt: skip
def test_the_nfs_version_must_be_the_one_mounted(version: str, mounted: str, ok: bool) -> None:
    state = live()
    state.datastores["arc"].type = mounted
    p = plan(nfs={"version": version})
    if ok:
        check(p, state)
        return
    e = refused(PlanError, p, state)
    wanted = "NFS" if version == "3" else "NFS41"
    assert e.field == "nfs.version"
    assert str(e) == (
        f"datastore 'arc' is mounted as {mounted}; the plan says {wanted}: destroy it first to change the version"
    )


# --- the pool: golden VM, snapshot, datastore, names --------------------------------------------------------


def test_a_missing_golden_vm_is_refused_on_its_field() -> None:
    e = refused(PlacementNotFound, plan(pool={"golden_vm": "gone"}), live())
    assert str(e) == "no golden VM 'gone'" and e.field == "pool.golden_vm"


def test_a_missing_snapshot_names_the_ones_there_are() -> None:
    e = refused(SnapshotMissing, plan(pool={"snapshot": "v9"}), live())
    assert str(e) == "golden VM 'golden' has no snapshot 'v9' (it has: base)"
    state = live()
    state.vms["golden"] = [golden(snapshots={"v2": "s-2", "a1": "s-3"})]
    assert str(refused(SnapshotMissing, plan(), state)).endswith("(it has: a1, v2)")
    state.vms["golden"] = [golden(snapshots={})]
    assert str(refused(SnapshotMissing, plan(), state)).endswith("(it has: none)")


def test_a_missing_pool_datastore_is_refused_unless_the_plan_makes_it() -> None:
    e = refused(PlacementNotFound, plan(pool={"datastore": "gone"}), live())
    assert str(e) == "no datastore 'gone'" and e.field == "pool.datastore"
    state = live()
    del state.datastores["arc"]
    check(plan(), state)  # the plan's own NFS datastore: made before the pool
    refused(PlacementNotFound, plan(nfs=None), state)
    refused(PlacementNotFound, plan(nfs={"name": "arc2"}), state)


@pytest.mark.parametrize("owner", ["other", None])
def test_a_desktop_name_held_by_a_vm_we_do_not_own_is_a_collision(owner: str | None) -> None:
    e = refused(NameCollision, plan(), live(vm("d-03", owner=owner)))
    assert e.names == ["d-03"] and e.field == "pool.naming"
    check(plan(), live(vm("d-03", source="golden@base")))


def test_collisions_are_all_named_and_the_message_shows_five() -> None:
    five = [vm(f"d-0{i}", owner="other") for i in range(1, 6)]
    e = refused(NameCollision, plan(pool={"count": 7}), live(*five))
    assert str(e) == "names taken by VMs this deployment does not own: d-01, d-02, d-03, d-04, d-05"
    six = [vm(f"d-0{i}", owner="other") for i in range(1, 7)]
    e = refused(NameCollision, plan(pool={"count": 7}), live(*six))
    assert (
        str(e) == "names taken by VMs this deployment does not own: d-01, d-02, d-03, d-04, d-05 and 1 more"
    )
    seven = [vm(f"d-0{i}", owner="other") for i in range(1, 8)]
    e = refused(NameCollision, plan(pool={"count": 7}), live(*seven))
    assert e.names == [f"d-0{i}" for i in range(1, 8)]
    assert (
        str(e) == "names taken by VMs this deployment does not own: d-01, d-02, d-03, d-04, d-05 and 2 more"
    )


def test_appliance_and_desktop_collisions_are_reported_together() -> None:
    e = refused(
        NameCollision, plan(), live(vm("vsa-1", owner="other", host="host-1"), vm("d-02", owner=None))
    )
    assert e.names == ["vsa-1", "d-02"] and e.field == "pool.naming"


# --- the pool: space and memory -----------------------------------------------------------------------------


LINKED = 1024 * MIB + 2 * GIB  # a desktop's memory (its swap file) and its linked clone's expected growth


def test_exactly_enough_space_is_accepted_one_byte_less_is_refused() -> None:
    check(plan(), live(arc_free=4 * LINKED))
    e = refused(InsufficientSpace, plan(), live(arc_free=4 * LINKED - 1))
    assert str(e) == "4 new desktops need 12.0 GiB on 'arc', which has 12.0 GiB free: at most 3 fit"


def test_only_the_desktops_still_to_make_need_space() -> None:
    made = [vm("d-01", source="golden@base"), vm("d-02", source="golden@base")]
    check(plan(), live(*made, arc_free=2 * LINKED))
    e = refused(InsufficientSpace, plan(), live(*made, arc_free=2 * LINKED - 1))
    assert str(e).startswith("2 new desktops need 6.0 GiB") and str(e).endswith("at most 1 fit")


def test_a_linked_clone_needs_its_delta_in_gib() -> None:
    per = 1024 * MIB + int(0.5 * GIB)
    check(plan(pool={"delta_gb": 0.5}), live(arc_free=4 * per))
    refused(InsufficientSpace, plan(pool={"delta_gb": 0.5}), live(arc_free=4 * per - 1))
    check(plan(pool={"delta_gb": 10}), live(arc_free=4 * (1024 * MIB + 10 * GIB)))
    e = refused(
        InsufficientSpace, plan(pool={"delta_gb": 10}), live(arc_free=4 * (1024 * MIB + 10 * GIB) - 1)
    )
    assert str(e) == "4 new desktops need 44.0 GiB on 'arc', which has 44.0 GiB free: at most 3 fit"


def test_a_full_clone_needs_the_goldens_committed_size_or_its_disks_whichever_is_more() -> None:
    p = plan(pool={"clone": "full"})
    per = 1024 * MIB + 40 * GIB  # one 40 GiB disk, nothing committed
    check(p, live(arc_free=4 * per))
    refused(InsufficientSpace, p, live(arc_free=4 * per - 1))
    state = live(arc_free=4 * (1024 * MIB + 50 * GIB))
    state.vms["golden"] = [golden(disks=[(0, 30 * GIB), (1, 20 * GIB)], committed_bytes=10 * GIB)]
    check(p, state)
    state.datastores["arc"].free_bytes -= 1
    refused(InsufficientSpace, p, state)
    state = live(arc_free=4 * (1024 * MIB + 60 * GIB))
    state.vms["golden"] = [golden(disks=[(0, 30 * GIB), (1, 20 * GIB)], committed_bytes=60 * GIB)]
    check(p, state)
    state.datastores["arc"].free_bytes -= 1
    refused(InsufficientSpace, p, state)


def test_a_zfs_clone_needs_only_its_delta() -> None:
    p = plan(pool={"clone": "full", "full_copy": "zfs"})
    check(p, live(arc_free=4 * LINKED))
    refused(InsufficientSpace, p, live(arc_free=4 * LINKED - 1))


def test_cluster_memory_at_the_overcommit_is_the_limit() -> None:
    # 64 GiB at 4x: 256 GiB of desktop memory, every desktop counted (made or not)
    check(plan(pool={"count": 256}), live(*[vm(f"d-{i:02}", source="golden@base") for i in range(1, 200)]))
    e = refused(InsufficientResources, plan(pool={"count": 257}), live())
    assert (
        str(e)
        == "257 desktops of 1024 MiB need 257 GiB of memory; cluster 'c' allows 256 GiB at 4x overcommit"
    )
    check(plan(pool={"count": 96, "memory_overcommit": 1.5}), live())
    e = refused(InsufficientResources, plan(pool={"count": 97, "memory_overcommit": 1.5}), live())
    assert str(e).endswith("allows 96 GiB at 1.5x overcommit")
    state = live(arc_free=10_000 * GIB)
    state.cluster_memory_bytes = 100 * GIB  # 1000 GiB at 10x
    check(plan(pool={"count": 1000, "memory_overcommit": 10}), state)
    refused(InsufficientResources, plan(pool={"count": 1001, "memory_overcommit": 10}), state)


def test_a_shortfall_of_space_is_refused_before_one_of_memory() -> None:
    refused(InsufficientSpace, plan(pool={"count": 300}), live(arc_free=GIB))


# --- ZFS copies ---------------------------------------------------------------------------------------------


def test_zfs_copies_refuse_each_missing_part() -> None:
    zfs = {"clone": "full", "full_copy": "zfs"}
    e = refused(PlanError, plan(pool={**zfs, "clone": "linked"}), live())
    assert e.field == "pool.full_copy" and "set pool.clone to 'full'" in str(e)
    for p in (plan(fleet=None, pool=zfs), plan(nfs=None, pool={**zfs, "datastore": "san"}),
              plan(pool={**zfs, "datastore": "san"})):  # fmt: skip
        e = refused(PlanError, p, live())
        assert e.field == "pool.full_copy" and "the pool's datastore must be that NFS datastore" in str(e)
    state = live()
    state.vms["golden"] = [golden(vm_path="[san] golden/golden.vmx")]
    e = refused(PlanError, plan(pool=zfs), state)
    assert e.field == "pool.golden_vm"


@pytest.mark.parametrize(
    ("path", "parts"),
    [("[arc 1] my golden/win 11.vmx", ("arc 1", "my golden", "win 11.vmx")), ("[a] b/c.vmx", ("a", "b", "c.vmx")),
     ("[arc] golden/golden_vmx", ("", "", "")), ("[] golden/golden.vmx", ("", "", "")),
     ("[arc] /golden.vmx", ("", "", "")), ("[arc] golden/.vmx", ("", "", "")),
     ("[arc] golden/golden.vmx.bak", ("", "", "")), ("x[arc] golden/golden.vmx", ("", "", ""))],
)  # fmt: skip
def test_the_golden_folder_is_read_from_a_vmx_path_one_level_down(
    path: str, parts: tuple[str, str, str]
) -> None:
    assert golden_folder(path) == parts


def test_zfs_copies_refuse_a_shrink_or_a_recompose_and_name_the_desktops() -> None:
    zfs = {"clone": "full", "full_copy": "zfs", "count": 2}
    made = [vm(f"d-0{i}", source="golden@base") for i in (1, 2, 3, 4)]
    e = refused(PlanError, plan(pool=zfs), live(*made))
    assert e.field == "pool.count"
    assert "(2 desktops would go, e.g. d-03)" in str(e)
    check(plan(pool=zfs), live(*made[:2], vm("d-03", owner="other"), vm("e-01")))  # not ours, not the pattern
    state = live(made[0], vm("d-02", source="golden@old"), vm("d-03", owner="other", source="golden@old"))
    e = refused(PlanError, plan(pool=zfs), state)
    assert e.field == "pool.snapshot" and "(1 desktops come from another snapshot, e.g. d-02)" in str(e)
    refused(PlanError, plan(pool=zfs), live(*made, vm("d-02", source="golden@old")))  # shrink is named first


# --- diff ---------------------------------------------------------------------------------------------------


def actions(d: Diff) -> list[tuple[str, str, str, str | None]]:
    return [(a.op, a.kind, a.name, a.host) for a in d.actions]


def test_the_diff_of_an_empty_datacenter_makes_everything_in_order() -> None:
    d = diff(plan(), live())
    assert actions(d) == [
        ("create", "appliance", "vsa-1", "esx1"),
        ("create", "disk", "vsa-1/#0", "esx1"),
        ("create", "storage", "vsa-1", "esx1"),
        ("create", "appliance", "vsa-2", "esx2"),
        ("create", "storage", "vsa-2", "esx2"),
        ("create", "nfs_mount", "arc", "esx2"),
        ("create", "folder", "vdi/pool-a", None),
        ("create", "desktop", "d-01", None),
        ("create", "desktop", "d-02", None),
        ("create", "desktop", "d-03", None),
        ("create", "desktop", "d-04", None),
    ]
    assert d.unchanged == 1  # the NFS mount on esx1
    assert d.actions[0].detail == "OVA, small"
    assert d.actions[1].detail == "10 GiB on san"
    assert d.actions[2].detail == (
        "pool tank on 1 LUN disks, dataset tank/vdi (stateless-linked), NFS 4.1 export to 10.0.0.11, 10.0.0.12"
    )
    assert d.actions[5].detail == "NFS 4.1 10.0.0.21:/tank/vdi"
    assert d.actions[7].detail == "linked clone of golden@base"
    assert d.counts() == {"create appliance": 2, "create disk": 1, "create storage": 2, "create nfs_mount": 1,
                          "create folder": 1, "create desktop": 4}  # fmt: skip


def test_a_storage_action_with_no_client_exports_to_nobody() -> None:
    state = live()
    state.host_addresses = {}
    (storage, _) = diff(plan(), state).of("storage")
    assert storage.detail.endswith("NFS 4.1 export to nobody")
    assert diff(plan(nfs=None), live()).of("storage") == []


def test_disks_beyond_the_boot_disk_count_as_made() -> None:
    two = appliance(0, disks=[{"datastore": "san", "size_gb": 10}, {"datastore": "san", "size_gb": 20}])
    state = live(vm("vsa-1", host="host-1", disks=[(0, 8 * GIB), (1, 10 * GIB)]))
    assert [(a.name, a.detail) for a in diff(plan(fleet=two), state).of("disk")] == [
        ("vsa-1/#1", "20 GiB on san")
    ]
    state.vms["vsa-1"] = [vm("vsa-1", host="host-1", disks=[(0, 8 * GIB)])]
    assert [a.name for a in diff(plan(fleet=two), state).of("disk")] == ["vsa-1/#0", "vsa-1/#1"]
    state.vms["vsa-1"] = [vm("vsa-1", host="host-1", disks=[(0, 8 * GIB), (1, 1), (2, 1)])]
    assert diff(plan(fleet=two), state).of("disk") == []


def test_an_appliance_in_place_is_unchanged_a_stopped_one_is_powered_on() -> None:
    mark = "tank/vdi NFS 4.1 to 10.0.0.11,10.0.0.12"
    state = live(
        vm("vsa-1", host="host-1", storage=mark, disks=[(0, 1), (1, 1)]),
        vm("vsa-2", host="host-2", storage=mark),
    )
    d = diff(plan(pool=None), state)
    assert actions(d) == [("create", "nfs_mount", "arc", "esx2")] and d.unchanged == 3
    state.vms["vsa-2"][0].power_state = "poweredOff"
    assert actions(diff(plan(pool=None), state))[0] == ("power_on", "appliance", "vsa-2", "esx2")
    state.vms["vsa-2"][0].host = "host-1"
    assert [a.op for a in diff(plan(pool=None), state).of("appliance")] == ["move", "power_on"]
    assert diff(plan(pool=None), state).unchanged == 2


@pytest.mark.parametrize(
    ("now", "words"),
    [("host-1", "vMotion from esx1 to esx2"), ("host-9", "vMotion from lone (outside the cluster) to esx2"),
     ("host-7", "vMotion from host-7 (outside the cluster) to esx2"),
     (None, "vMotion from no host (outside the cluster) to esx2")],
)  # fmt: skip
def test_an_appliance_elsewhere_is_moved_to_its_host(now: str | None, words: str) -> None:
    (move,) = diff(plan(pool=None, nfs=None), live(vm("vsa-2", host=now))).of("appliance", "move")
    assert (move.name, move.host) == ("vsa-2", "esx2")
    assert move.detail == f"{words}: an appliance serves the host it runs on"


def test_the_storage_action_names_the_slog_and_l2arc_ssds() -> None:
    ssd = {"datastore": "san", "size_gb": 16}
    disks = [{"datastore": "san", "size_gb": 10}, {**ssd, "role": "log"}, {**ssd, "role": "cache"},
             {"datastore": "san", "size_gb": 20}]  # fmt: skip
    (storage, _) = diff(plan(fleet=appliance(0, disks=disks), pool=None), live()).of("storage")
    assert storage.detail.startswith(
        "pool tank on 2 LUN disks, SLOG on 1 SSD, L2ARC on 1 SSD, dataset tank/vdi"
    )
    assert "(generic)" in storage.detail


def test_every_cluster_host_gets_the_mount_in_name_order() -> None:
    state = live()
    state.datastores["arc"].hosts = set()
    state.cluster_hosts = {"esx2": "host-2", "esx1": "host-1"}
    d = diff(plan(fleet=None, pool=None), state)
    assert actions(d) == [("create", "nfs_mount", "arc", "esx1"), ("create", "nfs_mount", "arc", "esx2")]
    assert d.unchanged == 0
    del state.datastores["arc"]
    assert len(diff(plan(fleet=None, pool=None), state).actions) == 2
    state.datastores["arc"] = live().datastores["arc"]
    state.datastores["arc"].hosts = {"host-1", "host-2"}
    assert diff(plan(fleet=None, pool=None), state) == Diff(actions=[], unchanged=2)


def test_the_pool_makes_each_missing_folder_level_and_its_resource_pool() -> None:
    state = live()
    state.folders = {}
    p = plan(fleet=None, nfs=None, pool={"folder": "a/b/c", "resource_pool": "rp", "count": 1})
    assert actions(diff(p, state))[:4] == [
        ("create", "folder", "a", None), ("create", "folder", "a/b", None), ("create", "folder", "a/b/c", None),
        ("create", "resource_pool", "rp", None),
    ]  # fmt: skip
    state.folders = {"a": "group-3", "a/b/c": "group-4"}
    state.pools = {"rp": "resgroup-2"}
    assert [a.name for a in diff(p, state).of("folder")] == ["a/b"]
    assert diff(p, state).of("resource_pool") == []


def test_the_pool_replaces_recomposed_desktops_and_powers_on_only_ours() -> None:
    state = live(
        vm("d-01", source="golden@old"),
        vm("d-02", source="golden@base", power_state="poweredOff"),
        vm("d-03", owner="other", source="golden@old", power_state="poweredOff"),
        vm("d-04", source="golden@base"),
    )
    d = diff(plan(fleet=None, nfs=None), state)
    assert [(a.op, a.name, a.detail) for a in d.of("desktop")] == [
        ("replace", "d-01", "recompose golden@old -> golden@base"),
        ("power_on", "d-02", ""),
    ]
    assert d.unchanged == 2  # d-02 and d-04: ours, from the planned snapshot
    d = diff(plan(fleet=None, nfs=None, pool={"power_on": False}), state)
    assert [(a.op, a.name) for a in d.of("desktop")] == [("replace", "d-01")]


def test_a_shrink_deletes_only_our_desktops_of_the_pattern_and_reports_the_rest_as_orphans() -> None:
    state = live(
        vm("d-03", source="golden@base"),
        vm("d-09", source="golden@base"),
        vm("d-10", owner="other", source="golden@base"),
        vm("e-01", source="golden@base"),  # ours, another naming
        vm("f-01", owner="other", source="golden@base"),
        vm("vsa-9", host="host-9"),  # an appliance we made, of a host no longer planned
    )
    state.vms["d-09"].append(vm("d-09", owner="other", source="golden@base"))
    d = diff(plan(pool={"count": 2}), state)
    assert [(a.op, a.name) for a in d.of("desktop")] == [
        ("create", "d-01"), ("create", "d-02"), ("delete", "d-03"), ("delete", "d-09"), ("orphan", "e-01"),
    ]  # fmt: skip
    assert d.of("desktop", "delete")[0].detail == "shrink"
    (gone,) = d.of("appliance", "orphan")
    assert (gone.name, gone.host) == ("vsa-9", "lone")
    assert (
        gone.detail
        == "made by this deployment, no longer in its plan (poweredOn): apply keeps it, destroy removes it"
    )
    assert [a.op for a in d.to_make().actions].count("orphan") == 0
    assert d.to_make().unchanged == d.unchanged


def test_orphans_never_include_the_golden_vm_or_a_plan_without_a_pool() -> None:
    state = live(vm("vsa-1", host="host-1"), vm("d-01", source="golden@base"))
    state.vms["golden"][0].owner = "dep"
    assert orphans(plan(), state) == []
    assert [(a.kind, a.name) for a in orphans(plan(pool=None), state)] == [
        ("desktop", "d-01"),
        ("appliance", "golden"),
    ]
    assert [(a.kind, a.name, a.host) for a in orphans(plan(fleet=None, pool=None), state)] == [
        ("desktop", "d-01", None), ("appliance", "golden", None), ("appliance", "vsa-1", "esx1"),
    ]  # fmt: skip


def test_diff_of_and_counts() -> None:
    d = Diff(
        actions=[Action(op="create", kind="desktop", name="a"), Action(op="delete", kind="desktop", name="b"),
                 Action(op="create", kind="folder", name="f"), Action(op="create", kind="horizon_pool", name="h")],
        unchanged=0,
    )  # fmt: skip
    assert [a.name for a in d.of("desktop")] == ["a", "b"]
    assert [a.name for a in d.of("desktop", "delete", "replace")] == ["b"]
    assert d.counts() == {
        "create desktop": 1,
        "delete desktop": 1,
        "create folder": 1,
        "create horizon_pool": 1,
    }


# --- teardown -----------------------------------------------------------------------------------------------


def test_teardown_removes_only_what_the_owner_made_deepest_folder_first() -> None:
    state = live(
        vm("d-02", source="golden@base"), vm("d-01", source="golden@base"), vm("vsa-1", host="host-1"),
        vm("x-1", owner="other", source="golden@base"), vm("vsa-x", owner="other", host="host-2"),
    )  # fmt: skip
    state.vms["d-01"].append(vm("d-01", owner="other", source="golden@base"))
    state.datastores["arc"].hosts = {"host-2", "host-1", "host-7"}
    state.datastores["other"] = LiveDatastore("datastore-9", "other", "NFS", 1, 1, "other", {"host-1"})
    state.pools = {"rp-b": "resgroup-3", "rp-a": "resgroup-2", "rp-x": "resgroup-4", "rp-n": "resgroup-5"}
    state.pool_owners = {"resgroup-2": "dep", "resgroup-3": "dep", "resgroup-4": "other", "resgroup-5": None}
    state.folders = {
        "vdi": "group-2",
        "vdi/a/b": "group-4",
        "vdi/a": "group-3",
        "x": "group-5",
        "x/y": "group-6",
    }
    state.folder_owners = {
        "group-2": "dep",
        "group-3": "dep",
        "group-4": "dep",
        "group-5": "other",
        "group-6": None,
    }
    d = teardown("dep", state)
    assert actions(d) == [
        ("delete", "desktop", "d-01", None),
        ("delete", "desktop", "d-02", None),
        ("delete", "nfs_mount", "arc", "esx1"),
        ("delete", "nfs_mount", "arc", "esx2"),
        ("delete", "nfs_mount", "arc", "host-7"),  # a host no longer in the datacenter: by its id
        ("delete", "appliance", "vsa-1", None),
        ("delete", "resource_pool", "rp-a", None),
        ("delete", "resource_pool", "rp-b", None),
        ("delete", "folder", "vdi/a/b", None),
        ("delete", "folder", "vdi/a", None),
        ("delete", "folder", "vdi", None),
    ]
    assert d.unchanged == 0
    assert teardown("nobody", live()).actions == []
