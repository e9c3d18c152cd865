"""Strict name checks: nothing with shell, config or option syntax reaches a tool.

Each rule is tested with one bad thing at a time: one hostile character in the first, a middle or the
last position of each part, each length limit at its edge, each reserved word by itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest

from appliance.control import names
from appliance.control.errors import InvalidName

# The characters a name rule must refuse one at a time (a part may allow some: then they are skipped).
HOSTILE = (";", "$", "@", " ", "/", ".", "'")
POSITIONS = ("first", "middle", "last")


def place(part: str, c: str, position: str) -> str:
    """``part`` with ``c`` put first, in the middle or last."""
    if position == "first":
        return c + part
    if position == "last":
        return part + c
    mid = len(part) // 2
    return part[:mid] + c + part[mid:]


def hostile(
    check: Callable[[str], str],
    template: str,
    part: str,
    allowed: Iterable[tuple[str, str]] = (),
) -> list[object]:
    """One case per hostile character and position in ``part`` of ``template`` ('{}' marks the part),
    except the (character, position) pairs the rule allows there."""
    skip = set(allowed)
    return [
        pytest.param(check, template.format(place(part, c, pos)), id=f"{check.__name__}-{part}-{pos}-{c!r}")
        for c in HOSTILE
        for pos in POSITIONS
        if (c, pos) not in skip
    ]


# A '/' between letters of a dataset component only splits it; a '.' inside a DNS or IQN label too.
SPLITS = [("/", "middle")]
DOTS_INSIDE = [(".", "middle")]
DOTS_AFTER_FIRST = [(".", "middle"), (".", "last")]
DOT_AND_AT = [(c, pos) for c in ".@" for pos in POSITIONS]
IQN_BASE = "iqn.2026-01.org.arcvsa:tank"

HOSTILE_CASES = [
    *hostile(names.pool, "{}", "tank"),
    *hostile(names.object_name, "{}", "lun0"),
    *hostile(names.dataset, "{}/vdi/desktop", "tank", SPLITS),
    *hostile(names.dataset, "tank/{}/desktop", "vdi", [*SPLITS, *DOTS_AFTER_FIRST]),
    *hostile(names.dataset, "tank/vdi/{}", "desktop", [*SPLITS, *DOTS_AFTER_FIRST]),
    *hostile(names.snapshot, "tank/{}@golden", "vdi", [*SPLITS, *DOTS_AFTER_FIRST]),
    *hostile(names.snapshot, "tank/vdi@{}", "golden", DOTS_AFTER_FIRST),
    *hostile(names.iqn, "iqn.2026-01.{}.arcvsa:tank", "org", DOTS_INSIDE),
    *hostile(names.iqn, "iqn.2026-01.org.{}:tank", "arcvsa", DOTS_INSIDE),
    *hostile(names.iqn, "iqn.2026-01.org.arcvsa:{}", "tank", [(".", p) for p in POSITIONS]),
    *hostile(names.device, "/dev/{}", "sdb"),
    *hostile(names.device, "/dev/disk/by-id/{}", "virtio-lun0", DOT_AND_AT),
    *hostile(names.host, "{}.lab", "esxi", DOTS_INSIDE),
    *hostile(names.host, "esxi.{}", "lab", [*DOTS_INSIDE, (".", "last")]),  # a trailing dot is the root
]


@pytest.mark.parametrize(("check", "bad"), HOSTILE_CASES)
def test_one_hostile_character_is_refused(check: Callable[[str], str], bad: str) -> None:
    with pytest.raises(InvalidName):
        check(bad)


@pytest.mark.parametrize(
    ("check", "good"),
    [
        (names.pool, "tank"),
        (names.pool, "Pool_2-b"),
        (names.pool, "a"),  # shortest
        (names.pool, "a" * 48),  # longest
        (names.pool, "c"),  # 'c' + digit is reserved, not 'c' alone
        (names.pool, "cache2"),
        (names.pool, "xc0"),
        (names.pool, "ca0"),
        (names.object_name, "lun0"),
        (names.object_name, "a"),
        (names.object_name, "B" * 48),
        (names.object_name, "mirror"),  # the pool's reserved words are fine for a backstore
        (names.object_name, "c0t0"),
        (names.object_name, "chap_user-1"),
        (names.dataset, "tank"),  # the pool root is a dataset
        (names.dataset, "tank/a"),  # shortest component
        (names.dataset, "tank/" + "a" * 64),  # longest component
        (names.dataset, "tank/v.d:i_1-2"),
        (names.dataset, "tank/1"),
        (names.dataset, "tank/" + "/".join("abcdefgh")),  # eight levels below the pool
        (names.dataset, "a" * 48 + "/x"),
        (names.child_dataset, "tank/vdi"),
        (names.snapshot, "tank@a"),
        (names.snapshot, "tank/vdi@" + "t" * 64),
        (names.snapshot, "tank/vdi@1.0:rc_1-x"),
        (names.iqn, IQN_BASE),
        (names.iqn, "iqn.1998-01.com.vmware:esxi-01"),
        (names.iqn, "iqn.2026-01.org"),  # one label, no unique part
        (names.iqn, "iqn.2026-01.a"),  # a one-character label
        (names.iqn, "iqn.2026-01.ab"),
        (names.iqn, "iqn.2026-01.org.a"),
        (names.iqn, "iqn.2026-01.org.ab"),
        (names.iqn, "iqn.2026-01.o-r-g.a-b.c"),
        (names.iqn, "iqn.2026-01.org:a"),  # shortest unique part
        (names.iqn, "iqn.2026-01.org:" + "u" * 128),  # longest unique part
        (names.iqn, "iqn.2026-01.org:a.b_c-d"),
        (names.device, "/dev/sd"),  # shortest kernel name
        (names.device, "/dev/sdb"),
        (names.device, "/dev/nvme0n1"),
        (names.device, "/dev/abcdefgh12345678"),  # eight letters and eight more: the longest
        (names.device, "/dev/disk/by-id/a"),
        (names.device, "/dev/disk/by-id/" + "x" * 128),
        (names.device, "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"),
        (names.device, "/dev/disk/by-id/scsi-SATA_disk@1:0+x.y"),
        (names.device, "/dev/disk/by-path/pci-0000:00:10.0-scsi-0:0:1:0"),
        (names.device, "/dev/disk/by-uuid/4f1c-9a2e"),
        (names.host, "esxi"),
        (names.host, "a"),
        (names.host, "ab"),
        (names.host, "esxi-01.lab.example"),
        (names.host, "esxi.lab."),
        (names.host, "ESXi.Lab"),
        (names.host, "l" * 63 + ".lab"),
    ],
)
def test_good_names_pass_unchanged(check: Callable[[str], str], good: str) -> None:
    assert check(good) == good


@pytest.mark.parametrize(
    ("check", "bad"),
    [
        (names.pool, ""),
        (names.pool, "a" * 49),
        (names.pool, "1tank"),
        (names.pool, "-tank"),
        (names.pool, "_tank"),
        (names.pool, "c0"),
        (names.pool, "c9t0d0"),
        (names.pool, "tank\n"),
        (names.pool, "etc"),  # would mount over /etc
        (names.pool, "usr"),
        (names.object_name, ""),
        (names.object_name, "B" * 49),
        (names.object_name, "0lun"),
        (names.object_name, "-lun"),
        (names.dataset, ""),
        (names.dataset, "a" * 49 + "/x"),
        (names.dataset, "tank/"),  # an empty component
        (names.dataset, "tank//x"),
        (names.dataset, "tank/" + "a" * 65),
        (names.dataset, "tank/" + "/".join("abcdefghi")),  # nine levels
        (names.dataset, "tank/-x"),
        (names.dataset, "tank/_x"),
        (names.dataset, "tank/x#bm"),
        (names.dataset, "tank/x%y"),
        (names.child_dataset, "tank"),
        (names.child_dataset, "ta;nk/x"),
        (names.snapshot, "tank/vdi"),  # no '@'
        (names.snapshot, "tank/vdi@"),  # an empty tag
        (names.snapshot, "tank/vdi@" + "t" * 65),
        (names.snapshot, "tank/vdi@-t"),
        (names.snapshot, "tank/vdi@_t"),
        (names.iqn, ""),
        (names.iqn, "iqn.2026-01."),
        (names.iqn, "IQN.2026-01.org"),
        (names.iqn, "iqn.2026-01.Org"),
        (names.iqn, "eui.0123456789abcdef"),
        (names.iqn, "iqnX2026-01.org"),
        (names.iqn, "iqn.2026-01Xorg"),
        (names.iqn, "iqn.202-01.org"),
        (names.iqn, "iqn.20266-01.org"),
        (names.iqn, "iqn.2x26-01.org"),
        (names.iqn, "iqn.2026-1.org"),
        (names.iqn, "iqn.2026-011.org"),
        (names.iqn, "iqn.2026-0x.org"),
        (names.iqn, "iqn.2026-01.-org"),
        (names.iqn, "iqn.2026-01.org-"),
        (names.iqn, "iqn.2026-01.org-.x"),  # a label ending in '-' before the dot
        (names.iqn, "iqn.2026-01.x.-org"),  # a label starting with '-' after the dot
        (names.iqn, "iqn.2026-01.org.arcvsa-.x"),
        (names.iqn, "iqn.2026-01.org.x.-y"),
        (names.iqn, "iqn.2026-01.org:"),  # an empty unique part
        (names.iqn, "iqn.2026-01.org:" + "u" * 129),
        (names.iqn, "iqn.2026-01.org:A"),
        (names.device, ""),
        (names.device, "/dev/s"),
        (names.device, "/dev/s1"),
        (names.device, "/dev/SDA"),
        (names.device, "/dev/abcdefghi12345678"),  # one more than the longest
        (names.device, "/dev/abcdefgh123456789"),
        (names.device, "/dev/disk/by-id/"),
        (names.device, "/dev/disk/by-id/" + "x" * 129),
        (names.device, "/dev/disk/by-label/data"),
        (names.device, "/etc/passwd"),
        (names.device, "vdb"),
        (names.host, ""),
        (names.host, "-esxi"),
        (names.host, "esxi-"),
        (names.host, "esxi-.lab"),
        (names.host, "esxi.-lab"),
        (names.host, "esxi.lab-."),
        (names.host, "l" * 64 + ".lab"),
        (names.host, "esxi_01"),
        (names.host, "10.0.0.0/8"),
    ],
)
def test_bad_names_are_refused(check: Callable[[str], str], bad: str) -> None:
    with pytest.raises(InvalidName):
        check(bad)


# zpool's reserved pool names and vdev-type words, spelled out: a word dropped from the module fails here.
RESERVED = [
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
]


@pytest.mark.parametrize("word", RESERVED)
def test_each_reserved_pool_name_is_refused_by_itself(word: str) -> None:
    with pytest.raises(InvalidName, match="reserved pool name"):
        names.pool(word)
    with pytest.raises(InvalidName, match="reserved pool name"):
        names.pool(word.upper())
    with pytest.raises(InvalidName, match="reserved pool name"):
        names.dataset(f"{word}/x")
    assert names.pool(f"{word}x") == f"{word}x"


@pytest.mark.parametrize("check", [names.pool, names.dataset, names.iqn, names.object_name, names.device])
def test_a_value_that_is_not_a_string_is_an_invalid_name(check: Callable[[object], str]) -> None:
    for value in (None, 5, b"tank"):
        with pytest.raises(InvalidName):
            check(value)


def test_the_message_names_what_was_checked() -> None:
    with pytest.raises(InvalidName) as caught:
        names.object_name("a;b")
    assert str(caught.value) == "not a valid name: 'a;b'"


def test_snapshot_checks_its_dataset() -> None:
    for bad in ["mirror@t", "ta nk@t", "tank//x@t", "tank/-x@t", "@t", "c0/x@t"]:
        with pytest.raises(InvalidName):
            names.snapshot(bad)
    assert names.snapshot("tank/x/y@t") == "tank/x/y@t"


def test_a_name_without_at_is_not_a_snapshot() -> None:
    with pytest.raises(InvalidName, match=r"not a snapshot name \(dataset@tag\): 'tank/vdi'"):
        names.snapshot("tank/vdi")


def test_a_snapshot_tag_holds_no_second_at() -> None:
    for bad in ["tank@a@b", "tank@@a", "tank@a@"]:
        with pytest.raises(InvalidName):
            names.snapshot(bad)


def test_dot_dot_never_reaches_a_device_path() -> None:
    for bad in [
        "/dev/disk/by-id/..",
        "/dev/disk/by-id/a..b",
        "/dev/disk/by-id/x..",
        "/dev/disk/by-id/../../etc",
    ]:
        with pytest.raises(InvalidName):
            names.device(bad)
    assert names.device("/dev/disk/by-id/a.b.c") == "/dev/disk/by-id/a.b.c"


def test_host_takes_addresses_as_they_are() -> None:
    assert names.host("10.0.2.2") == "10.0.2.2"
    assert names.host("::1") == "::1"
    assert names.host("fe80::1") == "fe80::1"


def test_host_length_limit_at_its_edge() -> None:
    longest = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 61])
    assert len(longest) == 253
    assert names.host(longest) == longest
    one_more = longest + "d"  # still four valid labels
    with pytest.raises(InvalidName) as caught:
        names.host(one_more)
    assert str(caught.value) == f"not a host name or IP address: {one_more[:60]!r}..."


def test_addresses_are_single_hosts() -> None:
    assert names.address("10.0.2.2") == "10.0.2.2"
    assert names.address("fe80::1") == "fe80::1"
    assert names.address("223.255.255.255") == "223.255.255.255"
    assert names.address("fe80:0:0:0::1") == "fe80::1"  # written in its one short form
    for bad in [
        "",
        "10.0.0.0/8",
        "esxi01.example",
        "0.0.0.0",  # noqa: S104 - refused, not bound
        "*",
        "10.0.2.2 (rw)",
        "224.0.0.1",
        "239.255.255.255",
        "ff02::1",
        "::",
        "10.0.2.2;",
    ]:
        with pytest.raises(InvalidName):
            names.address(bad)


@pytest.mark.parametrize("check", [names.address, names.host, names.network])
@pytest.mark.parametrize(
    "zoned",
    ["fe80::1%eth0", "fe80::1%1", 'fe80::1%x" port="514")', "fe80::1%x *(rw,no_root_squash)", "fe80::1%x\n}"],
)
def test_an_ipv6_zone_is_refused_where_an_address_is_written_into_a_file(
    check: Callable[[str], str], zoned: str
) -> None:
    """ipaddress takes any text after '%' as a zone; these values reach rsyslog's, the NFS servers' and
    nft's configuration as they are."""
    with pytest.raises((InvalidName, ValueError)):  # a pydantic validator's error, or the names' own
        check(zoned)
    assert check(zoned.partition("%")[0]) in ("fe80::1", "fe80::1/128")


