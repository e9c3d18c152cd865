"""destroy of a pool whose desktops are ZFS clones: once their VMs are gone, their clones and arcvsa's golden
snapshot go through the appliance's api (the real app on the 'zfs_clones' recording), and only theirs."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.appliance import fleet_flows
from pyVmomi import vim
from support.appliance_server import replayed_appliances
from support.provisioning import find, first_contacts, login_for

import provisioning.destroy as destroying
from lab.vcsim import CLUSTER, DATACENTER, DATASTORES, Vcsim, wait_for_task
from provisioning import ownership
from provisioning.appliance_api import ApplianceApi
from provisioning.destroy import ZfsClones, destroy
from provisioning.nfs import nas_spec
from provisioning.plan import NfsDatastore
from provisioning.progress import Event, Options

pytestmark = pytest.mark.integration

NFS = "zc-nfs"


def desktop(si: vim.ServiceInstance, name: str, datastore: str) -> vim.VirtualMachine:
    """A desktop of deployment 'zc' registered from its own folder of `datastore` ('[ds] name/name.vmx')."""
    spec = vim.vm.ConfigSpec(name=name, guestId="otherGuest", numCPUs=1, memoryMB=128,
                             files=vim.vm.FileInfo(vmPathName=f"[{datastore}]"))  # fmt: skip
    cluster = find(si, f"host/{CLUSTER}")
    vm = wait_for_task(si, find(si, "").vmFolder.CreateVM_Task(spec, cluster.resourcePool), 30)
    content = si.RetrieveContent()
    ownership.mark(content, ownership.field_keys(content), vm, owner="zc", source="golden@base")
    return vm


def test_the_desktops_clones_and_arcvsa_s_snapshot_go_once_the_desktops_are_destroyed(
    site: Vcsim, si: vim.ServiceInstance, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert site.workdir is not None
    (site.workdir / NFS).mkdir()
    spec = nas_spec(NfsDatastore(name=NFS, server="192.0.2.21", path=f"/{fleet_flows.DATASET}"))
    find(si, f"host/{CLUSTER}").host[0].configManager.datastoreSystem.CreateNasDatastore(spec)
    for name in fleet_flows.DESKTOPS:
        desktop(si, name, NFS)
    desktop(si, "zc-04", DATASTORES[0])  # a full copy through vSphere: no clone of its own
    with replayed_appliances(tmp_path, 1, "zfs_clones", fleet_flows.PASSWORD) as [(server, runner)]:
        api = ApplianceApi(server.endpoint, server.thumbprint, name="zc-vsa")
        fleet_flows.clone_setup(api)
        fleet_flows.clone_flow(api)
        fleet_flows.foreign_clone(api)  # the admin's clone of the golden, named like a desktop: it stays
        calls = len(runner.calls)
        zfs = ZfsClones("zc-vsa", server.endpoint, None, fleet_flows.POOL, fleet_flows.DATASET, NFS)
        contacts = first_contacts(monkeypatch, destroying)
        events: list[Event] = []
        report = destroy(login_for(site), "zc", DATACENTER, CLUSTER,
                         Options(password=fleet_flows.PASSWORD, on_event=events.append), zfs=zfs)  # fmt: skip
    assert report.failed == {}
    assert report.done[-1] == "zfs-clones:zc-vsa" and sorted(report.done[:-1]) == [
        *fleet_flows.DESKTOPS,
        "zc-04",
    ]
    snapshot = f"{fleet_flows.DATASET}/{fleet_flows.GOLDEN}@arcvsa-{fleet_flows.SNAPSHOT}"
    clones = [f"{fleet_flows.DATASET}/{n}" for n in fleet_flows.DESKTOPS]
    destroyed = [c[-1] for c in runner.calls[calls:] if c[:2] == ["zfs", "destroy"]]
    assert destroyed == [*clones, snapshot]
    said = [(e.kind, e.message) for e in events if e.object == "zfs-clones:zc-vsa"]
    assert said == [("done", f"destroyed {', '.join([*clones, snapshot])}")]
    assert contacts == [30.0], "an unpinned appliance is given 30 s to answer its first contact"
