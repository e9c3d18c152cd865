"""Everything first boot will write, rendered in memory from the validated properties.

Making the whole plan before touching the disk is what keeps a refused or failing first boot from
leaving half a configuration behind: any error surfaces here, while nothing is written yet.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from appliance.control import sshd
from appliance.firstboot import accounts, chrony, network, tls
from appliance.firstboot.errors import ApplyFailed
from appliance.firstboot.files import FileChange, read_text
from appliance.firstboot.model import ValidatedProperties
from appliance.firstboot.runner import Runner

HOSTNAME = PurePosixPath("/etc/hostname")
HOSTS = PurePosixPath("/etc/hosts")
APPLIANCE_CONFIG = PurePosixPath("/etc/arcvsa/appliance.json")
DEFAULT_HOSTS = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"


@dataclass(frozen=True)
class Plan:
    """The files to write (in order) and the warnings to report."""

    hostname: str
    files: tuple[FileChange, ...]
    warnings: tuple[str, ...]
    ssh: bool = False  # an SSH key was given: SSH is turned on (the image has it off)


def with_hostname(hosts: str, hostname: str, fqdn: str = "") -> str:
    """/etc/hosts with the 127.0.1.1 line (Debian's own-name convention) naming `hostname`.

    With an FQDN it comes first, the short name after it: `hostname --fqdn` answers the first name.
    """
    lines = [line for line in hosts.splitlines() if not line.split("#", 1)[0].strip().startswith("127.0.1.1")]
    entry = f"127.0.1.1\t{fqdn} {hostname}" if fqdn else f"127.0.1.1\t{hostname}"
    for index, line in enumerate(lines):
        if line.split("#", 1)[0].strip().startswith("127.0.0.1"):
            lines.insert(index + 1, entry)
            break
    else:
        lines.insert(0, entry)
    return "\n".join(lines) + "\n"


def with_authorized_key(existing: str, key: str) -> str:
    """authorized_keys text with `key` added unless present; keys already there are kept."""
    lines = [line for line in existing.splitlines() if line.strip()]
    if key not in (line.strip() for line in lines):
        lines.append(key)
    return "\n".join(lines) + "\n"


def appliance_config(
    props: ValidatedProperties, storage: network.StorageIntent | None = None, management_nic: str = ""
) -> bytes:
    """/etc/arcvsa/appliance.json: what the api, the storage control and the console read."""
    data: dict[str, object] = {
        "hostname": props.text("hostname"),
        "fqdn": props.text("fqdn"),
        "role": props.text("role"),
        "nfs_backend": props.text("nfs_backend"),
        # the firewall's management networks until an administrator saves others (api.firewall)
        "management_networks": [n for n in props.text("management_networks").split(",") if n],
        # the NIC the console shows the web address of ("" with one NIC: whichever has an address)
        "management_interface": management_nic,
        # the firewall answers NFS and iSCSI only on this NIC, the web interface and SSH on the others
        "storage_network": None
        if storage is None
        else {"interface": storage.interface, "address": storage.address.with_prefixlen, "mtu": storage.mtu},
    }
    return (json.dumps(data, indent=2, sort_keys=True) + "\n").encode()


def make_plan(
    props: ValidatedProperties,
    *,
    root: Path,
    runner: Runner,
    now: dt.datetime,
) -> Plan:
    """The full plan; reads /etc/shadow, /etc/passwd and /etc/hosts under `root`, writes nothing.

    The admin password goes to the web admin and to the OS account accounts.ADMIN_ACCOUNT (to be
    changed at its first login), the SSH key to that account; root's password is locked.
    """
    hostname, fqdn = props.text("hostname"), props.text("fqdn")
    intent, warnings = network.network_intent(props)
    network.settle(runner)
    found = network.nics(root)
    # with one NIC nothing is told apart: its file matches any Ethernet name and no storage file is written
    management_nic, storage_nic = found[:2] if len(found) > 1 else ("", "")
    storage, storage_warnings = network.storage_intent(props, intent, found)
    warnings += storage_warnings
    shadow = read_text(root, accounts.SHADOW)
    if shadow is None:
        raise ApplyFailed(f"{accounts.SHADOW} not found under {root}")
    password = props.secret("admin_password")
    new_shadow = accounts.with_shadow_hash(
        accounts.with_password_locked(shadow, "root"),
        accounts.ADMIN_ACCOUNT,
        accounts.crypt_sha512(password, runner),
        accounts.CHANGE_AT_FIRST_LOGIN,
    )
    ntp = [s for s in props.text("ntp_servers").split(",") if s]
    cert, key = tls.self_signed(hostname, None if intent.address is None else intent.address.ip, now, fqdn)
    files = [
        FileChange(HOSTNAME, f"{hostname}\n".encode()),
        FileChange(HOSTS, with_hostname(read_text(root, HOSTS) or DEFAULT_HOSTS, hostname, fqdn).encode()),
        FileChange(
            network.NETWORK_FILE,
            network.render_network(intent, management_nic or network.MATCH_NAMES).encode(),
        ),
        *(
            [FileChange(network.STORAGE_FILE, network.render_storage(storage, storage_nic).encode())]
            if storage_nic
            else []
        ),
        FileChange(chrony.SOURCES_FILE, chrony.render_sources(ntp).encode()),
        FileChange(APPLIANCE_CONFIG, appliance_config(props, storage, management_nic)),
        FileChange(accounts.SHADOW, new_shadow.encode(), mode=0o640),
        FileChange(accounts.API_ADMIN_HASH, (accounts.argon2_hash(password) + "\n").encode(), mode=0o600),
        FileChange(tls.CERT, cert, only_if_absent=True),
        FileChange(tls.KEY, key, mode=0o600, only_if_absent=True),
    ]
    ssh_key = props.text("ssh_authorized_key")
    if ssh_key:
        passwd = read_text(root, accounts.PASSWD)
        if passwd is None:
            raise ApplyFailed(f"{accounts.PASSWD} not found under {root}")
        admin = accounts.passwd_account(passwd, accounts.ADMIN_ACCOUNT)
        path = admin.authorized_keys
        files.append(
            FileChange(
                path,
                with_authorized_key(read_text(root, path) or "", ssh_key).encode(),
                mode=0o600,
                parent_mode=0o700,
                owner=(admin.uid, admin.gid),
            )
        )
        if props.flag("ssh_root_login"):
            # root's too, with its key login let in, for automation that has no terminal (the admin
            # account's first session asks for a new password); Settings can turn it off again
            superuser = accounts.passwd_account(passwd, "root")
            files.append(
                FileChange(
                    superuser.authorized_keys,
                    with_authorized_key(read_text(root, superuser.authorized_keys) or "", ssh_key).encode(),
                    mode=0o600,
                    parent_mode=0o700,
                    owner=(superuser.uid, superuser.gid),
                )
            )
            files.append(FileChange(PurePosixPath(sshd.ROOT_FILE), sshd.ROOT_TEXT.encode()))
    return Plan(hostname=hostname, files=tuple(files), warnings=tuple(warnings), ssh=bool(ssh_key))
