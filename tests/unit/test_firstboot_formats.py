"""The `format:` checks of the OVF properties, each at its edge and with one bad thing at a time."""

from __future__ import annotations

import base64
import re
import struct

import pytest

from appliance.firstboot import formats

HOSTILE = (";", "$", "@", " ", "/", ".", "'")
POSITIONS = ("first", "middle", "last")
# What OpenSSH 9 writes as a public key's type: spelled out, so a type dropped from the module fails here.
KEY_TYPES = [
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
]


def place(part: str, c: str, position: str) -> str:
    if position == "first":
        return c + part
    if position == "last":
        return part + c
    return part[:2] + c + part[2:]


def key_line(kind: str, embedded: str | None = None, comment: str = "") -> str:
    """A public key line whose blob names ``embedded`` (by default ``kind``) as its type."""
    name = (embedded or kind).encode()
    blob = base64.b64encode(struct.pack(">I", len(name)) + name + b"\x00\x00\x00\x01k").decode()
    return f"{kind} {blob} {comment}".rstrip()


def test_checks_by_format_name() -> None:
    assert {
        "hostname": formats.hostname,
        "ipv4": formats.ipv4,
        "ipv4-list": formats.ipv4_list,
        "host-list": formats.host_list,
        "ssh-public-key": formats.ssh_public_key,
        "fqdn": formats.fqdn,
        "domain-list": formats.domain_list,
        "network-list": formats.network_list,
    } == formats.CHECKS


@pytest.mark.parametrize(
    "check",
    [
        formats.hostname,
        formats.ipv4,
        formats.ipv4_list,
        formats.host_list,
        formats.fqdn,
        formats.domain_list,
        formats.network_list,
    ],
)
def test_an_empty_value_passes(check: object) -> None:
    assert check("") == ""  # type: ignore[operator]


@pytest.mark.parametrize(
    ("good", "normalised"),
    [("a", "a"), ("arcvsa-01", "arcvsa-01"), ("ArcVSA", "arcvsa"), ("1", "1"), ("h" * 63, "h" * 63)],
)
def test_host_names(good: str, normalised: str) -> None:
    assert formats.hostname(good) == normalised


@pytest.mark.parametrize(
    "bad",
    [
        "h" * 64,  # one more than the longest
        "-arcvsa",
        "arcvsa-",
        "-",
        "arc_vsa",
        "arcvsa\n",
        "arcvsa\n\n",
        " arcvsa",
        *[place("arcvsa", c, pos) for c in HOSTILE for pos in POSITIONS],
    ],
)
def test_host_names_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="is not a valid host name"):
        formats.hostname(bad)


def test_ipv4() -> None:
    assert formats.ipv4(" 192.0.2.10 ") == "192.0.2.10"
    for bad in ["192.0.2.300", "192.0.2", "2001:db8::1", "192.0.2.1/24", "192.0.2.01", "x"]:
        with pytest.raises(ValueError, match=r"is not an IPv4 address \(like 192.0.2.10\)"):
            formats.ipv4(bad)


@pytest.mark.parametrize(
    ("value", "normalised"),
    [
        ("192.0.2.1", "192.0.2.1"),
        (" 192.0.2.1 ,192.0.2.2  ", "192.0.2.1,192.0.2.2"),
        ("192.0.2.1 192.0.2.2\t192.0.2.3", "192.0.2.1,192.0.2.2,192.0.2.3"),
        ("192.0.2.1,,192.0.2.2,", "192.0.2.1,192.0.2.2"),
        (" , ", ""),
    ],
)
def test_ipv4_lists(value: str, normalised: str) -> None:
    assert formats.ipv4_list(value) == normalised


@pytest.mark.parametrize("sep", [c for c in HOSTILE if c not in " ."])
def test_ipv4_lists_split_only_on_commas_and_spaces(sep: str) -> None:
    with pytest.raises(ValueError):
        formats.ipv4_list(f"192.0.2.1{sep}192.0.2.2")


@pytest.mark.parametrize(
    ("value", "normalised"),
    [
        ("ntp.example.org", "ntp.example.org"),
        ("NTP.Example.org.", "ntp.example.org"),
        ("192.0.2.1, pool.ntp.org", "192.0.2.1,pool.ntp.org"),
        ("a", "a"),
        ("host1.lab2", "host1.lab2"),
        ("l" * 63 + ".org", "l" * 63 + ".org"),
    ],
)
def test_host_lists(value: str, normalised: str) -> None:
    assert formats.host_list(value) == normalised


