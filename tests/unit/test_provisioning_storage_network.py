"""The appliances' storage NIC: the plan's storage_network and storage_* properties (provisioning.plan), the
import spec's network mapping (provisioning.ovf_import) and the port group check (provisioning.diff).

Each refusal starts from a fleet that is accepted and changes one thing, so it can only come from the rule
under test; the value just inside each bound is accepted, the one just outside refused, and every refusal
names the field it is about (its loc below the plan) and its type.
"""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from pydantic import ValidationError
from pyVmomi import vim

from ovf.descriptor import DescriptorInputs, DiskImage, Product, build_envelope, serialize
from ovf.hardware import APPLIANCE_HARDWARE
from ovf.namespaces import OVF, RASD, q
from provisioning.diff import check
from provisioning.errors import PlacementNotFound
from provisioning.live import LiveDatastore, LiveHost, LiveState
from provisioning.ovf_import import ImportFailed, create_import_spec
from provisioning.plan import DeploymentPlan, Fleet

GIB = 1024**3
MANAGEMENT, STORAGE = APPLIANCE_HARDWARE.network_name, APPLIANCE_HARDWARE.storage_network_name


def appliance(n: int, **properties: str) -> dict[str, Any]:
    return {
        "host": f"esx{n}",
        "name": f"vsa-{n}",
        "properties": {"ipv4_address": f"192.0.2.{20 + n}", **properties},
    }


#: two appliances on a storage port group, each with its own storage address
STORAGE_FLEET: dict[str, Any] = {
    "ova_path": "x.ova", "network": "vsa", "storage_network": "storage", "datastore": "san",
    "properties": {"ipv4_mode": "static", "ipv4_prefix": "24", "storage_prefix": "24", "storage_mtu": "9000"},
    "appliances": [appliance(1, storage_address="198.51.100.11"), appliance(2, storage_address="198.51.100.12")],
}  # fmt: skip
#: the same fleet without one: the storage NIC stays on the management port group, unconfigured
PLAIN_FLEET: dict[str, Any] = {
    "ova_path": "x.ova", "network": "vsa", "datastore": "san",
    "properties": {"ipv4_mode": "static", "ipv4_prefix": "24"},
    "appliances": [appliance(1), appliance(2)],
}  # fmt: skip


def fleet(base: dict[str, Any], change: Any = None) -> dict[str, Any]:
    """A deep copy of `base`, changed in place by `change`."""
    spec = copy.deepcopy(base)
    if change is not None:
        change(spec)
    return spec


def refusal(spec: dict[str, Any]) -> dict[str, Any]:
    """The one error of a refused fleet (the test fails when it is accepted)."""
    with pytest.raises(ValidationError) as caught:
        Fleet.model_validate(spec)
    errors = caught.value.errors()
    assert len(errors) == 1, errors
    return dict(errors[0])


def props(i: int | None, **values: str) -> Any:
    """A change setting property values on appliance i (None: the fleet's)."""

    def change(spec: dict[str, Any]) -> None:
        target = spec["properties"] if i is None else spec["appliances"][i]["properties"]
        target.update(values)

    return change


def without(i: int, key: str) -> Any:
    return lambda spec: spec["appliances"][i]["properties"].pop(key)


# --- the plan: with a storage port group ---------------------------------------------------------------


def test_both_baselines_are_accepted() -> None:
    Fleet.model_validate(STORAGE_FLEET)
    Fleet.model_validate(PLAIN_FLEET)


def test_with_a_storage_port_group_storage_mode_is_static_for_the_admin() -> None:
    f = Fleet.model_validate(STORAGE_FLEET)
    values = f.ovf_values(f.appliances[1])
    assert values["storage_mode"] == "static" and values["storage_address"] == "198.51.100.12"
    assert values["storage_mtu"] == "9000" and values["ipv4_address"] == "192.0.2.22"
    assert "storage_mode" not in f.properties, "derived for the import, not written into the plan"


def test_without_one_nothing_is_added() -> None:
    f = Fleet.model_validate(PLAIN_FLEET)
    assert "storage_mode" not in f.ovf_values(f.appliances[0])