@pytest.mark.parametrize(
    ("given", "shown"),
    [("10.0.0.0/8", "10.0.0.0/8"), ("192.0.2.7", "192.0.2.7/32"), ("2001:db8::/32", "2001:db8::/32")],
)
def test_a_network_is_given_in_its_usual_form(given: str, shown: str) -> None:
    assert names.network(given) == shown


def test_a_network_with_host_bits_set_is_a_mistake_not_rounded() -> None:
    with pytest.raises(ValueError, match="has host bits set"):
        names.network("10.0.0.1/8")


@pytest.mark.parametrize(
    "folder",
    [
        *("bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media", "mnt"),
        *("opt", "proc", "root", "run", "sbin", "snap", "srv", "sys", "tmp", "usr", "var"),
    ],
)
def test_a_pool_is_not_named_as_a_system_top_folder(folder: str) -> None:
    """It would mount over the folder, and an export of its datasets would serve the system's files."""
    with pytest.raises(InvalidName, match=f"would mount over the system's /{folder}"):
        names.pool(folder)
    assert names.pool(f"{folder}x") == f"{folder}x"


@pytest.mark.parametrize("good", ["e", "ens224", "eth0", "enp0s3", "br-lan.10", "vlan_9", "e" * 15])
def test_interface_names_udev_gives_nics_match(good: str) -> None:
    assert names.INTERFACE.fullmatch(good)


@pytest.mark.parametrize(
    "bad", ["", "e" * 16, 'ens224" accept', "ens 224", "ens224;", "ens/2", "ens@2", "ens$2", "ens'2", "én0"]
)
def test_an_interface_name_with_syntax_or_too_long_does_not_match(bad: str) -> None:
    assert not names.INTERFACE.fullmatch(bad)
