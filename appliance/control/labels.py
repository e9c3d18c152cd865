"""Clearing what a pool leaves on its disks, so they are free again: ZFS labels, then the partition table.

``zpool destroy`` marks a pool destroyed but leaves its labels and the GPT it made on each whole disk;
:func:`disks.resolve` then finds partitions with a ``zfs_member`` signature and wants force. Clearing them
is what makes a destroyed pool's disks free, and what a disk carrying another system's pool needs before
it is used here. A disk of an imported pool, a mounted one or the system's is never touched.
"""

from __future__ import annotations

from appliance.control import disks, names, pools
from appliance.control.disks import Disk
from appliance.control.errors import DeviceInUse, Refused
from appliance.control.gateway import Gateway, Rules

# labelclear refuses a device of an imported pool ("... is a member (ACTIVE) of pool"); wipefs a busy disk.
RULES: Rules = (
    (r"is a member \(ACTIVE\)|is a member of active pool|resource busy", DeviceInUse),
    *pools.RULES,
)
TIMEOUT = 120.0  # both write a few sectors at each end of the device; a stalled LUN is the slow case
SETTLE = ["udevadm", "settle", f"--timeout={pools.SETTLE_TIMEOUT}"]


def pool_of(gw: Gateway, disk: Disk) -> str | None:
    """The imported pool that uses ``disk`` (whole or a partition of it), if any."""
    for name in pools.list_names(gw):
        for vdev in pools.status(gw, name).vdevs:
            if vdev.path and _names_it(disk, vdev.path):
                return name
    return None


def wipe(gw: Gateway, path: str) -> Disk:
    """Clear the ZFS labels and the partition table of the disk at ``path``; return it, free.

    Refused: an unknown disk (NotFound), the system's disk (Refused), a mounted one or one an imported
    pool uses (DeviceInUse, naming the pool). A disk of an exported pool or another system's is wiped:
    the caller asked for it by name.
    """
    names.device(path)  # before any tool runs
    disk = disks.find(disks.inventory(gw), path)
    if disk.system:
        raise Refused(f"{path} holds the running system")
    if disk.mounted:
        raise DeviceInUse(f"{path} {disk.in_use}: unmount it first")
    pool = pool_of(gw, disk)
    if pool is not None:
        raise DeviceInUse(f"{path} belongs to the imported pool {pool}: destroy or export the pool first")
    _clear(gw, disk, disk.zfs_labels)
    gw.run(SETTLE, timeout=pools.SETTLE_TIMEOUT + 30)
    return disks.find(disks.inventory(gw), disk.path)


def destroy_and_free(gw: Gateway, pool: str) -> list[Disk]:
    """Destroy ``pool`` and clear the labels of every disk it used (data, SLOG, L2ARC); return them.

    A clearing that fails after the destroy leaves the pool gone and that disk as the Disks page shows
    it (partitions, an old label): its wipe there finishes the job.
    """
    health = pools.status(gw, pool)
    known = disks.inventory(gw)
    used: dict[str, tuple[Disk, list[str]]] = {}  # by the disk's path, in the pool's vdev order
    for vdev in health.vdevs:
        owner = next((d for d in known if vdev.path and _names_it(d, vdev.path)), None)
        if owner is not None and vdev.path is not None:
            used.setdefault(owner.path, (owner, []))[1].append(vdev.path)
    pools.destroy(gw, pool)
    for disk, leaves in used.values():
        _clear(gw, disk, leaves)  # zpool's own leaves: blkid does not always see a SLOG's label
    gw.run(SETTLE, timeout=pools.SETTLE_TIMEOUT + 30)
    after = disks.inventory(gw)
    return [disks.find(after, path) for path in used]


def _names_it(disk: Disk, path: str) -> bool:
    """Whether a vdev's path is the disk or one of its partitions (zpool adds -part1 to a by-id name)."""
    return path in disk.aliases or path.startswith(f"{disk.path}-part")


def _clear(gw: Gateway, disk: Disk, labelled: list[str]) -> None:
    """Each ZFS label (on the disk or its partitions), then every signature of the whole disk: the GPT
    ZFS made, its backup at the end and the protective MBR; wipefs has the kernel read the table again."""
    for device in labelled:
        gw.run(["zpool", "labelclear", "-f", device], rules=RULES, timeout=TIMEOUT)
    gw.run(["wipefs", "-a", disk.path], rules=RULES, timeout=TIMEOUT)
