"""Value checks named by `format:` in ovf/properties.yaml, beyond what OVF qualifiers can say.

Each check takes the raw string and returns it normalised, or raises ValueError with a message an
admin can act on. An empty string passes: whether a value is required is decided elsewhere.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
import struct
from collections.abc import Callable

from appliance.control import names

_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")  # fullmatch: '$' would let a trailing newline in
MAX_NAME = (
    253  # RFC 1035's 255 octets on the wire, less the length bytes, written as text without the root dot
)
SSH_KEY_TYPES = frozenset(
    {
        "ssh-ed25519",
        "ssh-rsa",
        "ecdsa-sha2-nistp256",
        "ecdsa-sha2-nistp384",
        "ecdsa-sha2-nistp521",
        "sk-ssh-ed25519@openssh.com",
        "sk-ecdsa-sha2-nistp256@openssh.com",
    }
)


def _items(value: str) -> list[str]:
    return [part for part in re.split(r"[,\s]+", value.strip()) if part]


def hostname(value: str) -> str:
    """One DNS label (RFC 1123): letters, digits, hyphens; no leading/trailing hyphen; lower-cased."""
    if not value:
        return value
    lowered = value.lower()
    if not _LABEL.fullmatch(lowered):
        raise ValueError(
            f"{value!r} is not a valid host name: use 1-63 letters, digits or hyphens, "
            "not starting or ending with a hyphen (no dots, no underscores)"
        )
    return lowered


def ipv4(value: str) -> str:
    """A dotted-quad IPv4 address."""
    if not value:
        return value
    try:
        return str(ipaddress.IPv4Address(value.strip()))
    except ValueError:
        raise ValueError(f"{value!r} is not an IPv4 address (like 192.0.2.10)") from None


def ipv4_list(value: str) -> str:
    """Comma- or space-separated IPv4 addresses, normalised to 'a,b'."""
    return ",".join(ipv4(item) for item in _items(value))


def _host(item: str) -> str:
    try:
        return str(ipaddress.IPv4Address(item))
    except ValueError:
        pass
    name = item.lower().rstrip(".")
    labels = name.split(".")
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels) or labels[-1].isdigit():
        raise ValueError(f"{item!r} is neither a host name nor an IPv4 address")
    return name


def host_list(value: str) -> str:
    """Comma- or space-separated host names or IPv4 addresses, normalised to 'a,b'."""
    return ",".join(_host(item) for item in _items(value))


def _domain_problem(name: str) -> str | None:
    """Why `name` (lower-cased, no trailing dot) is not a DNS name; None when it is one."""
    if len(name) > MAX_NAME:
        return f"is {len(name)} characters long; a DNS name has at most {MAX_NAME}"
    labels = name.split(".")
    if "" in labels:
        return "has an empty label (two dots in a row, or a dot at the start)"
    for label in labels:
        if not _LABEL.fullmatch(label):
            return (
                f"has the label {label!r}: a label is 1-63 letters, digits or hyphens, "
                "not starting or ending with a hyphen"
            )
    if labels[-1].isdigit():
        return f"ends in the label {labels[-1]!r}, all digits (a top-level domain never is)"
    return None


def _absolute(value: str) -> str:
    """Lower-cased, without the one trailing dot of an absolute name."""
    name = value.strip().lower()
    return name[:-1] if name.endswith(".") else name


def fqdn(value: str) -> str:
    """A fully qualified domain name (RFC 1123): at least a host label and a domain, at most 253."""
    if not value.strip():
        return ""
    name = _absolute(value)
    problem = _domain_problem(name)
    if problem is None and "." not in name:
        problem = (
            "is one label; a fully qualified name is the host name and its domain, like arcvsa01.example.com"
        )
    if problem is not None:
        raise ValueError(f"{value!r} {problem}")
    return name


def domain_list(value: str) -> str:
    """Comma-separated DNS domains (each as `fqdn` checks a name, one label allowed), as 'a,b'."""
    if not value.strip():
        return ""
    domains = []
    for number, item in enumerate(value.split(","), start=1):
        if not item.strip():
            raise ValueError(f"entry {number} of {value!r} is empty (a comma too many?)")
        name = _absolute(item)
        problem = _domain_problem(name)
        if problem is not None:
            raise ValueError(f"entry {number}, {item.strip()!r}, {problem}")
        domains.append(name)
    return ",".join(domains)


def _network(item: str) -> str:
    try:
        return names.network(item)
    except ValueError as exc:
        raise ValueError(f"{item!r} is not a network or address ({exc})") from None


def network_list(value: str) -> str:
    """Comma- or space-separated IPv4 or IPv6 networks (an address alone is its /32 or /128), host bits
    clear, normalised to 'a,b' without repeats."""
    networks = [_network(item) for item in _items(value)]
    return ",".join(dict.fromkeys(networks))


def ssh_public_key(value: str) -> str:
    """One OpenSSH public key line: type, base64 key whose embedded type matches, optional comment."""
    if not value.strip():
        return ""
    if "\n" in value.strip() or "\r" in value:
        raise ValueError("must be a single line (one OpenSSH public key)")
    parts = value.strip().split(None, 2)
    if len(parts) < 2 or parts[0] not in SSH_KEY_TYPES:
        known = ", ".join(sorted(SSH_KEY_TYPES))
        raise ValueError(f"is not an OpenSSH public key line: it must start with one of {known}")
    try:
        blob = base64.b64decode(parts[1], validate=True)
        (length,) = struct.unpack(">I", blob[:4])
        embedded = blob[4 : 4 + length].decode("ascii")
    except (binascii.Error, struct.error, UnicodeDecodeError):
        raise ValueError("the key data is not valid base64 of an OpenSSH key") from None
    if embedded != parts[0]:
        raise ValueError(f"the key data is a {embedded!r} key, but the line says {parts[0]!r}")
    return " ".join(parts)


CHECKS: dict[str, Callable[[str], str]] = {
    "hostname": hostname,
    "ipv4": ipv4,
    "ipv4-list": ipv4_list,
    "host-list": host_list,
    "ssh-public-key": ssh_public_key,
    "fqdn": fqdn,
    "domain-list": domain_list,
    "network-list": network_list,
}
