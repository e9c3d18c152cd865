"""The live state a plan is diffed against: one datacenter, read in one PropertyCollector retrieval."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyVmomi import vim

from provisioning import ownership
from provisioning.errors import PlacementNotFound
from provisioning.inventory import RawObject, retrieve_raw, vmkernel_nics

TYPES = ("Folder", "ComputeResource", "HostSystem", "ResourcePool", "Datastore", "Network", "VirtualMachine")
PROPERTIES: dict[str, tuple[str, ...]] = {
    "Folder": ("name", "parent", "childType", "customValue"),
    "ComputeResource": ("name", "parent", "resourcePool", "summary.totalMemory"),
    "HostSystem": (
        "name",
        "parent",
        "datastore",
        "summary.hardware.memorySize",
        "summary.hardware.cpuMhz",
        "summary.hardware.numCpuCores",
        "summary.hardware.numCpuThreads",
        "summary.quickStats.overallCpuUsage",
        "summary.quickStats.overallMemoryUsage",
        "runtime.connectionState",
        "runtime.inMaintenanceMode",
        "network",
        "config.network.vnic",
        "config.virtualNicManagerInfo.netConfig",
        "config.storageDevice.scsiLun",
        "config.fileSystemVolume.mountInfo",
    ),
    "ResourcePool": ("name", "parent", "customValue"),
    "Datastore": ("name", "summary.type", "summary.capacity", "summary.freeSpace", "customValue"),
    "Network": ("name",),
    "VirtualMachine": (
        "name",
        "parent",
        "customValue",
        "runtime.powerState",
        "runtime.host",
        "snapshot",
        "summary.storage.committed",
        "config.hardware.device",
        "config.files.vmPathName",
        "config.hardware.memoryMB",
        "config.hardware.numCPU",
    ),
}


@dataclass
class LiveVm:
    moid: str
    name: str
    folder: str
    power_state: str
    owner: str | None
    source: str | None
    snapshots: dict[str, str]  # name → moid (the whole tree, flattened)
    committed_bytes: int
    disks: list[tuple[int, int]]  # (unit number, capacity bytes) of each virtual disk
    vm_path: str = ""  # '[datastore] folder/name.vmx'
    storage: str | None = None  # on appliances: the storage they were last made to serve (ownership.STORAGE)
    host: str | None = None  # moid of the host it runs on (runtime.host)
    memory_mb: int = 0
    vcpus: int = 0


@dataclass
class LiveLun:
    """A SCSI disk a host sees (HostScsiDisk), as an RDM needs it."""

    canonical_name: str
    uuid: str
    device_path: str
    capacity_bytes: int


@dataclass
class LiveHost:
    """What an appliance's admission needs of a host: its capacity, what is in use, the networks it sees."""

    moid: str
    memory_bytes: int
    memory_used_bytes: int  # quick stats: what the host's VMs and itself consume now
    cpu_mhz: int  # one core's clock
    cpu_cores: int
    cpu_threads: int  # logical CPUs: no VM may have more vCPUs
    cpu_used_mhz: int
    connected: bool = True
    in_maintenance: bool = False
    networks: set[str] = field(default_factory=set)  # moids of the networks (port groups) it sees

    @property
    def free_memory_bytes(self) -> int:
        return max(0, self.memory_bytes - self.memory_used_bytes)

    @property
    def free_cpu_mhz(self) -> int:
        return max(0, self.cpu_cores * self.cpu_mhz - self.cpu_used_mhz)


@dataclass
class LiveDatastore:
    moid: str
    name: str
    type: str
    capacity_bytes: int
    free_bytes: int
    owner: str | None
    hosts: set[str] = field(default_factory=set)  # host moids that mount it


@dataclass
class LiveState:
    """What exists in one datacenter, keyed the way the plan names things."""

    datacenter: str
    vm_folder: str
    cluster: str | None
    root_pool: str | None
    cluster_memory_bytes: int
    hosts: dict[str, str]  # every host of the datacenter: name → moid
    cluster_hosts: dict[str, str]  # the plan cluster's hosts: name → moid
    datastores: dict[str, LiveDatastore]
    networks: dict[str, str]
    kinds: dict[str, str]  # moid → vSphere type name, for networks (a port group is not a vim.Network)
    folders: dict[str, str]  # 'a/b' below the VM folder → moid
    folder_owners: dict[str, str | None]  # folder moid → owner
    pools: dict[str, str]  # child resource pools of the cluster's root pool: name → moid
    pool_owners: dict[str, str | None]
    vms: dict[str, list[LiveVm]]  # name → VMs of that name (vCenter allows one per folder)
    #: host name → IPv4 addresses of its VMkernel NICs (what an NFS export must allow)
    host_addresses: dict[str, list[str]] = field(default_factory=dict)
    #: host name → its SCSI disks by canonical name (the LUNs an RDM can map)
    host_luns: dict[str, dict[str, LiveLun]] = field(default_factory=dict)
    #: host name → canonical names of the LUNs that hold its VMFS datastores (never to be mapped raw)
    host_vmfs_luns: dict[str, set[str]] = field(default_factory=dict)
    #: host name → its capacity and load (appliance admission); a host vCenter reports no figures for is absent
    host_stats: dict[str, LiveHost] = field(default_factory=dict)

    def vm(self, name: str) -> LiveVm | None:
        found = self.vms.get(name) or []
        return found[0] if found else None


