"""The DeploymentPlan: what the wizard asks for, typed. Pure data, no vCenter calls.

One plan describes one deployment: per host an appliance from the OVA with its LUN disks, one NFS
datastore mounted on every host of the cluster, and one desktop pool. Every part is optional so that a
plan can grow step by step (fleet first, pool later) and apply creates only what is missing.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    StringConstraints,
    ValidationError,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from ovf import network_rules
from ovf.properties import INTEGER_TYPES, load_catalogue
from provisioning.certificate import normalise_thumbprint

#: a vSphere inventory name we create: no path separators, no characters vCenter escapes
Name = Annotated[
    str, StringConstraints(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._-]*$")
]
#: a deployment's id as recorded on every object it creates
OwnerId = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9._-]*$")]
#: a folder under the datacenter's VM folder, e.g. 'vdi/pool-a'
FolderPath = Annotated[
    str,
    StringConstraints(
        min_length=1, max_length=255, pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._-]*(/[A-Za-z0-9][A-Za-z0-9 ._-]*)*$"
    ),
]
Endpoint = Annotated[
    str, StringConstraints(min_length=3, max_length=260, pattern=r"^[A-Za-z0-9.\-\[\]:]+:[0-9]{1,5}$")
]

_HASHES = re.compile(r"#+")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


#: the vApp properties of the appliance's second NIC (ovf/properties.yaml, category "Storage network")
STORAGE_PREFIX = "storage_"


def refused(title: str, loc: tuple[str | int, ...], kind: str, message: str, value: Any) -> ValidationError:
    """A validation error of type `kind` at `loc`, below the model raising it.

    Raised from a model validator, pydantic keeps its loc (prefixed with the model's own), so the api's 422
    names the field itself, e.g. plan.fleet.appliances.1.properties.storage_address, not just the fleet.
    """
    error = PydanticCustomError(kind, message)
    return ValidationError.from_exception_data(title, [InitErrorDetails(type=error, loc=loc, input=value)])


def _number(values: dict[str, str], key: str) -> str:
    """An integer property's value, its catalogue default when empty or absent (as first boot takes it)."""
    return values.get(key, "").strip() or (load_catalogue().by_key()[key].default or "")


def _ipv4(value: str) -> bool:
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return True


#: a disk as the appliance's guest names it
GuestPath = Annotated[
    str, StringConstraints(min_length=17, max_length=200, pattern=r"^/dev/disk/by-id/[A-Za-z0-9._:+-]+$")
]
#: a SAN LUN as ESXi names it (HostScsiDisk.canonicalName), e.g. naa.600a0b80001234560000abcd12345678
LunName = Annotated[
    str, StringConstraints(min_length=5, max_length=100, pattern=r"^(naa|eui|t10|mpx)\.[A-Za-z0-9.:_-]+$")
]


class LunDisk(_Model):
    """One disk of an appliance's pool: a new thin VMDK on a VMFS datastore, or an RDM of the LUN.

    Its role is the pool's part it plays: a data disk (a SAN LUN), the SLOG (an SSD: the NFS datastore's
    sync writes land there first) or an L2ARC cache (an SSD: a read cache behind the ARC). In vSphere
    the SSDs are VMDKs on the host's local SSD datastores.
    """

    role: Literal["data", "log", "cache"] = Field(
        default="data",
        description="data = a SAN LUN of the pool; log = SLOG SSD (two make a mirror); cache = L2ARC SSD",
    )
    datastore: Name | None = Field(
        default=None,
        description="VMDK: VMFS datastore on a SAN LUN, visible to the appliance's host. "
        "RDM: where the mapping file goes (default: the appliance's own folder)",
    )
    size_gb: int | None = Field(
        default=None, ge=1, le=62 * 1024, description="VMDK: size of the new thin VMDK in GiB"
    )
    rdm_lun: LunName | None = Field(
        default=None,
        description="RDM: canonical name of the host's SCSI LUN to map raw (physical compatibility mode)",
    )
    guest_path: GuestPath | None = Field(
        default=None,
        description="The disk's /dev/disk/by-id path inside the appliance; by default it is found by its "
        "WWN (a VMDK's uuid with disk.EnableUUID, an RDM's NAA id)",
    )

    @model_validator(mode="after")
    def _vmdk_or_rdm(self) -> LunDisk:
        if self.rdm_lun is None and (self.datastore is None or self.size_gb is None):
            raise ValueError("a LUN disk is a VMDK (datastore and size_gb) or an RDM (rdm_lun)")
        if self.rdm_lun is not None and self.size_gb is not None:
            raise ValueError("an RDM has the LUN's size: give rdm_lun or size_gb, not both")
        return self

    def describe(self) -> str:
        """'100 GiB on san-lun-01', 'RDM of naa.6...', 'SLOG 16 GiB on ssd-01', 'L2ARC RDM of naa.5...'."""
        what = f"RDM of {self.rdm_lun}" if self.rdm_lun else f"{self.size_gb} GiB on {self.datastore}"
        return {"data": "", "log": "SLOG ", "cache": "L2ARC "}[self.role] + what


class ApplianceSpec(_Model):
    host: Name = Field(description="ESXi host (as vCenter names it) the appliance runs on")
    name: Name = Field(description="VM name of the appliance")
    properties: dict[str, str] = Field(
        default_factory=dict, description="OVF property values for this appliance (hostname, ipv4_address...)"
    )
    disks: list[LunDisk] = Field(
        default_factory=list, description="The disks the appliance pools: SAN LUNs, SLOG and L2ARC SSDs"
    )
    api_endpoint: Endpoint | None = Field(
        default=None,
        description="host:port of the appliance's api for the health wait; the lab appliance stands in here",
    )
    api_thumbprint_sha256: Annotated[str, AfterValidator(normalise_thumbprint)] | None = Field(
        default=None, description="SHA-256 thumbprint of the appliance api's certificate, to pin TLS"
    )

    @model_validator(mode="after")
    def _pool_roles(self) -> ApplianceSpec:
        # the pool the appliance builds: its data on the SAN LUNs, at most a mirrored SLOG, any L2ARC
        roles = [d.role for d in self.disks]
        if roles and "data" not in roles:
            raise ValueError(f"{self.name}: a pool needs at least one data disk (a SAN LUN), not only SSDs")
        if roles.count("log") > 2:
            raise ValueError(f"{self.name}: at most two SLOG disks (two make a mirror)")
        return self


class Fleet(_Model):
    ova_path: str = Field(min_length=1, description="Path of the appliance OVA on the machine running arcvsa")
    size: Literal["small", "medium", "large"] = Field(default="small", description="OVF deployment option")
    network: Name = Field(
        description="Port group the appliances' management NIC (the OVF's VM Network: web interface, api, SSH) "
        "maps to; without a storage_network, NFS and iSCSI are served there too"
    )
    storage_network: Name | None = Field(
        default=None,
        description="Port group the appliances' storage NIC (the OVF's Storage Network) maps to: the one of the "
        "ESXi hosts' storage VMkernel ports. Each appliance then needs its storage_address property, and serves "
        "NFS and iSCSI only there. None: the storage NIC maps to `network` and stays unconfigured",
    )
    datastore: Name = Field(description="Datastore for the appliances' boot disks")
    properties: dict[str, str] = Field(
        default_factory=dict, description="OVF property values shared by every appliance"
    )
    admin_password: SecretStr | None = Field(
        default=None, description="OVF admin_password; stored sealed, never in the plan's JSON"
    )
    appliances: list[ApplianceSpec] = Field(min_length=1, description="One appliance per ESXi host")
    health_timeout_s: float = Field(default=600.0, gt=0, le=3600, description="Wait for each appliance api")

    @model_validator(mode="after")
    def _known_properties(self) -> Fleet:
        # vCenter takes unknown keys without a word; the appliance would then boot without them
        catalogue = load_catalogue().by_key()
        for where, values in [("fleet", self.properties)] + [(a.name, a.properties) for a in self.appliances]:
            for key, value in values.items():
                spec = catalogue.get(key)
                if spec is None:
                    raise ValueError(f"{where}: {key!r} is not an OVF property of the appliance")
                if spec.password:
                    raise ValueError(f"{where}: {key!r} is a password: give it as fleet.admin_password")
                if spec.choices is not None and value not in spec.choices:
                    raise ValueError(f"{where}: {key}={value!r} is not one of {list(spec.choices)}")
        return self

    def _property_places(self) -> list[tuple[tuple[str | int, ...], dict[str, str]]]:
        """Where property values are given: the fleet's, then each appliance's, with their locs."""
        return [(("properties",), self.properties)] + [
            (("appliances", i, "properties"), a.properties) for i, a in enumerate(self.appliances)
        ]

    @model_validator(mode="after")
    def _integer_bounds(self) -> Fleet:
        # first boot refuses an out-of-range prefix or MTU only once the VM runs: refuse it here
        catalogue = load_catalogue().by_key()
        for where, values in self._property_places():
            for key, value in values.items():
                spec = catalogue.get(key)
                if spec is None or spec.type not in INTEGER_TYPES:
                    continue
                low, high = spec.min_value, spec.max_value
                if not value.strip():
                    continue  # first boot takes the default for an empty number
                number = int(value) if re.fullmatch(r"-?[0-9]{1,20}", value) else None
                if (
                    number is None
                    or (low is not None and number < low)
                    or (high is not None and number > high)
                ):
                    bounds = f" from {low} to {high}" if low is not None and high is not None else ""
                    raise refused(
                        "Fleet",
                        (*where, key),
                        "property_out_of_range",
                        f"{key} must be a whole number{bounds} ({spec.label}), not {value!r}",
                        value,
                    )
        return self

    @model_validator(mode="after")
    def _storage_network(self) -> Fleet:
        """The storage NIC's properties agree with storage_network.

        With a storage port group the appliances' storage_mode is static: it is set for the admin
        (ovf_values), and a storage_mode other than static is refused as a contradiction rather than
        overridden. Each appliance needs its own storage_address (in its properties, never the fleet's),
        unique in the fleet and not its ipv4_address. Without one, a storage_* value other than its default
        is refused: it would configure a NIC that is on the management port group.
        """
        catalogue = load_catalogue().by_key()
        if self.storage_network is None:
            for where, values in self._property_places():
                for key, value in values.items():
                    spec = catalogue.get(key)
                    if key.startswith(STORAGE_PREFIX) and spec is not None and value != spec.default:
                        raise refused(
                            "Fleet",
                            (*where, key),
                            "storage_network_missing",
                            f"{key}={value!r} configures the storage NIC: choose a storage port group "
                            "(storage_network, the port group of the ESXi hosts' storage VMkernel ports) "
                            f"or leave {key} out",
                            value,
                        )
            return self
        for where, values in self._property_places():
            mode = values.get("storage_mode")
            if mode is not None and mode != "static":
                raise refused(
                    "Fleet",
                    (*where, "storage_mode"),
                    "storage_mode_contradiction",
                    f"storage_mode={mode!r} contradicts the storage port group {self.storage_network!r}: "
                    "with one the storage NIC is static; leave storage_mode out",
                    mode,
                )
        if "storage_address" in self.properties:
            raise refused(
                "Fleet",
                ("properties", "storage_address"),
                "storage_address_shared",
                "each appliance has its own storage address: give storage_address in each appliance's "
                "properties, not the fleet's",
                self.properties["storage_address"],
            )
        seen: dict[str, str] = {}
        for i, a in enumerate(self.appliances):
            where = ("appliances", i, "properties", "storage_address")
            address = a.properties.get("storage_address", "")
            values = self.ovf_values(a)
            management = values.get("ipv4_address", "")
            if not address:
                raise refused(
                    "Fleet",
                    where,
                    "storage_address_missing",
                    f"{a.name}: give its storage_address, its IPv4 address on the storage port group "
                    f"{self.storage_network!r}",
                    address,
                )
            if not _ipv4(address):
                raise refused(
                    "Fleet",
                    where,
                    "storage_address_invalid",
                    f"{a.name}: storage_address {address!r} is not an IPv4 address (four numbers 0-255)",
                    address,
                )
            problem = "; ".join(
                network_rules.storage_problems(
                    ipaddress.IPv4Interface(f"{address}/{_number(values, 'storage_prefix')}"),
                    ipaddress.IPv4Interface(f"{management}/{_number(values, 'ipv4_prefix')}")
                    if management and _ipv4(management) and address != management
                    else None,
                )
            )
            if problem:
                # first boot would leave the storage NIC down over it, once the VM runs: refuse it here
                raise refused("Fleet", where, "storage_address_unusable", f"{a.name}: {problem}", address)
            if address == management:
                raise refused(
                    "Fleet",
                    where,
                    "storage_address_is_management",
                    f"{a.name}: storage_address {address} is its management address (ipv4_address): "
                    "the storage NIC needs an address of its own on the storage network",
                    address,
                )
            if address in seen:
                raise refused(
                    "Fleet",
                    where,
                    "storage_address_taken",
                    f"{a.name}: storage_address {address} is already the storage address of {seen[address]}",
                    address,
                )
            seen[address] = a.name
        return self

    def ovf_values(self, appliance: ApplianceSpec) -> dict[str, str]:
        """One appliance's vApp property values: the fleet's, its own over them, and storage_mode static
        when the fleet has a storage port group."""
        values = {**self.properties, **appliance.properties}
        if self.storage_network is not None:
            values["storage_mode"] = "static"
        return values

    def storage_addresses(self) -> list[str]:
        """Each appliance's storage address, in plan order (empty without a storage port group)."""
        if self.storage_network is None:
            return []
        return [a.properties.get("storage_address", "") for a in self.appliances]


class NfsDatastore(_Model):
    name: Name = Field(description="Datastore name, the same on every host")
    server: Annotated[str, StringConstraints(min_length=1, max_length=253)] = Field(
        description="NFS server address (the appliance's NFS network address)"
    )
    path: Annotated[str, StringConstraints(min_length=1, max_length=255, pattern=r"^/")] = Field(
        description="Exported path"
    )
    version: Literal["3", "4.1"] = Field(
        default="3", description="NFS version; one for every host, never both"
    )
    profile: (
        Literal["stateless-linked", "persistent-linked", "persistent-full", "stateless-full", "generic"]
        | None
    ) = Field(
        default=None,
        description="zfs-tuning profile of the appliances' dataset; default: the desktop pool's type, else generic",
    )
    clients: list[Annotated[str, StringConstraints(min_length=2, max_length=64)]] | None = Field(
        default=None,
        max_length=256,
        description="Addresses the appliances export to; default: every cluster host's VMkernel IPv4 address",
    )

    def dataset(self) -> tuple[str, str]:
        """(pool, dataset) the appliances serve `path` from: '/tank/vdi' → ('tank', 'tank/vdi')."""
        parts = self.path.strip("/").split("/")
        return parts[0], "/".join(parts)


class DesktopPoolSpec(_Model):
    name: Name = Field(description="Pool name")
    persistence: Literal["stateless", "persistent"] = Field(default="stateless", description="Pool type")
    clone: Literal["linked", "full"] = Field(default="linked", description="Clone type")
    count: int = Field(ge=1, le=4000, description="Number of desktops")
    naming: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*#+[A-Za-z0-9._-]*$",
        max_length=64,
        description="Desktop name pattern; the run of '#' is the zero-padded number, e.g. 'vdi-###'",
    )
    first_number: int = Field(default=1, ge=0, description="Number of the first desktop")
    folder: FolderPath = Field(description="VM folder under the datacenter; created if missing")
    resource_pool: Name | None = Field(
        default=None, description="Resource pool under the cluster's root pool; created if missing"
    )
    golden_vm: Name = Field(description="Golden image VM")
    snapshot: Name = Field(description="Snapshot of the golden VM to clone from (recompose: change it)")
    datastore: Name = Field(description="Datastore for the desktops (normally the arcvsa NFS datastore)")
    vcpus: int = Field(default=2, ge=1, le=64, description="vCPUs per desktop")
    memory_mb: int = Field(default=4096, ge=256, le=1024 * 1024, description="Memory per desktop, MiB")
    full_copy: Literal["vsphere", "zfs"] = Field(
        default="vsphere",
        description="Full clones: 'zfs' copies the golden VM's dataset on the arcvsa appliance with a ZFS "
        "clone per desktop (instant, shares blocks) and registers its VMX, instead of streaming the disk "
        "through vSphere",
    )
    customization_spec: Name | None = Field(default=None, description="Guest customization spec to apply")
    concurrency: int = Field(default=8, ge=1, le=64, description="Clones in flight at once")
    power_on: bool = Field(default=True, description="Power desktops on once made")
    delta_gb: float = Field(
        default=2.0, gt=0, description="Space a linked clone is expected to grow to, for the room check"
    )
    memory_overcommit: float = Field(
        default=4.0, ge=1, le=20, description="Desktop memory allowed per GiB of cluster memory"
    )

    def desktop_names(self) -> list[str]:
        """The names of every desktop of the pool, in number order."""
        return [self.desktop_name(self.first_number + i) for i in range(self.count)]

    def desktop_name(self, number: int) -> str:
        run = _HASHES.search(self.naming)
        assert run is not None  # the pattern guarantees one
        return self.naming[: run.start()] + str(number).zfill(len(run.group())) + self.naming[run.end() :]

    def matches(self, name: str) -> bool:
        """Whether `name` is one of this pattern's names, whatever its number (for shrink)."""
        run = _HASHES.search(self.naming)
        assert run is not None
        head, tail = self.naming[: run.start()], self.naming[run.end() :]
        body = name[len(head) : len(name) - len(tail) if tail else None]
        return name.startswith(head) and name.endswith(tail) and body.isdigit()

    @property
    def source(self) -> str:
        """What a desktop is cloned from, as recorded on it: recompose compares this."""
        return f"{self.golden_vm}@{self.snapshot}"


