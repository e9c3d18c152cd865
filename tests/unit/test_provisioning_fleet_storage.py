"""The fleet's storage and disk rules on made-up state: which guest disk is which, the storage action and
its mark, RDM LUN checks, ZFS-copy checks; all refused before any change where they can be known."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError
from pyVmomi import vim

from provisioning.appliance_api import (
    DiskNotVisible,
    GoldenNotADataset,
    StorageTarget,
    by_role,
    ensure_storage,
    guest_paths,
    prepare_clones,
    wwn_of_naa,
    wwn_of_vmdk,
    zfs_snapshot_name,
)
from provisioning.appliances import disk_changes
from provisioning.diff import check, diff, export_clients, golden_folder
from provisioning.errors import LunNotFound, PlanError
from provisioning.live import LiveDatastore, LiveLun, LiveState, LiveVm
from provisioning.plan import DeploymentPlan, LunDisk

GIB = 1024**3
NAA = "naa.600a0b80001234560000abcd12345678"


def vm(name: str, **kw: Any) -> LiveVm:
    base: dict[str, Any] = {"moid": f"vm-{name}", "name": name, "folder": "group-1", "power_state": "poweredOn", "owner": "dep",
            "source": None, "snapshots": {}, "committed_bytes": 0, "disks": [(0, 8 * GIB)], "host": "host-1"}  # fmt: skip
    return LiveVm(**{**base, **kw})


def live(*vms: LiveVm) -> LiveState:
    lun = LiveLun(NAA, "0200000000600a0b80", f"/vmfs/devices/disks/{NAA}", 500 * GIB)
    vmfs = LiveLun("naa.6000boot", "0200000000", "/vmfs/devices/disks/naa.6000boot", 100 * GIB)
    return LiveState(
        datacenter="datacenter-1", vm_folder="group-v1", cluster="domain-c1", root_pool="resgroup-1",
        cluster_memory_bytes=64 * GIB, hosts={"esx1": "host-1", "esx2": "host-2"},
        cluster_hosts={"esx1": "host-1", "esx2": "host-2"},
        datastores={
            "san": LiveDatastore("datastore-1", "san", "VMFS", 1000 * GIB, 900 * GIB, None, {"host-1", "host-2"}),
            "arc": LiveDatastore("datastore-2", "arc", "NFS41", 1000 * GIB, 900 * GIB, "dep", {"host-1", "host-2"}),
        },
        networks={"vsa": "network-1"}, kinds={"network-1": "Network"}, folders={}, folder_owners={},
        pools={}, pool_owners={}, vms={v.name: [v] for v in vms},
        host_addresses={"esx1": ["10.0.0.11", "10.1.0.11"], "esx2": ["10.0.0.12"], "lone": ["10.0.0.99"]},
        host_luns={"esx1": {NAA: lun, "naa.6000boot": vmfs}, "esx2": {}},
        host_vmfs_luns={"esx1": {"naa.6000boot"}},
    )  # fmt: skip


def plan(disks: list[dict[str, Any]] | None = None, **extra: Any) -> DeploymentPlan:
    return DeploymentPlan.model_validate(
        {
            "name": "dep", "datacenter": "dc", "cluster": "c",
            "fleet": {"ova_path": "x.ova", "network": "vsa", "datastore": "san",
                      "appliances": [{"host": "esx1", "name": "vsa-1",
                                      "disks": disks if disks is not None else [{"datastore": "san", "size_gb": 10}]}]},
            "nfs": {"name": "arc", "server": "10.0.0.21", "path": "/tank/vdi", "version": "4.1"},
            **extra,
        }
    )  # fmt: skip


def test_a_guest_disk_is_found_by_the_wwn_esxi_shows_for_a_vmdk_or_an_rdm() -> None:
    assert wwn_of_vmdk("6000C29a-1b2c-3d4e-5f60-718293a4b5c6") == "0x6000c29a1b2c3d4e5f60718293a4b5c6"
    assert wwn_of_naa(NAA) == "0x600a0b80001234560000abcd12345678"
    seen = [
        {"path": "/dev/disk/by-id/wwn-0x6000c29a", "wwn": "0x6000C29A"},
        {"path": "/dev/disk/by-id/virtio-os", "wwn": None},
        {"path": "/dev/disk/by-id/wwn-0x600a0b80", "wwn": "0x600a0b80"},
    ]
    wanted = [(None, "0x6000c29a"), ("/dev/disk/by-id/virtio-lun9", None), (None, "0x600a0b80")]
    assert guest_paths("vsa-1", wanted, seen) == [
        "/dev/disk/by-id/wwn-0x6000c29a", "/dev/disk/by-id/virtio-lun9", "/dev/disk/by-id/wwn-0x600a0b80",
    ]  # fmt: skip
    with pytest.raises(DiskNotVisible, match=r"LUN disk #1 \(WWN 0xdead\)"):
        guest_paths("vsa-1", [(None, "0x6000c29a"), (None, "0xdead")], seen)
    with pytest.raises(DiskNotVisible, match="not one disk"):  # two disks claiming one WWN: refuse to guess
        guest_paths("vsa-1", [(None, "0x1")], [{"path": "/a", "wwn": "0x1"}, {"path": "/b", "wwn": "0x1"}])


def test_the_storage_action_follows_the_mark_and_the_clients_come_from_the_cluster_hosts() -> None:
    p = plan()
    state = live()
    assert export_clients(p, state) == ["10.0.0.11", "10.0.0.12", "10.1.0.11"], "members only"
    actions = [(a.op, a.kind, a.name) for a in diff(p, state).actions if a.kind != "nfs_mount"]
    assert actions == [("create", "appliance", "vsa-1"), ("create", "disk", "vsa-1/#0"),
                       ("create", "storage", "vsa-1")]  # fmt: skip
    marked = live(
        vm("vsa-1", disks=[(0, 1), (1, 1)], storage="tank/vdi NFS 4.1 to 10.0.0.11,10.0.0.12,10.1.0.11")
    )
    assert [a.kind for a in diff(p, marked).actions if a.kind != "nfs_mount"] == []
    marked.host_addresses["esx2"].append("10.0.0.13")  # a host got another VMkernel address
    assert [a.kind for a in diff(p, marked).actions if a.kind != "nfs_mount"] == ["storage"]
    pinned = plan(nfs={"name": "arc", "server": "10.0.0.21", "path": "/tank/vdi", "version": "4.1",
                       "clients": ["10.9.9.9"]})  # fmt: skip
    assert export_clients(pinned, marked) == ["10.9.9.9"]


def test_the_nfs_path_names_the_pool_and_dataset_the_appliances_build() -> None:
    assert plan().nfs is not None and plan().nfs.dataset() == ("tank", "tank/vdi")  # type: ignore[union-attr]
    with pytest.raises(ValidationError, match="must be /<pool>/<dataset>"):
        plan(nfs={"name": "arc", "server": "10.0.0.21", "path": "/tank"})
    assert plan().storage_profile() == "generic"


def test_an_rdm_names_a_lun_the_host_sees_and_never_one_holding_vmfs() -> None:
    with pytest.raises(ValidationError, match=r"VMDK \(datastore and size_gb\) or an RDM"):
        LunDisk.model_validate({"datastore": "san"})
    with pytest.raises(ValidationError, match="not both"):
        LunDisk.model_validate({"rdm_lun": NAA, "size_gb": 10})
    with pytest.raises(ValidationError):
        LunDisk.model_validate({"rdm_lun": "/vmfs/devices/disks/x"})
    check(plan([{"rdm_lun": NAA}]), live())
    assert [a.detail for a in diff(plan([{"rdm_lun": NAA}]), live()).of("disk")] == [f"RDM of {NAA}"]
    with pytest.raises(LunNotFound, match=r"sees no SCSI disk 'naa\.6000ffff'") as missing:
        check(plan([{"rdm_lun": "naa.6000ffff"}]), live())
    assert missing.value.field == "fleet.appliances.0.disks"
    with pytest.raises(PlanError, match="holds a VMFS datastore"):
        check(plan([{"rdm_lun": "naa.6000boot"}]), live())


def test_the_rdm_device_spec_is_physical_mode_on_the_hosts_lun() -> None:
    controller = vim.vm.device.ParaVirtualSCSIController(key=1000, busNumber=0)
    boot = vim.vm.device.VirtualDisk(key=2000, controllerKey=1000, unitNumber=0)
    appliance = vim.VirtualMachine("vm-1")
    config = vim.vm.ConfigInfo(hardware=vim.vm.VirtualHardware(device=[controller, boot]))
    fake = type("Vm", (), {"config": config})()  # the properties disk_changes reads, no server
    disks = [LunDisk(datastore="san", size_gb=10), LunDisk(rdm_lun=NAA)]
    lun = live().host_luns["esx1"]
    [vmdk, rdm] = disk_changes(fake, disks, 0, lun, "san")
    assert isinstance(vmdk.device.backing, vim.vm.device.VirtualDisk.FlatVer2BackingInfo)
    backing = rdm.device.backing
    assert isinstance(backing, vim.vm.device.VirtualDisk.RawDiskMappingVer1BackingInfo)
    assert (backing.compatibilityMode, backing.deviceName, backing.lunUuid, backing.fileName) == (
        "physicalMode", f"/vmfs/devices/disks/{NAA}", "0200000000600a0b80", "[san]",
    )  # fmt: skip
    assert rdm.device.capacityInKB == 500 * 1024**2 and [vmdk.device.unitNumber, rdm.device.unitNumber] == [
        1,
        2,
    ]
    assert appliance._moId == "vm-1"
    with pytest.raises(LunNotFound):
        disk_changes(fake, [LunDisk(rdm_lun="naa.6000gone")], 0, lun, "san")


def test_zfs_copies_need_full_clones_on_the_arcvsa_datastore_and_refuse_a_recompose_or_shrink() -> None:
    assert golden_folder("[arc] golden/golden.vmx") == ("arc", "golden", "golden.vmx")
    assert golden_folder("[arc] a/b/c.vmx") == ("", "", "")
    assert zfs_snapshot_name("tank/vdi/golden", "base v2") == "tank/vdi/golden@arcvsa-base_v2"
    golden = vm("golden", owner=None, snapshots={"base": "snapshot-1", "v2": "snapshot-2"},
                vm_path="[arc] golden/golden.vmx")  # fmt: skip
    pool = {"name": "p", "count": 2, "naming": "z-##", "folder": "vdi", "golden_vm": "golden", "snapshot": "base",
            "datastore": "arc", "memory_mb": 1024, "clone": "full", "full_copy": "zfs"}  # fmt: skip
    check(plan(pool=pool), live(golden))
    with pytest.raises(PlanError, match=r"set pool\.clone to 'full'"):
        check(plan(pool={**pool, "clone": "linked"}), live(golden))
    with pytest.raises(PlanError, match="the pool's datastore must be that NFS datastore"):
        check(plan(pool={**pool, "datastore": "san"}), live(golden))
    elsewhere = vm("golden", owner=None, snapshots={"base": "s"}, vm_path="[san] golden/golden.vmx")
    with pytest.raises(PlanError, match="not in a folder of the arcvsa datastore") as caught:
        check(plan(pool=pool), live(elsewhere))
    assert caught.value.field == "pool.golden_vm"
    made = vm("z-01", source="golden@base", disks=[])
    with pytest.raises(PlanError, match="recompose of a pool copied through ZFS clones"):
        check(plan(pool={**pool, "snapshot": "v2"}), live(golden, made))
    second = vm("z-02", source="golden@base", disks=[])
    check(plan(pool=pool), live(golden, made, second))  # nothing to remove: fine
    with pytest.raises(PlanError, match="shrinking a pool copied through ZFS clones") as shrunk:
        check(plan(pool={**pool, "count": 1}), live(golden, made, second))
    assert shrunk.value.field == "pool.count" and "z-02" in str(shrunk.value)


class StubApi:
    """The two calls prepare_clones makes, answered from a list (no HTTP)."""

    name = "vsa-1"

    def __init__(self, datasets: list[dict[str, Any]], snapshot_status: int = 201) -> None:
        self.listed, self.snapshot_status = datasets, snapshot_status
        self.posts: list[tuple[str, str, Any]] = []

    def datasets(self, pool: str) -> list[dict[str, Any]]:
        return self.listed

    def exchange(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        self.posts.append((method, path, body))
        if self.snapshot_status == 409:
            return 409, {"detail": "exists", "code": "already_exists"}
        return self.snapshot_status, {}


def test_clones_need_the_golden_as_a_dataset_and_a_snapshot_taken_before_is_fine() -> None:
    with pytest.raises(GoldenNotADataset, match="tank/vdi/golden does not exist") as caught:
        prepare_clones(StubApi([{"name": "tank/vdi"}]), "tank", "tank/vdi/golden", "base")  # type: ignore[arg-type]
    assert caught.value.field == "pool.full_copy"
    api = StubApi([{"name": "tank/vdi/golden"}], snapshot_status=409)
    source = prepare_clones(api, "tank", "tank/vdi/golden", "base")  # type: ignore[arg-type]
    assert (source.snapshot, source.snapshot_taken, api.posts[0][1]) == (
        "tank/vdi/golden@arcvsa-base", False, "/api/storage/snapshots",
    )  # fmt: skip
    made = {"name": "tank/vdi/d-01", "origin": "tank/vdi/golden@arcvsa-base"}
    api = StubApi([{"name": "tank/vdi/golden"}, made])
    source = prepare_clones(api, "tank", "tank/vdi/golden", "base")  # type: ignore[arg-type]
    assert source.existing == {"tank/vdi/d-01"} and api.posts == [], "cloned from already: no new snapshot"


SLOG_SSD = {"datastore": "ssd-local", "size_gb": 16, "role": "log"}
L2ARC_SSD = {"datastore": "ssd-local", "size_gb": 200, "role": "cache"}


def test_an_appliances_pool_has_data_disks_at_most_a_mirrored_slog_and_any_l2arc() -> None:
    assert LunDisk.model_validate({"datastore": "san", "size_gb": 10}).role == "data"
    ok = plan([{"datastore": "san", "size_gb": 10}, SLOG_SSD, SLOG_SSD, L2ARC_SSD, L2ARC_SSD, L2ARC_SSD])
    assert ok.fleet is not None and [d.role for d in ok.fleet.appliances[0].disks].count("cache") == 3
    with pytest.raises(ValidationError, match="vsa-1: a pool needs at least one data disk"):
        plan([SLOG_SSD, L2ARC_SSD])
    with pytest.raises(ValidationError, match="vsa-1: at most two SLOG disks"):
        plan([{"datastore": "san", "size_gb": 10}, SLOG_SSD, SLOG_SSD, SLOG_SSD])
    with pytest.raises(ValidationError):
        LunDisk.model_validate({**SLOG_SSD, "role": "special"})
    # an appliance without disks stays valid (a fleet first, its storage later)
    assert plan([]).fleet is not None


def test_the_plan_and_its_diff_name_the_slog_and_l2arc_ssds() -> None:
    p = plan([{"datastore": "san", "size_gb": 10}, SLOG_SSD, {"rdm_lun": NAA, "role": "cache"}])
    state = live()
    state.datastores["ssd-local"] = LiveDatastore(
        "datastore-3", "ssd-local", "VMFS", 400 * GIB, 390 * GIB, None, {"host-1"}
    )
    check(p, state)
    assert [a.detail for a in diff(p, state).of("disk")] == [
        "10 GiB on san", "SLOG 16 GiB on ssd-local", f"L2ARC RDM of {NAA}",
    ]  # fmt: skip
    (storage,) = diff(p, state).of("storage")
    assert storage.detail is not None
    assert storage.detail.startswith(
        "pool tank on 1 LUN disks, SLOG on 1 SSD, L2ARC on 1 SSD, dataset tank/vdi"
    )
    two = plan([{"datastore": "san", "size_gb": 10}, SLOG_SSD, SLOG_SSD, L2ARC_SSD, L2ARC_SSD])
    (storage,) = diff(two, state).of("storage")
    assert "SLOG on a mirror of 2 SSDs, L2ARC on 2 SSDs" in (storage.detail or "")


class PoolApi:
    """What ensure_storage asks of an appliance with nothing built yet, answered from memory (no HTTP)."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, Any]] = []

    def pool(self, name: str) -> None:
        return None

    def datasets(self, pool: str) -> list[dict[str, Any]]:
        return []

    def exports(self) -> list[dict[str, Any]]:
        return []

    def call(self, method: str, path: str, body: Any = None) -> Any:
        self.posts.append((path, body))
        return {}


