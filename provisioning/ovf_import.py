"""Import an OVA through vCenter: CreateImportSpec, ImportVApp, HttpNfcLease upload with byte progress.

The descriptor is checked with our own validator first: vcsim has no ParseDescriptor, trusts whatever it
is sent and can crash on a broken envelope. Disks are streamed from the OVA straight to the lease's
device URLs over the session's own TLS context (pinned or verified), never unverified.
"""

from __future__ import annotations

import http.client
import ssl
import tarfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, Protocol
from urllib.parse import urlsplit

from pyVmomi import vim, vmodl

from ovf.hardware import APPLIANCE_HARDWARE
from ovf.namespaces import OVF, q
from ovf.validator import validate_descriptor
from provisioning import cancel
from provisioning.errors import VCenterError

CHUNK = 1024 * 1024
LEASE_TIMEOUT = 120.0

Progress = Callable[[int, int], None]  # (bytes sent, bytes total)


class OvfManagerLike(Protocol):
    def CreateImportSpec(self, *args: Any, **kwargs: Any) -> Any: ...


class ImportFailed(VCenterError):
    """vCenter refused the OVA or its upload failed."""


def create_import_spec(
    ovf_manager: OvfManagerLike,
    descriptor: bytes,
    pool: Any,
    datastore: Any,
    network: Any,
    *,
    name: str,
    option: str,
    values: Mapping[str, str],
    storage_network: Any = None,
) -> Any:
    """Validate the descriptor ourselves, then ask vCenter for an import spec.

    The descriptor's management network (VM Network) maps to `network`, its Storage Network to
    `storage_network`, or to `network` when there is none (the storage NIC then stays unconfigured).
    Refused before vCenter is asked: a logical network the appliance does not have, and a storage port
    group for an OVA whose descriptor has no Storage Network (one made before the second NIC).
    """
    root = validate_descriptor(descriptor)
    names = [n.get(q(OVF, "name"), "") for n in root.iter(q(OVF, "Network"))]
    targets = {
        APPLIANCE_HARDWARE.network_name: network,
        APPLIANCE_HARDWARE.storage_network_name: network if storage_network is None else storage_network,
    }
    unknown = [n for n in names if n not in targets]
    if unknown:
        raise ImportFailed(f"the OVA's descriptor names networks the appliance does not have: {unknown}")
    if storage_network is not None and APPLIANCE_HARDWARE.storage_network_name not in names:
        raise ImportFailed(
            f"the OVA has no {APPLIANCE_HARDWARE.storage_network_name!r} (its appliance has one NIC): deploy a "
            "newer OVA, or leave the storage port group empty",
            field="fleet.storage_network",
        )
    params = vim.OvfManager.CreateImportSpecParams(
        entityName=name,
        deploymentOption=option,
        diskProvisioning="thin",
        propertyMapping=[vim.KeyValue(key=k, value=v) for k, v in values.items()],
        networkMapping=[vim.OvfManager.NetworkMapping(name=n, network=targets[n]) for n in names],
    )
    return ovf_manager.CreateImportSpec(descriptor.decode(), pool, datastore, params)


def wait_lease(lease: Any, timeout: float = LEASE_TIMEOUT, cancelled: cancel.Switch = cancel.never) -> None:
    deadline = time.monotonic() + timeout
    while lease.state == vim.HttpNfcLease.State.initializing:
        if time.monotonic() > deadline:
            raise ImportFailed("the HttpNfcLease stayed 'initializing'")
        cancel.sleep(0.1, cancelled, "while vCenter prepared the OVA import")
    if lease.state != vim.HttpNfcLease.State.ready:
        raise ImportFailed(f"the HttpNfcLease is {lease.state}: {getattr(lease.error, 'msg', lease.error)}")


