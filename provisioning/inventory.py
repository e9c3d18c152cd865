"""A vCenter's inventory, read in one PropertyCollector retrieval."""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field
from pyVmomi import VmomiSupport, vim, vmodl

from provisioning.certificate import translate_transport_error
from provisioning.errors import VCenterError


class About(BaseModel):
    """What the endpoint says it is (ServiceContent.about)."""

    name: str = Field(description="Product name, e.g. 'VMware vCenter Server'")
    version: str = Field(description="Product version, e.g. '8.0.3'")
    build: str = Field(description="Build number")
    api_type: str = Field(description="'VirtualCenter' for vCenter, 'HostAgent' for a lone ESXi host")
    instance_uuid: str = Field(description="The vCenter instance UUID")


class Datacenter(BaseModel):
    moid: str = Field(description="Managed object id, e.g. 'datacenter-2'")
    name: str = Field(description="Datacenter name")


class Cluster(BaseModel):
    moid: str = Field(description="Managed object id")
    name: str = Field(description="Cluster name")
    datacenter: str = Field(description="moid of the datacenter it belongs to")
    drs_enabled: bool = Field(description="Whether DRS is on")
    ha_enabled: bool = Field(description="Whether vSphere HA is on")


class Lun(BaseModel):
    """A SCSI disk a host sees (HostScsiDisk): a LUN for a VMFS datastore or an RDM."""

    canonical_name: str = Field(
        description="ESXi's name of the disk: naa./eui./t10. (SAN LUNs) or mpx. (local)"
    )
    display_name: str = Field(description="The name vSphere shows for the disk")
    capacity_bytes: int = Field(description="Size in bytes")
    vendor: str = Field(description="SCSI vendor (INQUIRY), trimmed")
    model: str = Field(description="SCSI model (INQUIRY), trimmed")
    ssd: bool | None = Field(description="Whether vSphere reports it as an SSD; null when it does not say")
    local: bool | None = Field(description="Whether vSphere reports it as local; null when it does not say")
    transport: str | None = Field(
        description="How the host reaches it, from the type of the adapters of its paths (scsiTopology): "
        "'fc', 'fcoe', 'iscsi', 'sas', 'parallel', 'block', 'pcie', 'nvme-tcp', 'nvme-rdma' or 'other'; "
        "a SAN transport wins when it has several; null when no adapter lists it"
    )
    san: bool = Field(description="Whether it is reached over a SAN: transport 'fc', 'fcoe' or 'iscsi'")
    vmfs: bool = Field(
        description="Whether it holds (an extent of) one of the host's VMFS volumes: then not an RDM candidate"
    )


class VmkernelNic(BaseModel):
    """A host's VMkernel NIC (vmk): the address the host's own traffic, NFS mounts among it, comes from."""

    device: str = Field(description="ESXi's name of the NIC, e.g. 'vmk1'")
    address: str = Field(
        description="Its IPv4 address; empty when it has none (IPv6 only, or DHCP not bound)"
    )
    portgroup: str = Field(description="The port group it is on (empty on a distributed switch)")
    services: list[str] = Field(
        description="The services tagged on it (HostVirtualNicManager nicType: 'management', 'vmotion', "
        "'vsan'...); empty for a plain VMkernel port such as a storage network's"
    )
    nfs: bool = Field(
        description="Whether an NFS export should allow it: an IPv4 NIC that is management-tagged or carries "
        "no service tag (ESXi mounts NFS from such a port); vMotion-, vSAN- or FT-only NICs are not"
    )


class Host(BaseModel):
    moid: str = Field(description="Managed object id")
    name: str = Field(description="Host name as vCenter knows it")
    datacenter: str = Field(description="moid of its datacenter")
    cluster: str | None = Field(description="moid of its cluster; null for a standalone host")
    connection_state: str = Field(description="'connected', 'disconnected' or 'notResponding'")
    power_state: str = Field(description="'poweredOn', 'poweredOff', 'standBy' or 'unknown'")
    in_maintenance: bool = Field(description="Whether the host is in maintenance mode")
    cpu_cores: int = Field(description="Physical CPU cores")
    cpu_mhz_total: int = Field(description="Total CPU capacity in MHz (cores x core speed)")
    cpu_mhz_used: int = Field(description="CPU in use, MHz (quick stats)")
    memory_bytes: int = Field(description="Physical memory in bytes")
    memory_used_bytes: int = Field(description="Memory in use in bytes (quick stats)")
    version: str = Field(description="ESXi version")
    datastores: list[str] = Field(description="moids of the datastores mounted on the host")
    networks: list[str] = Field(description="moids of the networks the host sees")
    luns: list[Lun] = Field(description="Its SCSI disks (not CD-ROMs nor tapes), by canonical name")
    vmkernel: list[VmkernelNic] = Field(
        default_factory=list, description="Its VMkernel NICs, by device name, with their service tags"
    )