def test_storage_mode_static_given_is_accepted_none_is_a_contradiction() -> None:
    Fleet.model_validate(fleet(STORAGE_FLEET, props(None, storage_mode="static")))
    Fleet.model_validate(fleet(STORAGE_FLEET, props(1, storage_mode="static")))
    e = refusal(fleet(STORAGE_FLEET, props(None, storage_mode="none")))
    assert e["type"] == "storage_mode_contradiction" and e["loc"] == ("properties", "storage_mode")
    assert "contradicts the storage port group 'storage'" in e["msg"]
    e = refusal(fleet(STORAGE_FLEET, props(1, storage_mode="none")))
    assert e["loc"] == ("appliances", 1, "properties", "storage_mode")


@pytest.mark.parametrize("i", [0, 1])
def test_every_appliance_needs_its_storage_address(i: int) -> None:
    e = refusal(fleet(STORAGE_FLEET, without(i, "storage_address")))
    assert e["type"] == "storage_address_missing"
    assert e["loc"] == ("appliances", i, "properties", "storage_address")
    assert (
        e["msg"]
        == f"vsa-{i + 1}: give its storage_address, its IPv4 address on the storage port group 'storage'"
    )
    e = refusal(fleet(STORAGE_FLEET, props(i, storage_address="")))
    assert e["type"] == "storage_address_missing"


def test_a_storage_address_for_the_whole_fleet_is_refused() -> None:
    e = refusal(fleet(STORAGE_FLEET, props(None, storage_address="198.51.100.10")))
    assert e["type"] == "storage_address_shared" and e["loc"] == ("properties", "storage_address")
    assert "give storage_address in each appliance's properties" in e["msg"]


@pytest.mark.parametrize(
    ("address", "prefix"),
    [("198.51.100.1", "24"), ("198.51.100.254", "24"), ("198.51.100.255", "23"), ("203.0.113.0", "31")],
)
def test_a_host_address_of_its_subnet_is_accepted(address: str, prefix: str) -> None:
    Fleet.model_validate(fleet(STORAGE_FLEET, props(0, storage_address=address, storage_prefix=prefix)))


@pytest.mark.parametrize(
    ("address", "prefix", "said"),
    [
        ("0.0.0.0", "24", "is not a host address"),  # noqa: S104
        ("127.0.0.1", "24", "is not a host address"),
        ("224.0.0.5", "24", "is not a host address"),
        ("255.255.255.255", "24", "is not a host address"),
        ("169.254.10.10", "16", "is not a host address"),
        ("198.51.100.0", "24", "is the network address of 198.51.100.0/24"),
        ("198.51.100.255", "24", "is the broadcast address of 198.51.100.0/24"),
        ("198.51.101.255", "23", "is the broadcast address of 198.51.100.0/23"),
    ],
)
def test_an_address_first_boot_could_not_use_is_refused(address: str, prefix: str, said: str) -> None:
    e = refusal(fleet(STORAGE_FLEET, props(0, storage_address=address, storage_prefix=prefix)))
    assert e["type"] == "storage_address_unusable" and said in e["msg"]
    assert e["loc"] == ("appliances", 0, "properties", "storage_address")


@pytest.mark.parametrize(
    "address",
    ["198.51.100.256", "198.51.100", "198.51.100.11.1", "198.51.100.011", " 198.51.100.11", "storage-1"],
)
def test_a_storage_address_that_is_no_ipv4_address_is_refused(address: str) -> None:
    e = refusal(fleet(STORAGE_FLEET, props(0, storage_address=address)))
    assert e["type"] == "storage_address_invalid" and e["loc"] == (
        "appliances",
        0,
        "properties",
        "storage_address",
    )
    assert f"storage_address {address!r} is not an IPv4 address" in e["msg"]


