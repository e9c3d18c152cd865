"""The arcvsa NFS datastore on every host of the cluster: same server, path, name and version everywhere,
so vCenter sees one datastore. Host datastore calls are synchronous (no task).
"""

from __future__ import annotations

from typing import Any

from pyVmomi import vim, vmodl

from provisioning import ownership
from provisioning.plan import NfsDatastore


def nas_spec(nfs: NfsDatastore) -> Any:
    spec = vim.host.NasVolume.Specification(
        remoteHost=nfs.server,
        remotePath=nfs.path,
        localPath=nfs.name,
        accessMode="readWrite",
        type="NFS" if nfs.version == "3" else "NFS41",
    )
    if nfs.version == "4.1":
        spec.remoteHostNames = [nfs.server]
    return spec


def mount(content: Any, host: Any, nfs: NfsDatastore, owner: str, keys: dict[str, int]) -> Any:
    """Mount on one host and mark the datastore; returns it.

    Some endpoints (vcsim) answer a mount on a 2nd+ host with an empty reference: find it by name then.
    """
    ds = host.configManager.datastoreSystem.CreateNasDatastore(nas_spec(nfs))
    if ds is None or not getattr(ds, "_moId", None):
        ds = next((d for d in host.datastore if d.name == nfs.name), None)
    if ds is None:
        raise vim.fault.NotFound(msg=f"{host.name} mounted {nfs.name!r} but does not list it")
    ownership.mark(content, keys, ds, owner=owner)
    return ds


def unmount(host: Any, datastore: Any) -> Any:
    """Unmount from one host (None); the datastore disappears with its last mount.

    vcsim lacks HostDatastoreSystem.RemoveDatastore: there the datastore's Destroy_Task removes it from
    every host at once, and that task is returned for the caller to wait on (and stop unmounting).
    """
    try:
        host.configManager.datastoreSystem.RemoveDatastore(datastore)
        return None
    except vmodl.fault.MethodNotFound:
        return datastore.Destroy_Task()