class Datastore(BaseModel):
    moid: str = Field(description="Managed object id")
    name: str = Field(description="Datastore name")
    datacenter: str = Field(description="moid of its datacenter")
    type: str = Field(
        description="File system type: 'VMFS', 'NFS', 'NFS41', 'vsan', 'vvol' or what vCenter says"
    )
    capacity_bytes: int = Field(description="Capacity in bytes")
    free_bytes: int = Field(description="Free space in bytes")
    accessible: bool = Field(description="Whether the datastore is accessible")
    url: str = Field(description="The datastore URL (ds:///vmfs/volumes/...)")
    hosts: list[str] = Field(description="moids of the hosts that mount it")
    luns: list[str] = Field(
        description="VMFS: canonical names of the LUNs holding its extents, as its hosts report them; "
        "empty for other types (or a VMFS volume no host reports)"
    )
    san: bool = Field(
        description="Whether it is VMFS on LUNs every one of which a host reaches over FC or iSCSI"
    )


class Network(BaseModel):
    moid: str = Field(description="Managed object id")
    name: str = Field(description="Network or port group name")
    datacenter: str = Field(description="moid of its datacenter")
    kind: str = Field(description="'Network', 'DistributedVirtualPortgroup' or 'OpaqueNetwork'")


class Snapshot(BaseModel):
    moid: str = Field(description="Managed object id of the snapshot")
    name: str = Field(description="Snapshot name")
    description: str = Field(description="Snapshot description")
    created: str = Field(description="Creation time, ISO 8601")
    children: list[Snapshot] = Field(default_factory=list, description="Snapshots taken after this one")


class VirtualMachine(BaseModel):
    moid: str = Field(description="Managed object id")
    name: str = Field(description="VM name")
    datacenter: str = Field(description="moid of its datacenter")
    host: str | None = Field(description="moid of the host it runs on, if any")
    template: bool = Field(description="Whether the VM is a template")
    power_state: str = Field(description="'poweredOn', 'poweredOff' or 'suspended'")
    guest_os: str = Field(description="Configured guest OS full name")
    num_cpu: int = Field(description="vCPUs")
    memory_mb: int = Field(description="Memory in MiB")
    datastores: list[str] = Field(description="moids of the datastores holding its files")
    snapshots: list[Snapshot] = Field(description="Root snapshots, each with its children")


class Inventory(BaseModel):
    """Everything the wizard needs to place a deployment, read in one retrieval."""

    about: About = Field(description="What the endpoint is")
    datacenters: list[Datacenter] = Field(description="Datacenters")
    clusters: list[Cluster] = Field(description="Compute clusters")
    hosts: list[Host] = Field(description="ESXi hosts")
    datastores: list[Datastore] = Field(description="Datastores")
    networks: list[Network] = Field(description="Networks and port groups")
    vms: list[VirtualMachine] = Field(description="Virtual machines and templates")


# --- reading it -----------------------------------------------------------------------------------------
# One PropertyCollector retrieval over a recursive ContainerView, turned into the models above. The pure
# part (RawObject -> Inventory) is apart from the SOAP part so that it can be tested on made-up data.

log = logging.getLogger(__name__)

#: the managed object types the view walks; Folder and ComputeResource are there only so that every
#: object's datacenter and cluster can be found by following `parent` inside the same result set
VIEW_TYPES = (
    "Folder",
    "Datacenter",
    "ComputeResource",
    "HostSystem",
    "Datastore",
    "Network",
    "VirtualMachine",
)

