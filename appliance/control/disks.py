"""Disk discovery (``lsblk -J -b``): LUNs and SSDs with stable by-id names, and the in-use check.

A disk "holds data" when it has partitions, a file system signature (``zfs_member`` included) or a
mount. Pools are built only from free disks unless the caller forces it; whole disks only.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from appliance.control import names
from appliance.control.errors import BadOutput, DeviceInUse, NotFound, Refused
from appliance.control.gateway import Gateway

COLUMNS = (
    "NAME,PATH,ID-LINK,SIZE,ROTA,SERIAL,WWN,MODEL,TYPE,FSTYPE,MOUNTPOINTS,PHY-SEC,LOG-SEC,DISC-GRAN,DISC-MAX"
)
LSBLK = ["lsblk", "-J", "-b", "-o", COLUMNS]
WHOLE_DISK_TYPES = {"disk", "mpath"}


class BlockDevice(BaseModel):
    """One row of ``lsblk -J -b`` (children nested)."""

    name: str = Field(description="kernel name, e.g. vdb")
    path: str = Field(description="device node, e.g. /dev/vdb")
    id_link: str | None = Field(None, alias="id-link", description="shortest /dev/disk/by-id name")
    size: int = Field(description="size in bytes")
    rota: bool = Field(description="the kernel's rotational flag")
    serial: str | None = Field(None, description="serial number (virtio serial= in the lab)")
    wwn: str | None = Field(None, description="World Wide Name of a SAN LUN")
    model: str | None = Field(None, description="model string")
    type: str = Field(description="disk, part, rom, loop, mpath ...")
    fstype: str | None = Field(None, description="signature found on it (zfs_member, ext4 ...)")
    mountpoints: list[str | None] = Field(default_factory=list, description="where it is mounted")
    phy_sec: int = Field(512, alias="phy-sec", description="physical sector size in bytes")
    log_sec: int = Field(512, alias="log-sec", description="logical sector size in bytes")
    disc_gran: int = Field(0, alias="disc-gran", description="discard granularity (0: no TRIM)")
    children: list[BlockDevice] = Field(default_factory=list, description="partitions and holders")


class Disk(BaseModel):
    """A whole disk as the wizard shows it."""

    path: str = Field(description="stable path: /dev/disk/by-id/<id> when there is one")
    kernel_path: str = Field(description="the /dev node")
    serial: str | None = Field(description="serial number")
    wwn: str | None = Field(description="World Wide Name")
    model: str | None = Field(description="model")
    size_bytes: int = Field(description="size in bytes")
    rotational: bool = Field(description="the kernel says it spins (virtio disks always do in the lab)")
    physical_sector: int = Field(description="physical sector size in bytes (decides ashift)")
    trim: bool = Field(description="supports discard (decides autotrim)")
    in_use: str | None = Field(description="why it is not free (partitions, signature, mount), or None")
    system: bool = Field(description="holds the running system (a mount of / or /boot): never usable")
    zfs_labels: list[str] = Field(
        default_factory=list,
        description="the disk or its partitions that carry a ZFS label (what a wipe clears first)",
    )
    mounted: bool = Field(False, description="the disk or one of its partitions is mounted")
    aliases: list[str] = Field(
        default_factory=list,
        exclude=True,
        description="every path naming the disk or one of its partitions (how zpool may list it)",
    )

    @property
    def name(self) -> str:
        """What a person types to confirm a wipe: the last part of its stable path (virtio-lun0)."""
        return self.path.rsplit("/", 1)[-1]


def _in_use(dev: BlockDevice) -> str | None:
    if any(m for m in dev.mountpoints):
        return f"mounted on {', '.join(m for m in dev.mountpoints if m)}"
    if dev.fstype:
        return f"holds a {dev.fstype} signature"
    if dev.children:
        inner = [c.fstype for c in dev.children if c.fstype] + [
            m for c in dev.children for m in c.mountpoints if m
        ]
        return f"has partitions ({', '.join(inner) or 'no signature'})"
    return None


def _mounts(dev: BlockDevice) -> set[str]:
    return {m for m in dev.mountpoints if m} | {m for c in dev.children for m in _mounts(c)}


def _names(dev: BlockDevice) -> list[str]:
    own = [dev.path, *([f"/dev/disk/by-id/{dev.id_link}"] if dev.id_link else [])]
    return own + [n for c in dev.children for n in _names(c)]


def _labelled(dev: BlockDevice) -> list[str]:
    """Paths of the devices (the disk, its partitions) whose signature is a ZFS label, by-id first."""
    own = (
        [f"/dev/disk/by-id/{dev.id_link}" if dev.id_link else dev.path] if dev.fstype == "zfs_member" else []
    )
    return own + [p for c in dev.children for p in _labelled(c)]


def parse(stdout: str) -> list[Disk]:
    """Whole disks from ``lsblk -J -b -o COLUMNS`` output."""
    try:
        rows = json.loads(stdout)["blockdevices"]
    except (ValueError, KeyError) as err:
        raise BadOutput(f"lsblk: {err}") from None
    disks = []
    for row in rows:
        dev = BlockDevice.model_validate(row)
        if dev.type not in WHOLE_DISK_TYPES:
            continue
        disks.append(
            Disk(
                path=f"/dev/disk/by-id/{dev.id_link}" if dev.id_link else dev.path,
                kernel_path=dev.path,
                serial=dev.serial,
                wwn=dev.wwn,
                model=dev.model,
                size_bytes=dev.size,
                rotational=dev.rota,
                physical_sector=dev.phy_sec,
                trim=dev.disc_gran > 0,
                in_use=_in_use(dev),
                system=bool(_mounts(dev) & {"/", "/boot", "/boot/efi", "/usr", "/var", "[SWAP]"}),
                zfs_labels=_labelled(dev),
                mounted=bool(_mounts(dev)),
                aliases=_names(dev),
            )
        )
    return disks


def inventory(gw: Gateway) -> list[Disk]:
    """Every whole disk of the machine."""
    return parse(gw.query(LSBLK).stdout)


def find(known: list[Disk], path: str) -> Disk:
    """The disk named ``path`` (stable or kernel path, checked); NotFound when there is none."""
    names.device(path)
    for disk in known:
        if path in (disk.path, disk.kernel_path):
            return disk
    raise NotFound(f"no such disk: {path}")


def resolve(gw: Gateway, paths: list[str], *, force: bool = False) -> list[Disk]:
    """The disks behind ``paths``; NotFound for unknown ones, DeviceInUse for busy ones unless forced.

    The disk that holds the running system is refused even when forced.
    """
    for path in paths:
        names.device(path)
    known = inventory(gw)
    by_path = {d.path: d for d in known} | {d.kernel_path: d for d in known}
    chosen = []
    for path in paths:
        disk = by_path.get(path)
        if disk is None:
            raise NotFound(f"no such disk: {path}")
        if disk.system:
            raise Refused(f"{path} holds the running system")
        if disk.in_use and not force:
            raise DeviceInUse(f"{path} {disk.in_use} (pass force to overwrite it)")
        chosen.append(disk)
    if len({d.kernel_path for d in chosen}) != len(chosen):
        raise DeviceInUse("the same disk is listed twice")
    return chosen
