"""Parent chains and the RawObject -> Inventory conversion, on hand-made data (no server)."""

from __future__ import annotations

import datetime as dt
import logging
from types import SimpleNamespace
from typing import Any

import pytest
from pyVmomi import vim

from provisioning.inventory import (
    UPLINK_TAG,
    About,
    RawObject,
    build_inventory,
    find_ancestor,
    plain_value,
    snapshot_from_tree,
)

ABOUT = About(
    name="VMware vCenter Server", version="8.0.3", build="1", api_type="VirtualCenter", instance_uuid="u"
)


def obj(moid: str, kind: str, parent: str | None = None, **props: Any) -> RawObject:
    return RawObject(moid=moid, kind=kind, props={"name": moid.upper(), "parent": parent, **props})


def site() -> list[RawObject]:
    """dc-1 with a cluster of two hosts, a standalone host, a pod, a vApp VM and an orphan."""
    return [
        obj("root", "Folder"),
        obj("dc-1", "Datacenter", "root"),
        obj("hostf", "Folder", "dc-1"),
        obj("sub", "Folder", "hostf"),  # clusters may sit in sub-folders
        obj(
            "c-1",
            "ClusterComputeResource",
            "sub",
            configurationEx=SimpleNamespace(
                drsConfig=SimpleNamespace(enabled=True), dasConfig=SimpleNamespace(enabled=False)
            ),
        ),
        obj(
            "h-1",
            "HostSystem",
            "c-1",
            datastore=["ds-1"],
            network=["pg-1"],
            **{
                "summary.hardware.numCpuCores": 8,
                "summary.hardware.cpuMhz": 2000,
                "summary.quickStats.overallCpuUsage": 1500,
                "summary.hardware.memorySize": 64 << 30,
                "summary.quickStats.overallMemoryUsage": 2048,
                "runtime.connectionState": "connected",
                "runtime.powerState": "poweredOn",
                "runtime.inMaintenanceMode": False,
                "summary.config.product.version": "8.0.3",
            },
        ),
        obj("h-2", "HostSystem", "c-1", datastore=["ds-1", "ds-2"], **{"runtime.inMaintenanceMode": True}),
        obj("cr-9", "ComputeResource", "hostf"),
        obj("h-9", "HostSystem", "cr-9"),
        obj("dsf", "Folder", "dc-1"),
        obj("pod", "StoragePod", "dsf"),
        obj(
            "ds-1",
            "Datastore",
            "pod",
            host=["h-1"],
            **{
                "summary.type": "VMFS",
                "summary.capacity": 100,
                "summary.freeSpace": 40,
                "summary.accessible": True,
                "summary.url": "ds:///vmfs/volumes/1/",
            },
        ),
        obj("ds-2", "Datastore", "dsf", host=[]),
        obj("netf", "Folder", "dc-1"),
        obj("pg-1", "DistributedVirtualPortgroup", "netf", tag=[]),
        obj("uplinks", "DistributedVirtualPortgroup", "netf", tag=[UPLINK_TAG]),
        obj("net-1", "Network", "netf"),
        obj("vmf", "Folder", "dc-1"),
        obj(
            "vm-1",
            "VirtualMachine",
            "vmf",
            datastore=["ds-1"],
            **{
                "summary.runtime.host": "h-1",
                "summary.runtime.powerState": "poweredOff",
                "summary.config.template": True,
                "summary.config.numCpu": 2,
                "summary.config.memorySizeMB": 4096,
                "summary.config.guestFullName": "Microsoft Windows 11 (64-bit)",
            },
        ),
        obj("vm-vapp", "VirtualMachine", None, **{"summary.runtime.host": "h-2"}),
        obj("vm-lost", "VirtualMachine", "gone"),
    ]


def test_ancestor_is_found_through_any_number_of_folders() -> None:
    objects = {o.moid: o for o in site()}
    assert find_ancestor("c-1", objects, ("Datacenter",)) == "dc-1"
    assert find_ancestor("h-1", objects, ("ClusterComputeResource",)) == "c-1"
    assert find_ancestor("ds-1", objects, ("Datacenter",)) == "dc-1"
    assert find_ancestor("h-9", objects, ("ClusterComputeResource",)) is None
    assert find_ancestor("dc-1", objects, ("Datacenter",)) is None  # an object is not its own ancestor