#: properties read per type; a spec for a type also applies to its subtypes (ClusterComputeResource is a
#: ComputeResource, DistributedVirtualPortgroup a Network, StoragePod a Folder)
PROPERTIES: dict[str, tuple[str, ...]] = {
    "Folder": ("name", "parent"),
    "Datacenter": ("name", "parent"),
    "ComputeResource": ("name", "parent"),
    # whole: paths into it name fields of a subtype (ClusterConfigInfoEx) that a server may refuse
    "ClusterComputeResource": ("configurationEx",),
    "HostSystem": (
        "name",
        "parent",
        "runtime.connectionState",
        "runtime.powerState",
        "runtime.inMaintenanceMode",
        "summary.hardware.numCpuCores",
        "summary.hardware.cpuMhz",
        "summary.hardware.memorySize",
        "summary.quickStats.overallCpuUsage",
        "summary.quickStats.overallMemoryUsage",
        "summary.config.product.version",
        "datastore",
        "network",
        # the disks, the adapters and which adapter reaches which disk; the VMFS volumes and their extents
        "config.storageDevice.scsiLun",
        "config.storageDevice.hostBusAdapter",
        "config.storageDevice.scsiTopology",
        "config.fileSystemVolume.mountInfo",
        "config.network.vnic",
        "config.virtualNicManagerInfo.netConfig",
    ),
    "Datastore": (
        "name",
        "parent",
        "summary.type",
        "summary.capacity",
        "summary.freeSpace",
        "summary.accessible",
        "summary.url",
        "host",
    ),
    "Network": ("name", "parent"),
    "DistributedVirtualPortgroup": ("tag",),
    "VirtualMachine": (
        "name",
        "parent",
        "summary.runtime.host",
        "summary.runtime.powerState",
        "summary.config.template",
        "summary.config.guestFullName",
        "summary.config.numCpu",
        "summary.config.memorySizeMB",
        "datastore",
        "snapshot",
    ),
}

#: the tag vCenter puts on a distributed switch's uplink port group, which cannot carry VM traffic
UPLINK_TAG = "SYSTEM/DVS.UPLINKPG"
_MAX_DEPTH = 64
_MIB = 1024 * 1024


@dataclass(frozen=True)
class RawObject:
    """One object of the retrieval, with references already reduced to moid strings."""

    moid: str
    kind: str  # vSphere type name: 'HostSystem', 'ClusterComputeResource', 'DistributedVirtualPortgroup'...
    props: dict[str, Any]


def about_from_content(content: Any) -> About:
    """About from a ServiceContent already in hand (no call to the server)."""
    a = content.about
    return About(
        name=a.name,
        version=a.version,
        build=a.build,
        api_type=a.apiType,
        instance_uuid=a.instanceUuid or "",
    )


def find_ancestor(moid: str, objects: Mapping[str, RawObject], kinds: Collection[str]) -> str | None:
    """The nearest ancestor of `moid` (by `parent`) whose kind is in `kinds`, or None.

    Stops at a missing parent, an object outside the result set, a cycle or an absurd depth, none of
    which a consistent vCenter produces but a half-read or hand-made inventory may.
    """
    seen = {moid}
    current = objects.get(moid)
    for _ in range(_MAX_DEPTH):
        if current is None:
            return None
        parent = current.props.get("parent")
        if not parent or parent in seen:
            return None
        seen.add(parent)
        current = objects.get(parent)
        if current is not None and current.kind in kinds:
            return current.moid
    return None


def snapshot_from_tree(tree: Any) -> Snapshot:
    """Snapshot (with its children) from a vim.vm.SnapshotTree."""
    created = tree.createTime
    return Snapshot(
        moid=_moid(tree.snapshot) or "",
        name=tree.name,
        description=tree.description or "",
        created=created.isoformat() if isinstance(created, datetime) else str(created or ""),
        children=[snapshot_from_tree(child) for child in (tree.childSnapshotList or [])],
    )


def _moid(ref: Any) -> str | None:
    return ref if isinstance(ref, str) or ref is None else str(ref._moId)


def _enabled(config: Any, part: str) -> bool:
    return bool(getattr(getattr(config, part, None), "enabled", False))


#: vSphere adapter type (HostHostBusAdapter subtypes) → Lun.transport
TRANSPORTS = {
    "HostFibreChannelHba": "fc",
    "HostFibreChannelOverEthernetHba": "fcoe",
    "HostInternetScsiHba": "iscsi",
    "HostSerialAttachedHba": "sas",
    "HostParallelScsiHba": "parallel",
    "HostBlockHba": "block",
    "HostPcieHba": "pcie",
    "HostTcpHba": "nvme-tcp",
    "HostRdmaHba": "nvme-rdma",
}
SAN_TRANSPORTS = ("fc", "fcoe", "iscsi")
_VMFS_URL = re.compile(r"/vmfs/volumes/([^/]+)")