def test_host_list_length_at_its_edge() -> None:
    longest = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 61])
    assert len(longest) == 253
    assert formats.host_list(longest) == longest
    assert formats.host_list(longest + ".") == longest
    with pytest.raises(ValueError, match="is neither a host name nor an IPv4 address"):
        formats.host_list(longest + "d")


@pytest.mark.parametrize(
    "bad",
    [
        "l" * 64 + ".org",
        "a..b",
        ".a",
        "-a.org",
        "a-.org",
        "a.-org",
        "a_b.org",
        "192.0.2.300",  # numbers all through: a mistyped address, not a name
        "host.123",
        *[f"ntp.{place('example', c, pos)}.org" for c in HOSTILE if c not in " ." for pos in POSITIONS],
    ],
)
def test_host_lists_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="is neither a host name nor an IPv4 address"):
        formats.host_list(bad)


@pytest.mark.parametrize("kind", KEY_TYPES)
def test_each_key_type_is_accepted(kind: str) -> None:
    line = key_line(kind, comment="admin@example.com")
    assert formats.ssh_public_key(line) == line
    assert formats.ssh_public_key(key_line(kind)) == key_line(kind)  # the comment is optional


def test_ssh_key_lines_are_normalised() -> None:
    line = key_line("ssh-ed25519")
    assert (
        formats.ssh_public_key("  " + line.replace(" ", "\t", 1) + " my  laptop \n") == f"{line} my  laptop"
    )
    assert formats.ssh_public_key(" \n ") == ""
    assert formats.ssh_public_key("") == ""


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (key_line("ssh-ed25519") + "\n" + key_line("ssh-ed25519"), "must be a single line"),
        (key_line("ssh-ed25519") + "\rx", "must be a single line"),
        ("ssh-ed25519", "is not an OpenSSH public key line"),
        (key_line("ssh-dss"), "is not an OpenSSH public key line"),
        (key_line("SSH-ED25519", "ssh-ed25519"), "is not an OpenSSH public key line"),
        ("ssh-ed25519 AAAA!" + key_line("ssh-ed25519").split()[1], "not valid base64"),
        ("ssh-ed25519 " + key_line("ssh-ed25519").split()[1][:-1], "not valid base64"),
        ("ssh-ed25519 AAA=", "not valid base64"),  # fewer than four bytes: no length
        ("ssh-ed25519 " + base64.b64encode(b"\x00\x00\x00\x02\xff\xfe").decode(), "not valid base64"),
        (key_line("ssh-rsa", "ssh-ed25519"), "is a 'ssh-ed25519' key, but the line says 'ssh-rsa'"),
        (key_line("ssh-ed25519", "ssh-ed2551"), "is a 'ssh-ed2551' key"),
        (key_line("ssh-ed25519", "ssh-ed25519x"), "is a 'ssh-ed25519x' key"),
    ],
)
def test_ssh_key_lines_refused(bad: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        formats.ssh_public_key(bad)


def name_of(length: int) -> str:
    """A DNS name of exactly ``length`` characters: labels of 63 (the last shorter), then '.com'."""
    body, labels = length - len(".com"), []
    while body > 0:
        size = min(63, body)
        if body - size == 1:  # only a dot would be left: leave room for one more label
            size -= 1
        labels.append("a" * size)
        body -= size + 1  # the label and the dot after it
    name = ".".join([*labels, "com"])
    assert len(name) == length, (len(name), length)
    return name


@pytest.mark.parametrize(
    ("good", "normalised"),
    [
        ("arcvsa01.example.com", "arcvsa01.example.com"),
        ("ArcVSA01.Example.COM", "arcvsa01.example.com"),
        ("arcvsa01.example.com.", "arcvsa01.example.com"),  # absolute: the root's dot dropped
        (" arcvsa01.example.com\n", "arcvsa01.example.com"),  # what surrounds it is not kept
        ("a.b", "a.b"),
        ("a-1.b-2.c3", "a-1.b-2.c3"),
        ("1.example.com", "1.example.com"),  # a label of digits, only not the last
        ("h" * 63 + ".com", "h" * 63 + ".com"),
        ("vsa." + "d" * 63, "vsa." + "d" * 63),
        (name_of(253), name_of(253)),
        (name_of(253) + ".", name_of(253)),
        (" ", ""),
    ],
)
def test_fqdns(good: str, normalised: str) -> None:
    assert formats.fqdn(good) == normalised


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (name_of(254), "is 254 characters long; a DNS name has at most 253"),
        (name_of(254) + ".", "is 254 characters long"),
        ("h" * 64 + ".com", "has the label '" + "h" * 64 + "'"),
        ("vsa." + "d" * 64, "has the label '" + "d" * 64 + "'"),
        ("-vsa.example.com", "has the label '-vsa'"),
        ("vsa-.example.com", "has the label 'vsa-'"),
        ("vsa.-example.com", "has the label '-example'"),
        ("vsa.example.com-", "has the label 'com-'"),
        ("vsa_01.example.com", "has the label 'vsa_01'"),
        ("vsa..example.com", "has an empty label"),
        (".vsa.example.com", "has an empty label"),
        ("vsa.example.com..", "has an empty label"),
        ("arcvsa01", "is one label; a fully qualified name is the host name and its domain"),
        ("arcvsa01.", "is one label"),
        ("vsa.example.123", "ends in the label '123', all digits"),
        ("192.0.2.10", "ends in the label '10', all digits"),  # an address is not a name
        ("vsa.exa mple.com", "has the label 'exa mple'"),
        ("vsa.exam\nple.com", "has the label 'exam\\nple'"),  # repr: the newline shown, not printed
        *[
            (f"vsa.{place('example', c, pos)}.com", "has the label")
            for c in HOSTILE
            if c not in " ."
            for pos in POSITIONS
        ],
    ],
)
def test_fqdns_refused(bad: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        formats.fqdn(bad)
    assert str(caught.value).startswith(repr(bad)), "the message names the value as given"


def test_fqdn_length_counts_without_the_roots_dot() -> None:
    assert len(name_of(253) + ".") == 254
    assert formats.fqdn(name_of(253) + ".") == name_of(253)


@pytest.mark.parametrize(
    ("value", "normalised"),
    [
        ("example.com", "example.com"),
        ("example.com,lab.example.com", "example.com,lab.example.com"),
        (" Example.com , LAB.example.com. ", "example.com,lab.example.com"),
        ("corp", "corp"),  # one label is a search domain too
        ("d" * 63, "d" * 63),
        (name_of(253), name_of(253)),
        ("", ""),
        ("  ", ""),
    ],
)
def test_domain_lists(value: str, normalised: str) -> None:
    assert formats.domain_list(value) == normalised


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("example.com,", "entry 2 of 'example.com,' is empty (a comma too many?)"),
        (",example.com", "entry 1 of ',example.com' is empty"),
        ("a.com,,b.com", "entry 2 of 'a.com,,b.com' is empty"),
        ("a.com, ,b.com", "entry 2 of 'a.com, ,b.com' is empty"),
        (",", "entry 1 of ',' is empty"),
        ("a.com," + name_of(254), f"entry 2, '{name_of(254)}', is 254 characters long"),
        ("d" * 64, "entry 1, '" + "d" * 64 + "', has the label"),
        ("-lab.example.com", "entry 1, '-lab.example.com', has the label '-lab'"),
        ("lab-.example.com", "has the label 'lab-'"),
        ("a.com,lab..example.com", "entry 2, 'lab..example.com', has an empty label"),
        ("lab.example.123", "ends in the label '123', all digits"),
        ("example.com lab.example.com", "has the label 'com lab'"),  # commas separate, not spaces
        ("example.com;lab.example.com", "has the label 'com;lab'"),
        *[
            (place("example", c, pos) + ".com", "has the label")
            for c in HOSTILE
            if c not in " ."
            for pos in POSITIONS
        ],
    ],
)
def test_domain_lists_refused(bad: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        formats.domain_list(bad)


@pytest.mark.parametrize(
    ("value", "normalised"),
    [
        ("10.0.10.0/24", "10.0.10.0/24"),
        ("192.0.2.7", "192.0.2.7/32"),  # an address alone
        ("10.0.10.0/24, 192.0.2.7 fd00::/64", "10.0.10.0/24,192.0.2.7/32,fd00::/64"),
        ("0.0.0.0/0", "0.0.0.0/0"),
        ("10.0.0.0/8,10.0.0.0/8", "10.0.0.0/8"),  # a repeat once
        ("192.0.2.255/32", "192.0.2.255/32"),
    ],
)
def test_network_list_accepts_and_normalises(value: str, normalised: str) -> None:
    assert formats.network_list(value) == normalised


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("10.0.10.5/24", "host bits set"),  # a typo for the network, not rounded away
        ("10.0.10.0/33", "10.0.10.0/33"),
        ("10.0.10", "10.0.10"),
        ("10.0.10.0/24;rm", "10.0.10.0/24;rm"),
        ("example.com", "example.com"),
        ("10.0.10.0/24,300.1.1.1", "300.1.1.1"),  # one bad item among good ones
    ],
)
def test_network_list_refuses_one_bad_item(value: str, said: str) -> None:
    with pytest.raises(ValueError, match=re.escape(said)):
        formats.network_list(value)