def test_ancestor_search_survives_broken_chains() -> None:
    cycle = {"a": obj("a", "Folder", "b"), "b": obj("b", "Folder", "a")}
    assert find_ancestor("a", cycle, ("Datacenter",)) is None
    assert find_ancestor("x", cycle, ("Datacenter",)) is None
    long_chain = {f"f{i}": obj(f"f{i}", "Folder", f"f{i + 1}") for i in range(200)}
    long_chain["f200"] = obj("f200", "Datacenter")
    assert find_ancestor("f0", long_chain, ("Datacenter",)) is None  # deeper than any real inventory


def test_clusters_and_hosts_are_placed_by_their_parents() -> None:
    inv = build_inventory(ABOUT, site())
    assert [(c.moid, c.datacenter, c.drs_enabled, c.ha_enabled) for c in inv.clusters] == [
        ("c-1", "dc-1", True, False)
    ]
    placed = {h.moid: (h.datacenter, h.cluster) for h in inv.hosts}
    assert placed == {"h-1": ("dc-1", "c-1"), "h-2": ("dc-1", "c-1"), "h-9": ("dc-1", None)}


def test_host_figures_are_converted_to_the_model_units() -> None:
    h1 = next(h for h in build_inventory(ABOUT, site()).hosts if h.moid == "h-1")
    assert (h1.cpu_cores, h1.cpu_mhz_total, h1.cpu_mhz_used) == (8, 16000, 1500)
    assert (h1.memory_bytes, h1.memory_used_bytes) == (64 << 30, 2048 << 20)
    assert (h1.connection_state, h1.power_state, h1.version) == ("connected", "poweredOn", "8.0.3")
    assert (h1.datastores, h1.networks) == (["ds-1"], ["pg-1"])


def test_datastore_mounts_are_the_union_of_both_sides() -> None:
    by_id = {d.moid: d for d in build_inventory(ABOUT, site()).datastores}
    assert by_id["ds-1"].hosts == ["h-1", "h-2"]  # h-2 only lists it in HostSystem.datastore
    assert by_id["ds-2"].hosts == ["h-2"]
    assert by_id["ds-1"].datacenter == "dc-1"  # through the storage pod
    assert (by_id["ds-1"].type, by_id["ds-1"].capacity_bytes, by_id["ds-1"].free_bytes) == ("VMFS", 100, 40)


def test_uplink_port_groups_are_not_offered_as_networks() -> None:
    networks = {(n.moid, n.kind) for n in build_inventory(ABOUT, site()).networks}
    assert networks == {("pg-1", "DistributedVirtualPortgroup"), ("net-1", "Network")}


def test_vms_are_placed_by_folder_or_host_and_orphans_are_left_out(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="provisioning.inventory"):
        vms = {v.moid: v for v in build_inventory(ABOUT, site()).vms}
    assert set(vms) == {"vm-1", "vm-vapp"}
    assert vms["vm-vapp"].datacenter == "dc-1"
    assert "vm-lost" in caplog.text
    vm1 = vms["vm-1"]
    assert (vm1.template, vm1.power_state, vm1.num_cpu, vm1.memory_mb) == (True, "poweredOff", 2, 4096)
    assert vm1.guest_os == "Microsoft Windows 11 (64-bit)"
    assert vm1.host == "h-1" and vm1.datastores == ["ds-1"] and vm1.snapshots == []


def test_lists_are_sorted_by_name() -> None:
    raw = [obj("root", "Folder"), obj("dc-b", "Datacenter", "root"), obj("dc-a", "Datacenter", "root")]
    assert [d.moid for d in build_inventory(ABOUT, raw).datacenters] == ["dc-a", "dc-b"]