def lun_transports(adapters: Any, topology: Any) -> dict[str, str]:
    """ScsiLun key → how the host reaches it (a SAN transport first when its paths mix kinds)."""
    kinds = {a.key: TRANSPORTS.get(type(a)._wsdlName, "other") for a in adapters or []}
    seen: dict[str, set[str]] = {}
    for adapter in getattr(topology, "adapter", None) or []:
        kind = kinds.get(adapter.adapter, "other")
        for target in adapter.target or []:
            for lun in target.lun or []:
                seen.setdefault(lun.scsiLun, set()).add(kind)
    return {key: min(k, key=lambda t: (t not in SAN_TRANSPORTS, t)) for key, k in seen.items()}


def vmfs_extents(mounts: Any) -> dict[str, list[str]]:
    """VMFS volume uuid → canonical names of the disks holding its extents."""
    return {
        str(m.volume.uuid): [str(e.diskName) for e in m.volume.extent or []]
        for m in mounts or []
        if isinstance(m.volume, vim.host.VmfsVolume) and m.volume.uuid
    }


#: service tags that make a VMkernel NIC one an NFS export allows (no tag at all does too)
NFS_SERVICES = frozenset({"management"})


def vmkernel_nics(vnics: Any, net_config: Any) -> list[VmkernelNic]:
    """The VMkernel NICs with their service tags (pure: config.network.vnic and virtualNicManagerInfo).

    A selected NIC is named by its candidate's key ('management.key-vim.host.VirtualNic-vmk0'); some
    endpoints leave the '<nicType>.' prefix off the candidate's key.
    """
    services: dict[str, list[str]] = {}
    for config in net_config or []:
        devices = {}
        for c in config.candidateVnic or []:
            devices[c.key] = devices[f"{config.nicType}.{c.key}"] = c.device
        for key in config.selectedVnic or []:
            if key in devices:
                services.setdefault(devices[key], []).append(str(config.nicType))
    out = []
    for v in vnics or []:
        ip = v.spec.ip if v.spec else None
        address = str(ip.ipAddress or "") if ip else ""
        tags = sorted(services.get(v.device, []))
        out.append(
            VmkernelNic(
                device=str(v.device),
                address=address,
                portgroup=str(v.portgroup or ""),
                services=tags,
                nfs=bool(address) and (not tags or bool(NFS_SERVICES & set(tags))),
            )
        )
    return sorted(out, key=lambda n: n.device)


def _text(value: Any) -> str:
    return str(value or "").strip()


def host_luns(scsi_luns: Any, transports: Mapping[str, str], vmfs_disks: Collection[str]) -> list[Lun]:
    """The host's SCSI disks (CD-ROMs, tapes and the like left out), sorted by canonical name."""
    out = []
    for lun in scsi_luns or []:
        if not isinstance(lun, vim.host.ScsiDisk) or not lun.canonicalName:
            continue
        capacity = lun.capacity
        transport = transports.get(str(lun.key))
        out.append(
            Lun(
                canonical_name=lun.canonicalName,
                display_name=_text(lun.displayName) or lun.canonicalName,
                capacity_bytes=int(capacity.block * capacity.blockSize) if capacity else 0,
                vendor=_text(lun.vendor),
                model=_text(lun.model),
                ssd=lun.ssd,
                local=lun.localDisk,
                transport=transport,
                san=transport in SAN_TRANSPORTS,
                vmfs=lun.canonicalName in vmfs_disks,
            )
        )
    return sorted(out, key=lambda x: x.canonical_name)