def _flatten(tree_list: Any, out: dict[str, str]) -> dict[str, str]:
    for tree in tree_list or []:
        out.setdefault(tree.name, tree.snapshot._moId)
        _flatten(tree.childSnapshotList, out)
    return out


def _disks(devices: Any) -> list[tuple[int, int]]:
    return [
        (int(d.unitNumber or 0), int(d.capacityInBytes or 0))
        for d in devices or []
        if isinstance(d, vim.vm.device.VirtualDisk)
    ]


def _addresses(vnics: Any, net_config: Any) -> list[str]:
    """The IPv4 addresses of the VMkernel NICs an NFS export allows (inventory.vmkernel_nics)."""
    return [n.address for n in vmkernel_nics(vnics, net_config) if n.nfs]


def _luns(scsi_luns: Any) -> dict[str, LiveLun]:
    out: dict[str, LiveLun] = {}
    for lun in scsi_luns or []:
        if not isinstance(lun, vim.host.ScsiDisk) or not lun.canonicalName:  # CD-ROMs, tapes: no RDM
            continue
        capacity = getattr(lun, "capacity", None)
        out[lun.canonicalName] = LiveLun(
            canonical_name=lun.canonicalName,
            uuid=str(lun.uuid or ""),
            device_path=lun.deviceName or f"/vmfs/devices/disks/{lun.canonicalName}",
            capacity_bytes=int(capacity.block * capacity.blockSize) if capacity else 0,
        )
    return out


def _vmfs_luns(mounts: Any) -> set[str]:
    return {
        e.diskName
        for m in mounts or []
        if isinstance(m.volume, vim.host.VmfsVolume)
        for e in m.volume.extent or []
    }