def test_snapshot_trees_keep_their_shape() -> None:
    created = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    tree = vim.vm.SnapshotTree(
        snapshot=vim.vm.Snapshot("snapshot-1"),
        name="base",
        description="sealed",
        createTime=created,
        childSnapshotList=[
            vim.vm.SnapshotTree(snapshot=vim.vm.Snapshot("snapshot-2"), name="patched", createTime=created)
        ],
    )
    snap = snapshot_from_tree(tree)
    assert (snap.moid, snap.name, snap.description, snap.created) == (
        "snapshot-1",
        "base",
        "sealed",
        "2026-01-02T03:04:05+00:00",
    )
    assert [(c.moid, c.name, c.description, c.children) for c in snap.children] == [
        ("snapshot-2", "patched", "", [])
    ]


def test_references_are_reduced_to_moids_without_server_calls() -> None:
    # No stub: any property fetch on these objects would raise.
    assert plain_value("parent", vim.Folder("group-d1")) == "group-d1"
    assert plain_value("datastore", [vim.Datastore("ds-1"), vim.Datastore("ds-2")]) == ["ds-1", "ds-2"]
    mount = vim.Datastore.HostMount
    info = vim.host.MountInfo
    value = [
        mount(key=vim.HostSystem("host-1"), mountInfo=info(mounted=True)),
        mount(key=vim.HostSystem("host-2"), mountInfo=info(mounted=False)),
        mount(key=vim.HostSystem("host-3"), mountInfo=info()),
    ]
    assert plain_value("host", value) == ["host-1", "host-3"]
    assert plain_value("tag", [vim.Tag(key=UPLINK_TAG)]) == [UPLINK_TAG]
    assert plain_value("summary.capacity", 5) == 5


# --- SCSI LUNs ------------------------------------------------------------------------------------------

FC_VMFS, FC_FREE, ISCSI_FREE, LOCAL = (
    "naa.600a0b80001234560000abcd00000001",
    "naa.600a0b80001234560000abcd00000002",
    "eui.0123456789abcdef",
    "mpx.vmhba0:C0:T0:L0",
)


def _disk(name: str, gib: int, **extra: Any) -> Any:
    return vim.host.ScsiDisk(
        key=f"key-{name}",
        canonicalName=name,
        displayName=f"Disk ({name})",
        vendor="NETAPP  ",
        model="LUN C-Mode      ",
        lunType="disk",
        capacity=vim.host.DiskDimensions.Lba(block=gib * 2097152, blockSize=512),
        **extra,
    )


def _topology(*adapters: tuple[str, list[str]]) -> Any:
    return vim.host.ScsiTopology(
        adapter=[
            vim.host.ScsiTopology.Interface(
                adapter=key,
                target=[
                    vim.host.ScsiTopology.Target(
                        target=0,
                        lun=[
                            vim.host.ScsiTopology.Lun(lun=i, scsiLun=f"key-{n}") for i, n in enumerate(luns)
                        ],
                    )
                ],
            )
            for key, luns in adapters
        ]
    )


def _vmfs_mount(uuid: str, *disks: str) -> Any:
    volume = vim.host.VmfsVolume(
        name=f"vol-{uuid}",
        uuid=uuid,
        extent=[vim.host.ScsiDisk.Partition(diskName=d, partition=1) for d in disks],
    )
    return vim.host.FileSystemMountInfo(
        volume=volume, mountInfo=vim.host.MountInfo(path=f"/vmfs/volumes/{uuid}")
    )