def build_inventory(about: About, raw: list[RawObject]) -> Inventory:
    """Inventory from the objects of one retrieval (pure); lists are sorted by name.

    An object whose datacenter cannot be found is left out with a warning: every entity of a consistent
    vCenter sits under one, so such an object was caught half-created or half-deleted.
    """
    objects = {o.moid: o for o in raw}

    def of_kind(*kinds: str) -> list[RawObject]:
        return sorted((o for o in raw if o.kind in kinds), key=lambda o: (str(o.props.get("name")), o.moid))

    def datacenter_of(o: RawObject) -> str | None:
        dc = find_ancestor(o.moid, objects, ("Datacenter",))
        if dc is None:
            log.warning(
                "%s %s (%s) has no datacenter in the retrieval; left out", o.kind, o.moid, o.props.get("name")
            )
        return dc

    inv = Inventory(about=about, datacenters=[], clusters=[], hosts=[], datastores=[], networks=[], vms=[])
    inv.datacenters = [Datacenter(moid=o.moid, name=o.props["name"]) for o in of_kind("Datacenter")]

    for o in of_kind("ClusterComputeResource"):
        if (dc := datacenter_of(o)) is not None:
            config = o.props.get("configurationEx")
            inv.clusters.append(
                Cluster(
                    moid=o.moid,
                    name=o.props["name"],
                    datacenter=dc,
                    drs_enabled=_enabled(config, "drsConfig"),
                    ha_enabled=_enabled(config, "dasConfig"),
                )
            )

    host_dc: dict[str, str] = {}
    mounts: dict[str, set[str]] = {}
    host_volumes: dict[str, dict[str, list[str]]] = {}  # host moid → VMFS volume uuid → extents' disks
    host_lun_by_name: dict[str, dict[str, Lun]] = {}  # host moid → canonical name → its LUN
    for o in of_kind("HostSystem"):
        if (dc := datacenter_of(o)) is None:
            continue
        host_dc[o.moid] = dc
        p = o.props
        parent = objects.get(p.get("parent") or "")
        in_cluster = parent is not None and parent.kind == "ClusterComputeResource"
        cores = int(p.get("summary.hardware.numCpuCores") or 0)
        datastores = list(p.get("datastore") or [])
        for ds in datastores:
            mounts.setdefault(ds, set()).add(o.moid)
        volumes = host_volumes[o.moid] = vmfs_extents(p.get("config.fileSystemVolume.mountInfo"))
        transports = lun_transports(
            p.get("config.storageDevice.hostBusAdapter"), p.get("config.storageDevice.scsiTopology")
        )
        luns = host_luns(
            p.get("config.storageDevice.scsiLun"), transports, {d for ds in volumes.values() for d in ds}
        )
        host_lun_by_name[o.moid] = {lun.canonical_name: lun for lun in luns}
        inv.hosts.append(
            Host(
                moid=o.moid,
                name=p["name"],
                datacenter=dc,
                cluster=parent.moid if parent is not None and in_cluster else None,
                connection_state=str(p.get("runtime.connectionState") or "unknown"),
                power_state=str(p.get("runtime.powerState") or "unknown"),
                in_maintenance=bool(p.get("runtime.inMaintenanceMode")),
                cpu_cores=cores,
                cpu_mhz_total=cores * int(p.get("summary.hardware.cpuMhz") or 0),
                cpu_mhz_used=int(p.get("summary.quickStats.overallCpuUsage") or 0),
                memory_bytes=int(p.get("summary.hardware.memorySize") or 0),
                memory_used_bytes=int(p.get("summary.quickStats.overallMemoryUsage") or 0) * _MIB,
                version=str(p.get("summary.config.product.version") or ""),
                datastores=datastores,
                networks=list(p.get("network") or []),
                luns=luns,
                vmkernel=vmkernel_nics(
                    p.get("config.network.vnic"), p.get("config.virtualNicManagerInfo.netConfig")
                ),
            )
        )

    for o in of_kind("Datastore"):
        if (dc := datacenter_of(o)) is None:
            continue
        p = o.props
        # Datastore.host and HostSystem.datastore are two views of the same mounts; take both, as some
        # endpoints (vcsim among them) fill in only one side for a datastore shared by several hosts.
        hosts = sorted(set(p.get("host") or []) | mounts.get(o.moid, set()))
        ds_type = str(p.get("summary.type") or "")
        url = _VMFS_URL.search(str(p.get("summary.url") or "")) if ds_type.upper() == "VMFS" else None
        extents: dict[str, bool] = {}  # canonical name → reached over a SAN by a host that reports it
        for h in hosts if url else []:
            for disk in host_volumes.get(h, {}).get(url.group(1) if url else "", []):
                lun = host_lun_by_name.get(h, {}).get(disk)
                extents[disk] = extents.get(disk, False) or (lun is not None and lun.san)
        inv.datastores.append(
            Datastore(
                moid=o.moid,
                name=p["name"],
                datacenter=dc,
                type=ds_type,
                capacity_bytes=int(p.get("summary.capacity") or 0),
                free_bytes=int(p.get("summary.freeSpace") or 0),
                accessible=bool(p.get("summary.accessible")),
                url=str(p.get("summary.url") or ""),
                hosts=hosts,
                luns=sorted(extents),
                san=bool(extents) and all(extents.values()),
            )
        )

    for o in of_kind("Network", "DistributedVirtualPortgroup", "OpaqueNetwork"):
        if UPLINK_TAG in (o.props.get("tag") or []):
            continue
        if (dc := datacenter_of(o)) is not None:
            inv.networks.append(Network(moid=o.moid, name=o.props["name"], datacenter=dc, kind=o.kind))

    for o in of_kind("VirtualMachine"):
        p = o.props
        host = p.get("summary.runtime.host")
        # A VM in a vApp has no folder parent; the host it is registered on still places it.
        dc = find_ancestor(o.moid, objects, ("Datacenter",)) or host_dc.get(host or "")
        if dc is None:
            datacenter_of(o)  # for the warning
            continue
        roots = getattr(p.get("snapshot"), "rootSnapshotList", None) or []
        inv.vms.append(
            VirtualMachine(
                moid=o.moid,
                name=p["name"],
                datacenter=dc,
                host=host,
                template=bool(p.get("summary.config.template")),
                power_state=str(p.get("summary.runtime.powerState") or "unknown"),
                guest_os=str(p.get("summary.config.guestFullName") or ""),
                num_cpu=int(p.get("summary.config.numCpu") or 0),
                memory_mb=int(p.get("summary.config.memorySizeMB") or 0),
                datastores=list(p.get("datastore") or []),
                snapshots=[snapshot_from_tree(tree) for tree in roots],
            )
        )
    return inv