def build_state(dc: str, cluster_name: str, raw: list[RawObject], keys: dict[str, int]) -> LiveState:
    """LiveState from the raw retrieval of datacenter `dc` (pure: no server calls)."""
    by_id = {o.moid: o for o in raw}

    def owned(o: RawObject) -> dict[str, str]:
        return ownership.values_of(o.props.get("customValue"), keys)

    vm_folder = next(
        (
            o.moid
            for o in raw
            if o.kind == "Folder"
            and o.props.get("parent") == dc
            and "VirtualMachine" in (o.props.get("childType") or [])
        ),
        "",
    )
    folders: dict[str, str] = {}
    folder_owners: dict[str, str | None] = {}
    for o in raw:
        if o.kind != "Folder":
            continue
        parts, cur = [], by_id.get(o.moid)
        while cur is not None and cur.moid != vm_folder:
            parts.append(cur.props.get("name", ""))
            cur = by_id.get(cur.props.get("parent") or "")
        if cur is not None and parts:
            folders["/".join(reversed(parts))] = o.moid
            folder_owners[o.moid] = owned(o).get(ownership.OWNER)

    clusters = [o for o in raw if o.kind == "ClusterComputeResource" and o.props.get("name") == cluster_name]
    cluster = clusters[0] if clusters else None
    root_pool = cluster.props.get("resourcePool") if cluster else None
    hosts = {o.props["name"]: o.moid for o in raw if o.kind == "HostSystem"}
    member_ids = {
        o.moid for o in raw if o.kind == "HostSystem" and cluster and o.props.get("parent") == cluster.moid
    }
    pools = {
        o.props["name"]: o.moid
        for o in raw
        if o.kind == "ResourcePool" and root_pool and o.props.get("parent") == root_pool
    }

    datastores: dict[str, LiveDatastore] = {}
    for o in raw:
        if o.kind == "Datastore":
            p = o.props
            datastores[p["name"]] = LiveDatastore(
                moid=o.moid,
                name=p["name"],
                type=str(p.get("summary.type") or ""),
                capacity_bytes=int(p.get("summary.capacity") or 0),
                free_bytes=int(p.get("summary.freeSpace") or 0),
                owner=owned(o).get(ownership.OWNER),
            )
    by_ds_id = {d.moid: d for d in datastores.values()}
    for o in raw:
        if o.kind == "HostSystem":
            for ds in o.props.get("datastore") or []:
                if ds in by_ds_id:
                    by_ds_id[ds].hosts.add(o.moid)

    vms: dict[str, list[LiveVm]] = {}
    for o in raw:
        if o.kind != "VirtualMachine":
            continue
        p, marks = o.props, owned(o)
        vms.setdefault(p["name"], []).append(
            LiveVm(
                moid=o.moid,
                name=p["name"],
                folder=p.get("parent") or "",
                power_state=str(p.get("runtime.powerState") or ""),
                owner=marks.get(ownership.OWNER),
                source=marks.get(ownership.SOURCE),
                snapshots=_flatten(getattr(p.get("snapshot"), "rootSnapshotList", None), {}),
                committed_bytes=int(p.get("summary.storage.committed") or 0),
                disks=_disks(p.get("config.hardware.device")),
                storage=marks.get(ownership.STORAGE),
                vm_path=str(p.get("config.files.vmPathName") or ""),
                host=p.get("runtime.host") or None,
                memory_mb=int(p.get("config.hardware.memoryMB") or 0),
                vcpus=int(p.get("config.hardware.numCPU") or 0),
            )
        )
    return LiveState(
        datacenter=dc,
        vm_folder=vm_folder,
        cluster=cluster.moid if cluster else None,
        root_pool=root_pool,
        cluster_memory_bytes=int(cluster.props.get("summary.totalMemory") or 0) if cluster else 0,
        hosts=hosts,
        cluster_hosts={n: m for n, m in hosts.items() if m in member_ids},
        datastores=datastores,
        networks={o.props["name"]: o.moid for o in raw if o.kind.endswith(("Network", "Portgroup"))},
        kinds={o.moid: o.kind for o in raw if o.kind.endswith(("Network", "Portgroup"))},
        folders=folders,
        folder_owners=folder_owners,
        pools=pools,
        pool_owners={m: owned(by_id[m]).get(ownership.OWNER) for m in pools.values()},
        vms=vms,
        host_addresses={
            o.props["name"]: _addresses(
                o.props.get("config.network.vnic"), o.props.get("config.virtualNicManagerInfo.netConfig")
            )
            for o in raw
            if o.kind == "HostSystem"
        },
        host_vmfs_luns={
            o.props["name"]: _vmfs_luns(o.props.get("config.fileSystemVolume.mountInfo"))
            for o in raw
            if o.kind == "HostSystem"
        },
        host_luns={
            o.props["name"]: _luns(o.props.get("config.storageDevice.scsiLun"))
            for o in raw
            if o.kind == "HostSystem"
        },
        host_stats={
            o.props["name"]: _host(o)
            for o in raw
            if o.kind == "HostSystem" and o.props.get("summary.hardware.memorySize")
        },
    )


def _host(o: RawObject) -> LiveHost:
    p = o.props
    return LiveHost(
        moid=o.moid,
        memory_bytes=int(p.get("summary.hardware.memorySize") or 0),
        memory_used_bytes=int(p.get("summary.quickStats.overallMemoryUsage") or 0) * 1024**2,
        cpu_mhz=int(p.get("summary.hardware.cpuMhz") or 0),
        cpu_cores=int(p.get("summary.hardware.numCpuCores") or 0),
        cpu_threads=int(
            p.get("summary.hardware.numCpuThreads") or p.get("summary.hardware.numCpuCores") or 0
        ),
        cpu_used_mhz=int(p.get("summary.quickStats.overallCpuUsage") or 0),
        connected=str(p.get("runtime.connectionState") or "connected") == "connected",
        in_maintenance=bool(p.get("runtime.inMaintenanceMode")),
        networks=set(p.get("network") or []),
    )


def read_state(si: Any, datacenter: str, cluster: str) -> LiveState:
    """The live state of `datacenter`: FindByInventoryPath, the field definitions, one retrieval."""
    content = si.RetrieveContent()
    dc = content.searchIndex.FindByInventoryPath(datacenter)
    if dc is None or dc._wsdlName != "Datacenter":
        raise PlacementNotFound(f"vCenter has no datacenter {datacenter!r}", field="datacenter")
    keys = ownership.field_keys(content, define=False)
    raw = retrieve_raw(content, root=dc, types=TYPES, properties=PROPERTIES)
    return build_state(dc._moId, cluster, raw, keys)