class HorizonSpec(_Model):
    """The Horizon Connection Server that gets the pool's desktops, once they exist, as a manual pool."""

    endpoint: Endpoint = Field(description="host:port of the Connection Server's REST API")
    thumbprint_sha256: Annotated[str, AfterValidator(normalise_thumbprint)] | None = Field(
        default=None, description="SHA-256 thumbprint to pin; else its certificate must verify (CA store)"
    )
    username: Annotated[str, StringConstraints(min_length=1, max_length=128)] = Field(
        description="Horizon administrator"
    )
    domain: Annotated[str, StringConstraints(min_length=1, max_length=128)] = Field(
        description="The administrator's domain"
    )
    password: SecretStr | None = Field(
        default=None, description="The administrator's password; stored sealed, never in the plan's JSON"
    )
    vcenter: Annotated[str, StringConstraints(min_length=1, max_length=253)] = Field(
        description="The vCenter as Horizon knows it (its server name in Horizon's vCenter list)"
    )
    pool_name: Name | None = Field(default=None, description="Horizon pool name; default: the pool's name")


class DeploymentPlan(_Model):
    name: OwnerId = Field(description="Deployment id, recorded on every object it creates")
    datacenter: Name = Field(description="Datacenter")
    cluster: Name = Field(description="Cluster the hosts belong to")
    fleet: Fleet | None = Field(default=None, description="The appliances, one per host")
    nfs: NfsDatastore | None = Field(default=None, description="The NFS datastore mounted on every host")
    pool: DesktopPoolSpec | None = Field(default=None, description="The desktop pool")
    horizon: HorizonSpec | None = Field(
        default=None, description="Hand the pool's desktops to Horizon as a manual desktop pool"
    )

    @model_validator(mode="after")
    def _one_appliance_per_host(self) -> DeploymentPlan:
        if self.horizon and not self.pool:
            raise ValueError("horizon hands the pool's desktops over: the plan needs a pool")
        if self.fleet:
            hosts = [a.host for a in self.fleet.appliances]
            names = [a.name for a in self.fleet.appliances]
            if len(set(hosts)) != len(hosts):
                raise ValueError("one appliance per host: a host is named twice")
            if len(set(names)) != len(names):
                raise ValueError("appliance names must differ")
            luns = [d.rdm_lun for a in self.fleet.appliances for d in a.disks if d.rdm_lun]
            if len(set(luns)) != len(luns):  # two pools on one LUN destroy each other
                raise ValueError("a LUN is mapped raw twice: each RDM LUN belongs to one appliance")
            if self.nfs and not re.fullmatch(
                r"/[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.:-]*)+", self.nfs.path
            ):
                raise ValueError(
                    "nfs.path must be /<pool>/<dataset>: the appliances build that pool and dataset"
                )
            storage = self.fleet.storage_addresses()
            if self.nfs and storage and self.nfs.server not in storage:
                # with a storage port group the appliances answer NFS on their storage address only
                raise refused(
                    "DeploymentPlan",
                    ("nfs", "server"),
                    "nfs_server_not_on_storage_network",
                    f"nfs.server {self.nfs.server!r} is not an appliance's storage address: with a storage port "
                    f"group the hosts mount the datastore there (one of {', '.join(storage)})",
                    self.nfs.server,
                )
        return self

    def storage_profile(self) -> str:
        """The zfs-tuning profile (pool type) of the appliances' dataset: the desktop pool's type."""
        if self.nfs and self.nfs.profile:
            return self.nfs.profile
        return f"{self.pool.persistence}-{self.pool.clone}" if self.pool else "generic"
