"""The lab's vApp properties: what a vSphere admin would fill in, handed to first boot on an ISO.

The address is qemu user networking's guest address, set statically (first boot writes a
systemd-networkd file for it), so the host forwards reach the same guest as with the DHCP fallback.
The lab's SSH key goes in through the ssh_authorized_key property like any admin's: the product image
has no key of its own.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path

from ovf.environment import make_environment_iso, render_environment

LAB_HOSTNAME = "arcvsa-lab"
LAB_ADDRESS = "10.0.2.15"
LAB_PREFIX = "24"
LAB_GATEWAY = "10.0.2.2"
LAB_DNS = "10.0.2.3"
# .test is reserved for testing (RFC 6761): no real name is ever shadowed.
LAB_DOMAIN = "lab.arcvsa.test"
LAB_FQDN = f"{LAB_HOSTNAME}.{LAB_DOMAIN}"
LAB_SEARCH = (LAB_DOMAIN, "arcvsa.test")


def new_password() -> str:
    """A fresh admin password for one lab boot (kept 0600 in the lab's folder, never in the repo)."""
    return secrets.token_urlsafe(18)


def lab_properties(password: str, ssh_public_key: str, overrides: Mapping[str, str] = {}) -> dict[str, str]:
    """The lab's property values; ``overrides`` may set any property, valid or not (fault tests)."""
    values = {
        "hostname": LAB_HOSTNAME,
        "fqdn": LAB_FQDN,
        "role": "appliance",
        "admin_password": password,
        "ssh_authorized_key": ssh_public_key.strip(),
        # the lab's tools run commands as root with no terminal (the admin account would first ask for a
        # new password), as an administrator's automation would
        "ssh_root_login": "true",
        "ipv4_mode": "static",
        "ipv4_address": LAB_ADDRESS,
        "ipv4_prefix": LAB_PREFIX,
        "ipv4_gateway": LAB_GATEWAY,
        "dns_servers": LAB_DNS,
        "dns_search": ",".join(LAB_SEARCH),
        "nfs_backend": "ganesha",
    }
    values.update(overrides)
    return values


def write_environment(directory: Path, values: Mapping[str, str]) -> Path:
    """ovf-env.xml (kept beside the ISO for reading, 0600: it holds the password) and its ISO."""
    directory.mkdir(parents=True, exist_ok=True)
    document = render_environment(values)
    xml = directory / "ovf-env.xml"
    xml.touch(mode=0o600)
    xml.write_bytes(document)
    return make_environment_iso(document, directory / "ovf-env.iso")


def prepare(directory: Path, key: Path, overrides: Mapping[str, str] = {}) -> tuple[Path, dict[str, str]]:
    """For one first boot: a new admin password (0600 in ``directory/admin-password``) and the ovf-env
    ISO carrying it with the lab's other properties and ``key``'s public half. Returns (ISO, values)."""
    password = new_password()
    write_secret(directory / "admin-password", password)
    values = lab_properties(password, key.with_suffix(".pub").read_text(encoding="utf-8"), overrides)
    return write_environment(directory, values), values


def write_secret(path: Path, text: str) -> Path:
    """A file only root can read."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.chmod(0o600)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def parse_overrides(items: list[str]) -> dict[str, str]:
    """``key=value`` pairs from the command line."""
    pairs = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"expected key=value, got {item!r}")
        pairs[key] = value
    return pairs
