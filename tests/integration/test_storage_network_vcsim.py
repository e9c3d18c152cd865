"""The appliances' storage NIC against vcsim: a fleet with a storage port group is imported through the
manager's own deploy step (provisioning.appliances), and vCenter's view of each VM says which port group
each NIC is on; an unknown storage port group is refused before anything changes.

The OVA is the one the tests pack (support.ova), whose descriptor has both logical networks: the management
one (VM Network) and the Storage Network. The management port group is vcsim's standard 'VM Network', the
storage one a distributed port group of the lab site ('vsa-nfs').
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyVmomi import vim
from support.ova import make_ova
from support.provisioning import find, login_for

from lab.vcsim import CLUSTER, DATACENTER, Vcsim
from ovf.hardware import APPLIANCE_HARDWARE
from provisioning import apply as prov
from provisioning import ownership
from provisioning.appliances import appliance_works
from provisioning.diff import check, diff
from provisioning.errors import PlacementNotFound
from provisioning.live import read_state
from provisioning.plan import DeploymentPlan
from provisioning.tasks import Vc

pytestmark = pytest.mark.integration

MANAGEMENT = "VM Network"
STORAGE = "vsa-nfs"


@pytest.fixture(scope="module")
def ova(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_ova(tmp_path_factory.mktemp("ova"))


def storage_plan(name: str, ova: Path, storage_network: str | None) -> DeploymentPlan:
    """Two appliances; with `storage_network` each has a storage address on it."""
    appliances = [
        {
            "host": f"DC0_C0_H{i}",
            "name": f"{name}-vsa-{i}",
            "properties": {
                "hostname": f"vsa-{i}",
                "ipv4_address": f"192.0.2.{21 + i}",
                **({"storage_address": f"198.51.100.{21 + i}"} if storage_network else {}),
            },
        }
        for i in range(2)
    ]
    properties = {"ipv4_mode": "static", "ipv4_prefix": "24"}
    if storage_network:
        properties |= {"storage_prefix": "24", "storage_mtu": "9000"}
    fleet: dict[str, Any] = {
        "ova_path": str(ova),
        "network": MANAGEMENT,
        "storage_network": storage_network,
        "datastore": "san-lun-01",
        "properties": properties,
        "appliances": appliances,
    }
    return DeploymentPlan.model_validate(
        {"name": name, "datacenter": DATACENTER, "cluster": CLUSTER, "fleet": fleet}
    )


def deploy(site: Vcsim, plan: DeploymentPlan) -> list[vim.VirtualMachine]:
    """Each appliance imported by the manager's own first step of its Work (import, mark), nothing more."""
    assert plan.fleet is not None
    vc = Vc(login_for(site))
    live = read_state(vc.si, plan.datacenter, plan.cluster)
    check(plan, live)
    keys = ownership.field_keys(vc.content)

    def no_probe(*_: Any) -> str:
        raise AssertionError("only the import step runs here")

    works = appliance_works(
        vc, plan.name, plan.fleet, live, diff(plan, live).actions, keys, probe=no_probe, password=None
    )
    vms = [work.steps[0](vc, None) for work in works]
    assert all(isinstance(vm, vim.VirtualMachine) for vm in vms)
    return vms


def port_group_of(vm: vim.VirtualMachine, nic: Any) -> str:
    """The name of the port group a NIC's backing names, as vCenter reports it."""
    backing = nic.backing
    if isinstance(backing, vim.vm.device.VirtualEthernetCard.DistributedVirtualPortBackingInfo):
        return str(next(n.name for n in vm.network if n._moId == backing.port.portgroupKey))
    assert isinstance(backing, vim.vm.device.VirtualEthernetCard.NetworkBackingInfo), type(backing)
    return str(backing.deviceName)


def nics(vm: vim.VirtualMachine) -> list[Any]:
    """The VM's NICs in device order: the first is the OVF's first, the management NIC."""
    return sorted(
        (d for d in vm.config.hardware.device if isinstance(d, vim.vm.device.VirtualEthernetCard)),
        key=lambda d: d.key,
    )


def properties_of(vm: vim.VirtualMachine) -> dict[str, str]:
    return {p.id: p.value or "" for p in vm.config.vAppConfig.property}


def test_with_a_storage_port_group_the_second_nic_is_on_it_the_first_on_management(
    site: Vcsim, si: vim.ServiceInstance, ova: Path
) -> None:
    plan = storage_plan("stor", ova, STORAGE)
    for i, vm in enumerate(deploy(site, plan)):
        vm = find(si, f"vm/stor-vsa-{i}")  # read back through a session of its own: vCenter's view
        first, second = nics(vm)
        assert isinstance(first, vim.vm.device.VirtualVmxnet3) and isinstance(
            second, vim.vm.device.VirtualVmxnet3
        )
        assert (port_group_of(vm, first), port_group_of(vm, second)) == (MANAGEMENT, STORAGE)
        values = properties_of(vm)
        assert values["storage_mode"] == "static", "set for the admin with a storage port group"
        assert (values["storage_address"], values["storage_mtu"]) == (f"198.51.100.{21 + i}", "9000")
        assert values["ipv4_address"] == f"192.0.2.{21 + i}"


def test_without_one_both_nics_are_on_the_management_port_group_and_the_storage_nic_unconfigured(
    site: Vcsim, si: vim.ServiceInstance, ova: Path
) -> None:
    plan = storage_plan("plain", ova, None)
    deploy(site, plan)
    vm = find(si, "vm/plain-vsa-0")
    assert [port_group_of(vm, n) for n in nics(vm)] == [MANAGEMENT, MANAGEMENT]
    values = properties_of(vm)
    # no storage_* value is given: vcsim leaves them empty (vCenter shows the default, storage_mode none)
    assert {k: v for k, v in values.items() if k.startswith("storage_")} == dict.fromkeys(
        ("storage_mode", "storage_address", "storage_prefix", "storage_mtu"), ""
    )


def test_an_unknown_storage_port_group_is_refused_before_any_change(
    si: vim.ServiceInstance, ova: Path
) -> None:
    plan = storage_plan("gone", ova, "no-such-port-group")
    before = sorted(vm.name for vm in find(si, "vm").childEntity)
    with pytest.raises(PlacementNotFound) as caught:
        prov.plan(si, plan)
    assert caught.value.field == "fleet.storage_network"
    assert str(caught.value) == "no network 'no-such-port-group'"
    assert sorted(vm.name for vm in find(si, "vm").childEntity) == before


def test_the_ova_under_test_has_both_logical_networks() -> None:
    """The names the import maps are the hardware model's (a rename there must show here)."""
    assert (APPLIANCE_HARDWARE.network_name, APPLIANCE_HARDWARE.storage_network_name) == (
        "VM Network",
        "Storage Network",
    )