def upload(
    url: str,
    endpoint: str,
    stream: IO[bytes],
    size: int,
    ctx: ssl.SSLContext,
    *,
    on_chunk: Callable[[int], None],
    timeout: float = 60.0,
    cancelled: cancel.Switch = cancel.never,
) -> None:
    """POST `size` bytes of `stream` to a lease device URL; calls on_chunk(n) after each chunk.

    A device URL whose host is '*' means 'the host:port you connected to' (vSphere API docs).
    Raises Cancelled between two chunks once `cancelled()`.
    """
    parts = urlsplit(url.replace("*", endpoint, 1))
    conn = http.client.HTTPSConnection(parts.hostname or "", parts.port or 443, context=ctx, timeout=timeout)
    try:
        _post(conn, parts.path, stream, size, on_chunk, cancelled)
    except (OSError, http.client.HTTPException) as exc:  # this appliance failed, not the whole run
        raise ImportFailed(f"disk upload to {parts.hostname}:{parts.port} failed: {exc!r}") from exc
    finally:
        conn.close()


def _post(
    conn: http.client.HTTPSConnection,
    path: str,
    stream: IO[bytes],
    size: int,
    on_chunk: Callable[[int], None],
    cancelled: cancel.Switch,
) -> None:
    conn.putrequest("POST", path)
    conn.putheader("Content-Type", "application/x-vnd.vmware-streamVmdk")
    conn.putheader("Content-Length", str(size))
    conn.endheaders()
    while chunk := stream.read(CHUNK):
        cancel.check(cancelled, "during the OVA upload")
        conn.send(chunk)
        on_chunk(len(chunk))
    response = conn.getresponse()
    response.read()
    if response.status != 200:
        raise ImportFailed(f"disk upload answered HTTP {response.status}")


def import_ova(
    si: Any,
    ova: Path,
    *,
    name: str,
    option: str,
    values: Mapping[str, str],
    pool: Any,
    folder: Any,
    datastore: Any,
    network: Any,
    storage_network: Any = None,
    host: Any = None,
    on_progress: Progress | None = None,
    cancelled: cancel.Switch = cancel.never,
) -> Any:
    """Deploy `ova` as VM `name`; returns the VM. Byte progress goes to on_progress and to the lease.

    `network`, `storage_network`: the port groups of its management and storage NICs (create_import_spec).

    A cancel during the upload aborts the lease: vCenter removes the half-imported VM itself.
    """
    stub = si._stub
    ctx = stub.schemeArgs.get("context")
    if not isinstance(ctx, ssl.SSLContext):
        raise ImportFailed("the session has no TLS context to upload with")  # never fall back to unverified
    content = si.RetrieveContent()
    with tarfile.open(ova, "r:") as tar:
        members = {m.name: m for m in tar.getmembers()}
        descriptor_member = next(m for m in tar.getmembers() if m.name.endswith(".ovf"))
        fh = tar.extractfile(descriptor_member)
        assert fh is not None
        result = create_import_spec(
            content.ovfManager,
            fh.read(),
            pool,
            datastore,
            network,
            name=name,
            option=option,
            values=values,
            storage_network=storage_network,
        )
        if result.error:
            raise ImportFailed("; ".join(e.localizedMessage or str(e) for e in result.error))
        files = {item.deviceId: item for item in result.fileItem}
        total = sum(members[item.path].size for item in files.values())
        lease = pool.ImportVApp(spec=result.importSpec, folder=folder, host=host)
        wait_lease(lease, cancelled=cancelled)
        sent = 0

        def chunk(n: int) -> None:
            nonlocal sent
            sent += n
            lease.HttpNfcLeaseProgress(min(99, sent * 100 // max(total, 1)))
            if on_progress:
                on_progress(sent, total)

        try:
            for device in lease.info.deviceUrl:
                item = files.get(device.importKey)
                if item is None:
                    continue
                stream = tar.extractfile(members[item.path])
                assert stream is not None
                size = members[item.path].size
                upload(device.url, stub.host, stream, size, ctx, on_chunk=chunk, cancelled=cancelled)
        except BaseException as exc:
            lease.HttpNfcLeaseAbort(vmodl.MethodFault(msg=str(exc)))
            raise
        vm = lease.info.entity  # read first: the lease is gone once complete
        lease.HttpNfcLeaseComplete()
        return vm