def storage_site(ds1_disk: str = FC_VMFS) -> list[RawObject]:
    """site() with h-1's disks: an FC LUN holding ds-1's VMFS, a free FC LUN, a free iSCSI LUN, a local disk."""
    objects = site()
    h1 = next(o for o in objects if o.moid == "h-1")
    h1.props.update(
        {
            "config.storageDevice.scsiLun": [
                vim.host.ScsiLun(key="key-cd", canonicalName="mpx.vmhba1:C0:T0:L0", lunType="cdrom"),
                _disk(FC_VMFS, 500),
                _disk(FC_FREE, 200, ssd=True),
                _disk(ISCSI_FREE, 100, ssd=False, localDisk=False),
                _disk(LOCAL, 32, localDisk=True),
            ],
            "config.storageDevice.hostBusAdapter": [
                vim.host.ParallelScsiHba(key="hba-0", device="vmhba0"),
                vim.host.BlockHba(key="hba-1", device="vmhba1"),
                vim.host.FibreChannelHba(key="hba-2", device="vmhba2"),
                vim.host.InternetScsiHba(key="hba-64", device="vmhba64"),
            ],
            "config.storageDevice.scsiTopology": _topology(
                ("hba-0", [LOCAL]), ("hba-1", ["cd"]), ("hba-2", [FC_VMFS, FC_FREE]), ("hba-64", [ISCSI_FREE])
            ),
            "config.fileSystemVolume.mountInfo": [
                _vmfs_mount("1", ds1_disk),
                vim.host.FileSystemMountInfo(volume=vim.host.VfatVolume(name="BOOTBANK1")),
            ],
        }
    )
    return objects


def test_a_hosts_luns_say_their_transport_and_whether_they_hold_vmfs() -> None:
    h1 = next(h for h in build_inventory(ABOUT, storage_site()).hosts if h.moid == "h-1")
    luns = {lun.canonical_name: lun for lun in h1.luns}
    assert list(luns) == [ISCSI_FREE, LOCAL, FC_VMFS, FC_FREE]  # sorted; the CD-ROM is no disk
    fc = luns[FC_VMFS]
    assert (fc.display_name, fc.vendor, fc.model, fc.capacity_bytes) == (
        f"Disk ({FC_VMFS})",
        "NETAPP",
        "LUN C-Mode",
        500 << 30,
    )
    assert [(n, lun.transport, lun.san, lun.vmfs) for n, lun in luns.items()] == [
        (ISCSI_FREE, "iscsi", True, False),
        (LOCAL, "parallel", False, False),
        (FC_VMFS, "fc", True, True),
        (FC_FREE, "fc", True, False),
    ]
    assert [(lun.ssd, lun.local) for lun in luns.values()] == [
        (False, False),
        (None, True),
        (None, None),
        (True, None),
    ]


def test_a_host_without_storage_properties_has_no_luns() -> None:
    assert {h.moid: h.luns for h in build_inventory(ABOUT, storage_site()).hosts if h.moid != "h-1"} == {
        "h-2": [],
        "h-9": [],
    }


def test_a_lun_reached_over_fc_and_a_local_adapter_counts_as_san() -> None:
    objects = storage_site()
    h1 = next(o for o in objects if o.moid == "h-1")
    h1.props["config.storageDevice.scsiTopology"] = _topology(("hba-0", [FC_FREE]), ("hba-2", [FC_FREE]))
    luns = {lun.canonical_name: lun for h in build_inventory(ABOUT, objects).hosts for lun in h.luns}
    assert (luns[FC_FREE].transport, luns[FC_FREE].san) == ("fc", True)
    assert (luns[LOCAL].transport, luns[LOCAL].san) == (None, False)  # no adapter lists it


def test_a_vmfs_datastore_names_its_luns_and_whether_they_are_on_a_san() -> None:
    by_id = {d.moid: d for d in build_inventory(ABOUT, storage_site()).datastores}
    assert (by_id["ds-1"].luns, by_id["ds-1"].san) == ([FC_VMFS], True)
    assert (by_id["ds-2"].luns, by_id["ds-2"].san) == ([], False)  # no type, no url: nothing to match
    local = {d.moid: d for d in build_inventory(ABOUT, storage_site(LOCAL)).datastores}["ds-1"]
    assert (local.luns, local.san) == ([LOCAL], False)


def test_a_datastore_not_of_type_vmfs_has_no_luns() -> None:
    objects = storage_site()
    next(o for o in objects if o.moid == "ds-1").props["summary.type"] = "NFS"
    ds1 = next(d for d in build_inventory(ABOUT, objects).datastores if d.moid == "ds-1")
    assert (ds1.luns, ds1.san) == ([], False)