def test_a_storage_address_must_not_be_the_appliances_own_management_address() -> None:
    e = refusal(fleet(STORAGE_FLEET, props(1, storage_address="192.0.2.22")))
    assert e["type"] == "storage_address_is_management"
    assert e["loc"] == ("appliances", 1, "properties", "storage_address")
    assert e["msg"].startswith("vsa-2: storage_address 192.0.2.22 is its management address")
    # the fleet's ipv4_address counts where the appliance has none of its own
    shared = fleet(STORAGE_FLEET, without(0, "ipv4_address"))
    shared["properties"]["ipv4_address"] = "198.51.100.11"
    assert refusal(shared)["type"] == "storage_address_is_management"
    # another appliance's management address is in this one's management subnet: refused as an overlap
    assert (
        refusal(fleet(STORAGE_FLEET, props(1, storage_address="192.0.2.21")))["type"]
        == "storage_address_unusable"
    )


def test_storage_addresses_are_unique_across_the_fleet() -> None:
    e = refusal(fleet(STORAGE_FLEET, props(1, storage_address="198.51.100.11")))
    assert e["type"] == "storage_address_taken" and e["loc"] == (
        "appliances",
        1,
        "properties",
        "storage_address",
    )
    assert e["msg"] == "vsa-2: storage_address 198.51.100.11 is already the storage address of vsa-1"
    Fleet.model_validate(fleet(STORAGE_FLEET, props(1, storage_address="198.51.100.13")))


@pytest.mark.parametrize(
    ("key", "value", "ok"),
    [
        # /1 would hold the management subnet (refused as an overlap): 16 stands for a wide one here
        ("storage_prefix", "16", True), ("storage_prefix", "32", True), ("storage_prefix", "", True),
        ("storage_prefix", "0", False), ("storage_prefix", "33", False),
        ("storage_prefix", "24.0", False),
        ("storage_mtu", "1280", True), ("storage_mtu", "9000", True),
        ("storage_mtu", "1279", False), ("storage_mtu", "9001", False), ("storage_mtu", "jumbo", False),
    ],
)  # fmt: skip
def test_the_storage_prefix_and_mtu_are_held_to_their_bounds(key: str, value: str, ok: bool) -> None:
    for where, loc in ((None, ("properties", key)), (0, ("appliances", 0, "properties", key))):
        spec = fleet(STORAGE_FLEET, props(where, **{key: value}))
        if ok:
            Fleet.model_validate(spec)
            continue
        e = refusal(spec)
        assert e["type"] == "property_out_of_range" and e["loc"] == loc
        assert e["msg"].startswith(f"{key} must be a whole number from ")


# --- the plan: without a storage port group -----------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [("storage_mode", "none"), ("storage_address", ""), ("storage_prefix", "24"), ("storage_mtu", "1500")],
)
def test_without_a_storage_port_group_the_defaults_are_accepted(key: str, value: str) -> None:
    Fleet.model_validate(fleet(PLAIN_FLEET, props(None, **{key: value})))
    Fleet.model_validate(fleet(PLAIN_FLEET, props(1, **{key: value})))


@pytest.mark.parametrize(
    ("key", "value"),
    [("storage_mode", "static"), ("storage_address", "198.51.100.11"), ("storage_prefix", "25"),
     ("storage_mtu", "9000")],
)  # fmt: skip
@pytest.mark.parametrize("where", [None, 1])
def test_without_a_storage_port_group_anything_else_is_refused(
    key: str, value: str, where: int | None
) -> None:
    e = refusal(fleet(PLAIN_FLEET, props(where, **{key: value})))
    assert e["type"] == "storage_network_missing"
    assert e["loc"] == (("properties",) if where is None else ("appliances", where, "properties")) + (key,)
    assert f"{key}={value!r} configures the storage NIC: choose a storage port group" in e["msg"]


# --- the plan: the NFS server is on the storage network ------------------------------------------------

NFS: dict[str, Any] = {"name": "arc", "path": "/tank/vdi"}


def test_with_a_storage_port_group_the_nfs_server_is_a_storage_address() -> None:
    base = {"name": "dep", "datacenter": "dc", "cluster": "c", "fleet": STORAGE_FLEET}
    DeploymentPlan.model_validate({**base, "nfs": {**NFS, "server": "198.51.100.11"}})
    DeploymentPlan.model_validate({**base, "nfs": {**NFS, "server": "198.51.100.12"}})
    with pytest.raises(ValidationError) as caught:
        DeploymentPlan.model_validate({**base, "nfs": {**NFS, "server": "192.0.2.21"}})
    (e,) = caught.value.errors()
    assert e["type"] == "nfs_server_not_on_storage_network" and e["loc"] == ("nfs", "server")
    assert "one of 198.51.100.11, 198.51.100.12" in e["msg"]
    plain = {**base, "fleet": PLAIN_FLEET, "nfs": {**NFS, "server": "192.0.2.21"}}
    DeploymentPlan.model_validate(plain)