def plain_value(name: str, value: Any) -> Any:
    """A retrieved property value with managed object references reduced to moids (no server calls)."""
    if isinstance(value, VmomiSupport.ManagedObject):
        return value._moId
    if name == "host" and isinstance(value, list):  # Datastore.host: the mounts, keyed by host
        return [m.key._moId for m in value if m.mountInfo is None or m.mountInfo.mounted is not False]
    if name == "tag" and isinstance(value, list):
        return [t.key for t in value]
    if isinstance(value, list):
        return [plain_value(name, v) for v in value]
    return value


def _filter_spec(view: Any, properties: Mapping[str, tuple[str, ...]]) -> Any:
    pc = vmodl.query.PropertyCollector
    traverse = pc.TraversalSpec(name="view", path="view", skip=False, type=vim.view.ContainerView)
    return pc.FilterSpec(
        objectSet=[pc.ObjectSpec(obj=view, skip=True, selectSet=[traverse])],
        propSet=[
            pc.PropertySpec(type=getattr(vim, t), pathSet=list(paths)) for t, paths in properties.items()
        ],
        reportMissingObjectsInResults=False,
    )


def retrieve_raw(
    content: Any,
    *,
    page_size: int | None = None,
    root: Any = None,
    types: Collection[str] = VIEW_TYPES,
    properties: Mapping[str, tuple[str, ...]] = PROPERTIES,
) -> list[RawObject]:
    """Every object of `types` under `root` (the root folder): one RetrievePropertiesEx plus its pages."""
    view = content.viewManager.CreateContainerView(
        root or content.rootFolder, [getattr(vim, t) for t in types], True
    )
    raw: list[RawObject] = []
    try:
        pc = content.propertyCollector
        options = vmodl.query.PropertyCollector.RetrieveOptions(maxObjects=page_size)
        result = pc.RetrievePropertiesEx([_filter_spec(view, properties)], options)
        while result is not None:
            for oc in result.objects:
                if oc.missingSet:
                    log.debug("%s: unreadable properties %s", oc.obj._moId, [m.path for m in oc.missingSet])
                props = {dp.name: plain_value(dp.name, dp.val) for dp in oc.propSet}
                raw.append(RawObject(moid=oc.obj._moId, kind=oc.obj._wsdlName, props=props))
            if not result.token:
                break
            result = pc.ContinueRetrievePropertiesEx(result.token)
    finally:
        view.Destroy()
    return raw


def read_inventory(si: Any, *, page_size: int | None = None) -> Inventory:
    """The datacenters, clusters, hosts, datastores, networks and VMs of a logged-in session.

    Four calls whatever the size of the vCenter: RetrieveServiceContent, CreateContainerView, one
    RetrievePropertiesEx (plus one ContinueRetrievePropertiesEx per further page of `page_size` objects
    when the server pages), DestroyView. Socket faults come out as the typed faults of provisioning.errors.
    """
    try:
        content = si.RetrieveContent()
        return build_inventory(about_from_content(content), retrieve_raw(content, page_size=page_size))
    except VCenterError:
        raise
    except Exception as exc:
        fault = translate_transport_error(exc, str(getattr(si._stub, "host", "vCenter")))
        if fault is None:
            raise
        raise fault from exc
