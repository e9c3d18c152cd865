"""The changes to this appliance's disks, pools and datasets: verbs the control service runs as root
(api.privileged), each refreshing the parts of the published state it touched before it answers.

The routes (api.storage.routes) validate and refuse what they can without a tool, then ask for one of
these; a verb checks again what only the machine knows (an export serving a dataset) before its tools run.
"""

from __future__ import annotations

from zfs_tuning import profiles

from api.exports import service as exports
from api.privileged.host import Host
from api.state import poll
from api.state.deps import DATASET_PARTS, IMPORT_PARTS, POOL_PARTS
from api.storage.schemas import (
    CloneCreate,
    DatasetCreate,
    DatasetUpdate,
    SnapshotCreate,
    VolumeCreate,
    ZfsPoolGrow,
    ZfsPoolReplace,
)
from appliance.control import datasets, imports, labels, names, pools
from appliance.control.datasets import Dataset
from appliance.control.disks import Disk
from appliance.control.errors import Conflict
from appliance.control.observed import Part
from appliance.control.pools import ZfsPoolHealth, ZfsPoolSpec


def wipe_disk(host: Host, path: str) -> Disk:
    wiped = labels.wipe(host.storage_gateway, path)
    poll.after_change(host, IMPORT_PARTS)
    return wiped


def create_pool(host: Host, spec: ZfsPoolSpec) -> ZfsPoolHealth:
    health = pools.create(host.storage_gateway, spec)
    poll.after_change(host, POOL_PARTS)
    return health


def destroy_pool(host: Host, name: str, free_disks: bool) -> None:
    _refuse_if_exported(host, names.pool(name))
    if free_disks:
        labels.destroy_and_free(host.storage_gateway, name)
    else:
        pools.destroy(host.storage_gateway, name)
    poll.after_change(host, POOL_PARTS)


def grow_pool(host: Host, name: str, grow: ZfsPoolGrow) -> ZfsPoolHealth:
    health = pools.add(
        host.storage_gateway, names.pool(name), grow.devices, layout=grow.layout, force=grow.force
    )
    poll.after_change(host, POOL_PARTS)
    return health


def replace_device(host: Host, name: str, replace: ZfsPoolReplace) -> ZfsPoolHealth:
    health = pools.replace(
        host.storage_gateway, names.pool(name), replace.old, replace.new, force=replace.force
    )
    poll.after_change(host, POOL_PARTS)
    return health


def clear_pool(host: Host, name: str) -> ZfsPoolHealth:
    health = pools.clear(host.storage_gateway, names.pool(name))
    poll.after_change(host, (Part.pools,))
    return health


def scrub_pool(host: Host, name: str) -> ZfsPoolHealth:
    pools.scrub(host.storage_gateway, names.pool(name))
    health = pools.status(host.storage_gateway, name)
    poll.after_change(host, (Part.pools,))
    return health


def export_pool(host: Host, name: str) -> None:
    _refuse_if_exported(host, names.pool(name))
    pools.export(host.storage_gateway, name)
    poll.after_change(host, IMPORT_PARTS)


def import_pool(host: Host, name: str) -> ZfsPoolHealth:
    health = pools.import_pool(host.storage_gateway, names.pool(name))
    poll.after_change(host, IMPORT_PARTS)
    return health


def import_by_id(host: Host, pool_id: str, new_name: str | None) -> ZfsPoolHealth:
    health = imports.import_by_id(host.storage_gateway, pool_id, new_name)
    poll.after_change(host, IMPORT_PARTS)
    return health


def create_dataset(host: Host, create: DatasetCreate) -> Dataset:
    made = datasets.create_for_profile(
        host.storage_gateway, create.name, profiles.load(create.profile), create.properties
    )
    poll.after_change(host, DATASET_PARTS)
    return made


def create_volume(host: Host, create: VolumeCreate) -> Dataset:
    made = datasets.create_volume(
        host.storage_gateway, create.name, create.size_bytes, volblocksize=create.volblocksize
    )
    poll.after_change(host, DATASET_PARTS)
    return made


def create_snapshot(host: Host, create: SnapshotCreate) -> Dataset:
    made = datasets.snapshot(host.storage_gateway, create.name)
    poll.after_change(host, DATASET_PARTS)
    return made


def create_clone(host: Host, create: CloneCreate) -> Dataset:
    made = datasets.clone(host.storage_gateway, create.snapshot, create.target, create.properties)
    poll.after_change(host, DATASET_PARTS)
    return made


def destroy_dataset(host: Host, name: str) -> None:
    """``name`` below a pool's root (the route refused the root itself)."""
    _refuse_if_exported(host, name)
    datasets.destroy(host.storage_gateway, names.child_dataset(name))
    poll.after_change(host, DATASET_PARTS)


def update_dataset(host: Host, name: str, update: DatasetUpdate) -> Dataset:
    made = datasets.set_properties(host.storage_gateway, names.dataset(name), update.properties)
    poll.after_change(host, DATASET_PARTS)
    return made


def destroy_snapshot(host: Host, name: str) -> None:
    datasets.destroy(host.storage_gateway, names.snapshot(name))
    poll.after_change(host, DATASET_PARTS)


# The storage verbs the control service answers (api.privileged.verbs).
VERBS = (
    wipe_disk,
    create_pool,
    destroy_pool,
    grow_pool,
    replace_device,
    clear_pool,
    scrub_pool,
    export_pool,
    import_pool,
    import_by_id,
    create_dataset,
    create_volume,
    create_snapshot,
    create_clone,
    destroy_dataset,
    update_dataset,
    destroy_snapshot,
)


def _refuse_if_exported(host: Host, name: str) -> None:
    """409 naming the export when NFS serves ``name`` or a dataset below it."""
    with host.sessionmaker() as db:
        for export in exports.desired(db):
            if export.dataset == name or export.dataset.startswith(name + "/"):
                raise Conflict(
                    f"NFS export {export.export_id} uses {export.dataset}: delete the export first"
                )