def test_a_refusal_names_its_field_below_the_plan() -> None:
    """What the api's 422 carries in errors[0].loc (after body), and the wizard shows at that field."""
    with pytest.raises(ValidationError) as caught:
        DeploymentPlan.model_validate(
            {
                "name": "dep",
                "datacenter": "dc",
                "cluster": "c",
                "fleet": fleet(STORAGE_FLEET, without(1, "storage_address")),
            }
        )
    (e,) = caught.value.errors()
    assert e["loc"] == ("fleet", "appliances", 1, "properties", "storage_address")


# --- the import spec: which port group each NIC is on --------------------------------------------------

INPUTS = DescriptorInputs(
    product=Product(version="1.2.3", full_version="v1.2.3"),
    disk=DiskImage(href="arcvsa-disk1.vmdk", size=1024, capacity=GIB, populated_size=1024),
)


class RecordingOvfManager:
    """Stands in for vCenter's OvfManager: keeps the params it was asked with."""

    def __init__(self) -> None:
        self.params: list[Any] = []

    def CreateImportSpec(self, descriptor: str, pool: Any, datastore: Any, params: Any) -> Any:
        self.params.append(params)
        return params


def one_nic_descriptor() -> bytes:
    """A descriptor of an OVA made before the storage NIC: only the management network and its NIC."""
    env = build_envelope(INPUTS)
    section = env.find(q(OVF, "NetworkSection"))
    assert section is not None
    for net in list(section.iter(q(OVF, "Network"))):
        if net.get(q(OVF, "name")) == STORAGE:
            section.remove(net)
    hardware = env.find(f"{q(OVF, 'VirtualSystem')}/{q(OVF, 'VirtualHardwareSection')}")
    assert hardware is not None
    for item in list(hardware.iter(q(OVF, "Item"))):
        connection = item.find(q(RASD, "Connection"))
        if connection is not None and connection.text == STORAGE:
            hardware.remove(item)
    return serialize(env)


def mapping(manager: RecordingOvfManager) -> dict[str, str]:
    return {m.name: m.network._moId for m in manager.params[-1].networkMapping}


def spec_for(descriptor: bytes, storage: Any = None) -> RecordingOvfManager:
    manager = RecordingOvfManager()
    create_import_spec(
        manager, descriptor, None, None, vim.Network("network-mgmt"),
        name="vsa-1", option="small", values={}, storage_network=storage,
    )  # fmt: skip
    return manager


def test_the_storage_network_maps_to_the_storage_port_group_the_management_one_to_network() -> None:
    manager = spec_for(serialize(build_envelope(INPUTS)), vim.Network("network-storage"))
    assert mapping(manager) == {MANAGEMENT: "network-mgmt", STORAGE: "network-storage"}


def test_without_a_storage_port_group_both_nics_are_on_the_management_one() -> None:
    manager = spec_for(serialize(build_envelope(INPUTS)))
    assert mapping(manager) == {MANAGEMENT: "network-mgmt", STORAGE: "network-mgmt"}


def test_an_ova_with_one_nic_deploys_without_a_storage_port_group_and_is_refused_with_one() -> None:
    descriptor = one_nic_descriptor()
    assert mapping(spec_for(descriptor)) == {MANAGEMENT: "network-mgmt"}
    manager = RecordingOvfManager()
    with pytest.raises(ImportFailed, match="the OVA has no 'Storage Network'") as caught:
        create_import_spec(
            manager, descriptor, None, None, vim.Network("network-mgmt"),
            name="vsa-1", option="small", values={}, storage_network=vim.Network("network-storage"),
        )  # fmt: skip
    assert caught.value.field == "fleet.storage_network" and manager.params == [], "vCenter never asked"


