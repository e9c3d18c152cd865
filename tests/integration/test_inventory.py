"""read_inventory against the lab vCenter: the whole site, in one RetrievePropertiesEx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lab import vcsim as lab
from provisioning.inventory import Inventory, read_inventory
from provisioning.session import connect

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def si(vcsim: lab.Vcsim) -> Iterator[Any]:
    with connect(
        vcsim.host, vcsim.port, vcsim.username, vcsim.password, thumbprint_sha256=vcsim.thumbprint_sha256
    ) as si:
        yield si


@pytest.fixture(scope="module")
def inv(si: Any) -> Inventory:
    return read_inventory(si)


def _record_calls(si: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the SOAP methods and lazy property reads the session makes from now on."""
    stub, calls = si._stub, []
    invoke, access = stub.InvokeMethod, stub.InvokeAccessor

    def invoke_method(mo: Any, info: Any, args: Any, *rest: Any) -> Any:
        calls.append(info.wsdlName)
        return invoke(mo, info, args, *rest)

    def invoke_accessor(mo: Any, info: Any) -> Any:
        calls.append(f"read {type(mo).__name__}.{info.name}")
        return access(mo, info)

    monkeypatch.setattr(stub, "InvokeMethod", invoke_method)
    monkeypatch.setattr(stub, "InvokeAccessor", invoke_accessor)
    return calls


def test_the_whole_inventory_is_one_retrieval(si: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _record_calls(si, monkeypatch)
    read_inventory(si)
    assert calls == ["RetrieveServiceContent", "CreateContainerView", "RetrievePropertiesEx", "DestroyView"]


def test_the_recorder_sees_lazy_property_reads(si: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Guards the test above: a reader that fetched properties one by one would show up like this.
    calls = _record_calls(si, monkeypatch)
    si.RetrieveContent().rootFolder.childEntity[0].name  # noqa: B018
    assert any(c.startswith("read ") for c in calls)


def test_pages_are_followed_and_give_the_same_inventory(
    si: Any, inv: Inventory, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _record_calls(si, monkeypatch)
    paged = read_inventory(si, page_size=5)
    assert calls.count("RetrievePropertiesEx") == 1
    assert calls.count("ContinueRetrievePropertiesEx") >= 3
    assert calls[-1] == "DestroyView"
    assert paged == inv


def test_one_datacenter_with_the_cluster_and_its_four_hosts(inv: Inventory) -> None:
    assert [d.name for d in inv.datacenters] == [lab.DATACENTER]
    dc = inv.datacenters[0].moid
    [cluster] = inv.clusters
    assert (cluster.name, cluster.datacenter, cluster.drs_enabled, cluster.ha_enabled) == (
        lab.CLUSTER,
        dc,
        True,
        True,
    )
    assert len(inv.hosts) == lab.HOST_COUNT
    for host in inv.hosts:
        assert (host.datacenter, host.cluster) == (dc, cluster.moid)
        assert host.connection_state == "connected" and host.power_state == "poweredOn"
        assert host.cpu_cores > 0 and host.cpu_mhz_total >= host.cpu_cores
        assert 0 < host.cpu_mhz_used <= host.cpu_mhz_total
        assert 0 < host.memory_used_bytes <= host.memory_bytes
        assert host.version


def test_two_shared_datastores_with_their_figures(inv: Inventory) -> None:
    assert [d.name for d in inv.datastores] == list(lab.DATASTORES)
    all_hosts = sorted(h.moid for h in inv.hosts)
    for ds in inv.datastores:
        assert ds.type == "OTHER"  # what vcsim reports for its directory-backed datastores
        assert ds.capacity_bytes > 0 and 0 < ds.free_bytes <= ds.capacity_bytes
        assert ds.accessible and ds.url.endswith(ds.name)
        assert ds.hosts == all_hosts
    for host in inv.hosts:
        assert sorted(host.datastores) == sorted(d.moid for d in inv.datastores)


def test_networks_include_the_port_groups(inv: Inventory) -> None:
    by_name = {n.name: n for n in inv.networks}
    assert by_name["VM Network"].kind == "Network"
    port_groups = {by_name[name].moid for name in lab.PORT_GROUPS}
    assert {by_name[name].kind for name in lab.PORT_GROUPS} == {"DistributedVirtualPortgroup"}
    for host in inv.hosts:
        assert port_groups <= set(host.networks)


def test_the_golden_image_and_its_snapshot(inv: Inventory) -> None:
    vms = {v.name: v for v in inv.vms}
    assert set(vms) == {lab.GOLDEN_VM, *lab.DESKTOP_VMS}
    golden = vms[lab.GOLDEN_VM]
    assert golden.power_state == "poweredOff" and not golden.template
    assert (golden.num_cpu, golden.memory_mb, golden.guest_os) == (2, 4096, lab.GUEST_ID)
    [snapshot] = golden.snapshots
    assert (snapshot.name, snapshot.children) == (lab.GOLDEN_SNAPSHOT, [])
    assert snapshot.moid.startswith("snapshot-") and snapshot.created
    ds_by_name = {d.name: d.moid for d in inv.datastores}
    assert golden.datastores == [ds_by_name[lab.DATASTORES[0]]]


def test_desktops_run_on_the_cluster_hosts(inv: Inventory) -> None:
    hosts = {h.moid for h in inv.hosts}
    datastores = {d.moid for d in inv.datastores}
    for vm in inv.vms:
        assert vm.datacenter == inv.datacenters[0].moid
        assert vm.host in hosts and set(vm.datastores) <= datastores
        if vm.name in lab.DESKTOP_VMS:
            assert vm.power_state == "poweredOn" and vm.snapshots == []


def test_every_host_lists_its_scsi_disks_and_not_its_cd_rom(inv: Inventory) -> None:
    # vcsim's hosts have one local disk on a parallel SCSI adapter and a CD-ROM on a block adapter; their
    # VMFS volumes name a simulated extent, so the disk holds no VMFS: an RDM candidate (not a SAN one).
    for host in inv.hosts:
        [lun] = host.luns
        assert lun.canonical_name == "mpx.vmhba0:C0:T0:L0"
        assert lun.display_name == "Local VMware, Disk (mpx.vmhba0:C0:T0:L0)"
        assert (lun.vendor, lun.model) == ("VMware,", "VMware Virtual S")
        assert lun.capacity_bytes == 32 << 30
        assert (lun.ssd, lun.transport, lun.san, lun.vmfs) == (True, "parallel", False, False)


def test_the_directory_datastores_are_not_on_a_lun(inv: Inventory) -> None:
    assert [(d.luns, d.san) for d in inv.datastores] == [([], False)] * len(lab.DATASTORES)