def test_the_storage_target_sends_the_data_slog_and_l2arc_devices_by_their_disks_roles() -> None:
    roles = ["data", "log", "data", "cache", "log"]
    paths = [f"/dev/disk/by-id/wwn-0x{i}" for i in range(5)]
    split = by_role(roles, paths)
    assert split == {"data": [paths[0], paths[2]], "log": [paths[1], paths[4]], "cache": [paths[3]]}
    with pytest.raises(ValueError):  # a disk the appliance did not report: never shifted onto another
        by_role(roles, paths[:4])
    target = StorageTarget(pool="tank", devices=split["data"], dataset="tank/vdi", profile="generic",
                           protocol="4.1", clients=["10.0.0.11"], log=split["log"], cache=split["cache"])  # fmt: skip
    api = PoolApi()
    changed = ensure_storage(api, target)  # type: ignore[arg-type]
    assert api.posts[0] == (
        "/api/storage/pools",
        {
            "name": "tank",
            "layout": "stripe",
            "data": split["data"],
            "log": split["log"],
            "cache": split["cache"],
        },
    )
    assert changed[0] == "pool tank on 2 LUN disks, SLOG on a mirror of 2 SSDs, L2ARC on 1 SSD"
    plain = StorageTarget(pool="tank", devices=split["data"], dataset="tank/vdi", profile="generic",
                          protocol="4.1", clients=["10.0.0.11"])  # fmt: skip
    api = PoolApi()
    assert ensure_storage(api, plain)[0] == "pool tank on 2 LUN disks"  # type: ignore[arg-type]
    assert api.posts[0][1]["log"] == [] and api.posts[0][1]["cache"] == []