def test_a_network_the_appliance_does_not_have_is_refused_before_vcenter() -> None:
    env = build_envelope(INPUTS)
    section = env.find(q(OVF, "NetworkSection"))
    assert section is not None
    ET.SubElement(section, q(OVF, "Network"), {q(OVF, "name"): "Backup Network"})
    manager = RecordingOvfManager()
    with pytest.raises(ImportFailed, match="networks the appliance does not have: \\['Backup Network'\\]"):
        create_import_spec(
            manager, serialize(env), None, None, vim.Network("n"), name="vsa-1", option="small", values={}
        )
    assert manager.params == []


# --- the live check: the storage port group is resolved like the management one -----------------------


def host(moid: str, *networks: str) -> LiveHost:
    return LiveHost(moid=moid, memory_bytes=128 * GIB, memory_used_bytes=0, cpu_mhz=2000, cpu_cores=16,
                    cpu_threads=32, cpu_used_mhz=0, networks=set(networks))  # fmt: skip


def live() -> LiveState:
    return LiveState(
        datacenter="datacenter-1", vm_folder="group-v1", cluster="domain-c1", root_pool="resgroup-1",
        cluster_memory_bytes=64 * GIB, hosts={"esx1": "host-1", "esx2": "host-2"},
        cluster_hosts={"esx1": "host-1", "esx2": "host-2"},
        datastores={"san": LiveDatastore("datastore-1", "san", "VMFS", 1000 * GIB, 900 * GIB, None, {"host-1", "host-2"})},
        networks={"vsa": "network-1", "storage": "dvportgroup-2"},
        kinds={"network-1": "Network", "dvportgroup-2": "DistributedVirtualPortgroup"},
        folders={}, folder_owners={}, pools={}, pool_owners={}, vms={},
        host_stats={"esx1": host("host-1", "network-1", "dvportgroup-2"), "esx2": host("host-2", "network-1", "dvportgroup-2")},
    )  # fmt: skip


def plan(**fleet_change: Any) -> DeploymentPlan:
    return DeploymentPlan.model_validate(
        {"name": "dep", "datacenter": "dc", "cluster": "c", "fleet": {**STORAGE_FLEET, **fleet_change}}
    )


def test_a_known_storage_port_group_every_host_sees_passes() -> None:
    check(plan(), live())
    check(
        DeploymentPlan.model_validate(
            {"name": "dep", "datacenter": "dc", "cluster": "c", "fleet": PLAIN_FLEET}
        ),
        live(),
    )


def test_an_unknown_storage_port_group_is_refused_on_its_field() -> None:
    with pytest.raises(PlacementNotFound) as caught:
        check(plan(storage_network="gone"), live())
    assert str(caught.value) == "no network 'gone'" and caught.value.field == "fleet.storage_network"


def test_the_storage_port_group_is_looked_for_on_every_host_with_figures() -> None:
    state = live()
    state.host_stats["esx2"].networks = {"network-1"}
    with pytest.raises(PlacementNotFound) as caught:
        check(plan(), state)
    assert caught.value.field == "fleet.storage_network"
    assert str(caught.value).startswith("host 'esx2' has no port group 'storage': add it")
    del state.host_stats["esx2"]  # vCenter gives no figures for it: nothing to look at
    check(plan(), state)


def test_the_management_port_group_is_checked_first() -> None:
    with pytest.raises(PlacementNotFound) as caught:
        check(plan(network="gone", storage_network="also-gone"), live())
    assert caught.value.field == "fleet.network"


def test_a_storage_subnet_overlapping_the_management_one_is_refused_and_a_neighbour_taken() -> None:
    # the appliances' management addresses are 192.0.2.2x/24
    e = refusal(fleet(STORAGE_FLEET, props(0, storage_address="192.0.2.200")))
    assert e["type"] == "storage_address_unusable"
    assert "the storage network 192.0.2.0/24 overlaps the management network 192.0.2.0/24" in e["msg"]
    e = refusal(fleet(STORAGE_FLEET, props(0, storage_address="192.0.3.1", storage_prefix="16")))
    assert "192.0.0.0/16 overlaps the management network 192.0.2.0/24" in e["msg"]
    Fleet.model_validate(fleet(STORAGE_FLEET, props(0, storage_address="192.0.3.1")))
