"""A vCenter's inventory, read in one PropertyCollector retrieval."""

from __future__ import annotations

from pydantic import BaseModel, Field


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


class Datastore(BaseModel):
    moid: str = Field(description="Managed object id")
    name: str = Field(description="Datastore name")
    datacenter: str = Field(description="moid of its datacenter")
    type: str = Field(description="File system type: 'VMFS', 'NFS', 'NFS41', 'vsan', 'vvol' or what vCenter says")
    capacity_bytes: int = Field(description="Capacity in bytes")
    free_bytes: int = Field(description="Free space in bytes")
    accessible: bool = Field(description="Whether the datastore is accessible")
    url: str = Field(description="The datastore URL (ds:///vmfs/volumes/...)")
    hosts: list[str] = Field(description="moids of the hosts that mount it")


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
