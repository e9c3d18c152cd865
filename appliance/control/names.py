"""Strict patterns for every name that reaches a tool (pool, dataset, snapshot, IQN, address, device).

Stricter than the tools themselves: no shell or config metacharacters, no leading dash (never an
option), nothing ganesha's or targetcli's parsers could read as syntax. Each check returns the name.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated

from pydantic import AfterValidator

from appliance.control.errors import InvalidName

_COMPONENT = r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}"
POOL = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,47}")
DATASET = re.compile(rf"{POOL.pattern}(/{_COMPONENT}){{0,8}}")
SNAPSHOT_TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")
# RFC 3720: iqn.yyyy-mm.reversed.domain[:unique]; lower case only here (IQNs compare case-insensitively).
IQN = re.compile(
    r"iqn\.\d{4}-\d{2}\.[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[a-z0-9._-]{1,128})?"
)
OBJECT = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,47}")  # backstores, export tags, CHAP user names
# A Linux interface name (at most IFNAMSIZ-1 characters) of the ones udev and networkd give NICs: nothing an
# nft rule or a networkd file would read as syntax.
INTERFACE = re.compile(r"[A-Za-z0-9_.-]{1,15}")
DEVICE = re.compile(r"/dev/(disk/by-(id|path|uuid)/[A-Za-z0-9_.:+@-]{1,128}|[a-z]{2,8}[a-z0-9]{0,8})")
# zpool reserves these as pool names; a vdev-type word would read as a layout keyword.
RESERVED_POOLS = {
    "mirror",
    "raidz",
    "raidz1",
    "raidz2",
    "raidz3",
    "draid",
    "spare",
    "log",
    "cache",
    "special",
    "dedup",
}
# A pool mounts at /<name>, and an export's path is its dataset's mount point: a pool named as one of
# the system's top folders would mount over it, and an export of <that>/x would serve a system folder.
SYSTEM_FOLDERS = frozenset(
    [
        "bin",
        "boot",
        "dev",
        "etc",
        "home",
        "lib",
        "lib32",
        "lib64",
        "libx32",
        "media",
        "mnt",
        "opt",
        "proc",
        "root",
        "run",
        "sbin",
        "snap",
        "srv",
        "sys",
        "tmp",
        "usr",
        "var",
    ]
)


def _check(pattern: re.Pattern[str], value: str, what: str) -> str:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise InvalidName(f"not a valid {what}: {value!r}")
    return value


def pool(name: str) -> str:
    """A pool name: a letter, then letters, digits, '_' or '-' (at most 48)."""
    _check(POOL, name, "pool name")
    if name.lower() in RESERVED_POOLS or re.fullmatch(r"c[0-9].*", name):
        raise InvalidName(f"reserved pool name: {name!r}")
    if name in SYSTEM_FOLDERS:
        raise InvalidName(f"a pool named {name!r} would mount over the system's /{name}")
    return name


def dataset(name: str) -> str:
    """A dataset or zvol name: pool/child/... with plain components (no '@', '#', '%' or spaces)."""
    _check(DATASET, name, "dataset name")
    pool(name.split("/", 1)[0])
    return name


def child_dataset(name: str) -> str:
    """A dataset below a pool's root (pool/child): exports and golden images never use the root."""
    if "/" not in dataset(name):
        raise InvalidName(f"need a dataset below the pool root: {name!r}")
    return name


def snapshot(name: str) -> str:
    """dataset@tag."""
    base, sep, tag = name.partition("@")
    if not sep:
        raise InvalidName(f"not a snapshot name (dataset@tag): {name!r}")
    dataset(base)
    _check(SNAPSHOT_TAG, tag, "snapshot tag")
    return name


def iqn(name: str) -> str:
    """An iSCSI qualified name in lower case."""
    return _check(IQN, name, "iSCSI qualified name")


def object_name(name: str) -> str:
    """A short identifier for backstores, export tags and CHAP user names."""
    return _check(OBJECT, name, "name")


def device(path: str) -> str:
    """A whole-disk device path: /dev/sdX, /dev/vdX, /dev/nvme0n1 or a /dev/disk/by-* link."""
    _check(DEVICE, path, "device path")
    if ".." in path:
        raise InvalidName(f"not a valid device path: {path!r}")
    return path


# One DNS label (RFC 1123): host names here, and the domain of e-mail addresses in notify.
LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOSTNAME = re.compile(rf"{LABEL}(?:\.{LABEL})*\.?")


def _ip(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """An IP address without an IPv6 zone: ipaddress takes any text after '%' as one, quotes, spaces
    and new lines included, and these addresses are written into configuration files and rules."""
    if "%" in value:
        raise ValueError(value)
    return ipaddress.ip_address(value)


def network(value: str) -> str:
    """A network in its usual form (an address alone is its /32 or /128), host bits set refused, no
    IPv6 zone (see _ip); ValueError saying why."""
    if "%" in value:
        raise ValueError("an IPv6 zone ('%') is not part of a network")
    return str(ipaddress.ip_network(value, strict=True))


def host(value: str) -> str:
    """A server to send to: an IP address or a DNS name (RFC 1123 labels, at most 253 characters)."""
    try:
        _ip(value)
        return value
    except ValueError:
        pass
    if len(value) > 253:
        raise InvalidName(f"not a host name or IP address: {value[:60]!r}...")
    return _check(HOSTNAME, value, "host name or IP address")


def address(value: str) -> str:
    """One host address (IPv4 or IPv6, no network, no host name): ESXi clients are listed one by one."""
    try:
        parsed = _ip(value)
    except ValueError:
        raise InvalidName(f"not an IP address: {value!r}") from None
    if parsed.is_unspecified or parsed.is_multicast:
        raise InvalidName(f"not a host address: {value!r}")
    return str(parsed)


# The same checks as pydantic field types, for the models at the package's boundary.
Pool = Annotated[str, AfterValidator(pool)]
ChildDataset = Annotated[str, AfterValidator(child_dataset)]
Iqn = Annotated[str, AfterValidator(iqn)]
ObjectName = Annotated[str, AfterValidator(object_name)]
Device = Annotated[str, AfterValidator(device)]
Address = Annotated[str, AfterValidator(address)]
