"""Deploy the OVA we pack into vcsim through pyVmomi, as vCenter's deploy wizard would.

CreateImportSpec (property values, deployment option) -> ResourcePool.ImportVApp -> HttpNfcLease
upload of the streamOptimized VMDK over HTTPS (pinned) with HttpNfcLeaseProgress ->
HttpNfcLeaseComplete, then the VM's vApp properties are read back. vcsim has no ParseDescriptor
and trusts the descriptor, so the import validates it with our validator first.

The test runs its own vcsim: the session fixture's inventory must not change.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path
from typing import Any

import pytest
from pyVmomi import vim
from support.ova import PROPERTY_VALUES, ova_under_test

from lab.vcsim import DATACENTER, DATASTORES, Vcsim
from ovf.descriptor import serialize
from ovf.envelope import parse_envelope, property_keys
from ovf.errors import DescriptorInvalid
from ovf.namespaces import OVF, q
from provisioning.certificate import pinned_context
from provisioning.ovf_import import OvfManagerLike, create_import_spec, upload, wait_lease

pytestmark = pytest.mark.integration

PROPERTIES = PROPERTY_VALUES
TIMEOUT = 60.0


@pytest.fixture(scope="module")
def ova(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ova_under_test(tmp_path_factory.mktemp("ova"))


def _member(ova: Path, suffix: str) -> bytes:
    with tarfile.open(ova) as tar:
        name = next(n for n in tar.getnames() if n.endswith(suffix))
        fh = tar.extractfile(name)
        assert fh is not None
        return fh.read()


def _placement(
    si: vim.ServiceInstance,
) -> tuple[vim.Datacenter, vim.ResourcePool, vim.Datastore, vim.Network]:
    content = si.RetrieveContent()
    dc = next(
        e for e in content.rootFolder.childEntity if isinstance(e, vim.Datacenter) and e.name == DATACENTER
    )
    cluster = next(e for e in dc.hostFolder.childEntity if isinstance(e, vim.ClusterComputeResource))
    datastore = next(d for d in dc.datastore if d.name == DATASTORES[0])
    network = next(n for n in dc.network if n.name == "VM Network")
    assert cluster.resourcePool is not None
    return dc, cluster.resourcePool, datastore, network


def _upload(url: str, endpoint: str, data: bytes, thumbprint: str, lease: vim.HttpNfcLease) -> list[int]:
    """POST the VMDK with provisioning.ovf_import.upload, reporting progress to the lease."""
    sent: list[int] = []
    total = 0

    def chunk(n: int) -> None:
        nonlocal total
        total += n
        sent.append(min(99, total * 100 // len(data)))
        lease.HttpNfcLeaseProgress(sent[-1])

    upload(url, endpoint, io.BytesIO(data), len(data), pinned_context(thumbprint), on_chunk=chunk)
    return sent


def _ovf_manager(si: vim.ServiceInstance) -> OvfManagerLike:
    manager = si.RetrieveContent().ovfManager
    assert manager is not None
    return manager


def _find_vm(si: vim.ServiceInstance, dc: vim.Datacenter, name: str) -> vim.VirtualMachine | None:
    index = si.RetrieveContent().searchIndex
    assert index is not None
    found = index.FindChild(dc.vmFolder, name)
    return found if isinstance(found, vim.VirtualMachine) else None


def test_ova_imports_with_properties_and_deployment_option(
    si: vim.ServiceInstance, site: Vcsim, ova: Path
) -> None:
    dc, pool, datastore, network = _placement(si)
    descriptor = _member(ova, ".ovf")
    disk_name = next(f.get(q(OVF, "href")) for f in parse_envelope(descriptor).iter(q(OVF, "File")))
    vmdk = _member(ova, ".vmdk")
    name = "arcvsa-import-medium"

    result = create_import_spec(
        _ovf_manager(si),
        descriptor,
        pool,
        datastore,
        network,
        name=name,
        option="medium",
        values=PROPERTIES,
    )
    assert not result.error, [e.localizedMessage for e in result.error]
    assert [item.path for item in result.fileItem] == [disk_name]

    lease = pool.ImportVApp(spec=result.importSpec, folder=dc.vmFolder, host=None)
    wait_lease(lease)
    assert lease.info is not None
    uploads = {item.deviceId: item for item in result.fileItem}
    progress: list[int] = []
    for device in lease.info.deviceUrl:
        assert device.importKey in uploads, f"no file for {device.importKey}"
        progress += _upload(device.url, f"{site.host}:{site.port}", vmdk, site.thumbprint_sha256, lease)
    assert progress and progress == sorted(progress)
    received = lease.HttpNfcLeaseGetManifest()
    assert [(m.sha1, m.size) for m in received] == [(hashlib.sha1(vmdk).hexdigest(), len(vmdk))]  # noqa: S324
    lease.HttpNfcLeaseComplete()

    vm = _find_vm(si, dc, name)
    assert vm is not None, "the imported VM is in the datacenter's VM folder"
    config: Any = vm.config
    assert config is not None and config.vAppConfig is not None
    values = {p.id: p.value or "" for p in config.vAppConfig.property}
    assert list(values) == property_keys(parse_envelope(descriptor))
    assert values == {key: PROPERTIES.get(key, "") for key in values}
    labels = {p.id: p.label for p in config.vAppConfig.property}
    assert labels["admin_password"] == "Administrator password"
    assert (config.hardware.numCPU, config.hardware.memoryMB) == (4, 16384), "the medium option"
    devices = config.hardware.device
    assert any(isinstance(d, vim.vm.device.ParaVirtualSCSIController) for d in devices)
    assert any(isinstance(d, vim.vm.device.VirtualVmxnet3) for d in devices)
    assert any(isinstance(d, vim.vm.device.VirtualDisk) for d in devices)
    assert config.version == "vmx-19"


def test_default_option_is_small(si: vim.ServiceInstance, ova: Path) -> None:
    _dc, pool, datastore, network = _placement(si)
    result = create_import_spec(
        _ovf_manager(si),
        _member(ova, ".ovf"),
        pool,
        datastore,
        network,
        name="arcvsa-spec-only",
        option="",
        values={},
    )
    spec = result.importSpec.configSpec
    assert (spec.numCPUs, spec.memoryMB) == (2, 8192)


class RecordingOvfManager:
    """Stands in for vCenter's OvfManager to prove it is never reached with a bad descriptor."""

    def __init__(self) -> None:
        self.calls = 0

    def CreateImportSpec(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        raise AssertionError("CreateImportSpec must not be called")


def test_malformed_descriptor_is_refused_before_vcsim(si: vim.ServiceInstance, ova: Path) -> None:
    dc, pool, datastore, network = _placement(si)
    root = parse_envelope(_member(ova, ".ovf"))
    disk = root.find(f"{q(OVF, 'DiskSection')}/{q(OVF, 'Disk')}")
    assert disk is not None
    disk.set(q(OVF, "fileRef"), "file-gone")
    spy = RecordingOvfManager()
    with pytest.raises(DescriptorInvalid, match="ovf:fileRef 'file-gone' names no References/File"):
        create_import_spec(
            spy, serialize(root), pool, datastore, network, name="bad", option="small", values={}
        )
    assert spy.calls == 0
    assert _find_vm(si, dc, "bad") is None
