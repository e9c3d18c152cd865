"""The admin password and SSH key: hashes and key files, never the clear password.

The administrative OS account (ADMIN_ACCOUNT, made by the image build, in group sudo) gets a SHA-512
crypt hash in /etc/shadow (made by `openssl passwd -6`, with the password on stdin, never in argv),
marked to be changed at its first login; the web interface gets an argon2id hash the api seeds its
admin user from. Both are one-way: nothing on disk can give the password back. root never gets a
password: its entry stays locked, and first boot locks one that is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from argon2 import PasswordHasher

from appliance.firstboot.errors import ApplyFailed
from appliance.firstboot.runner import Runner

ADMIN_ACCOUNT = "arcvsa"
SHADOW = PurePosixPath("/etc/shadow")
PASSWD = PurePosixPath("/etc/passwd")
API_ADMIN_HASH = PurePosixPath("/var/lib/arcvsa/admin-password.argon2")
OPENSSL_TIMEOUT = 30.0
# shadow(5): a last change on day 0 makes login and sshd (through PAM) ask for a new password before
# anything else, so the password any reader of the vApp settings can see is not the one the account keeps.
CHANGE_AT_FIRST_LOGIN = 0
# shadow(5): a hash field starting with one of these matches no password.
LOCKED_PREFIXES = ("!", "*")


@dataclass(frozen=True)
class Account:
    """An OS account as /etc/passwd declares it: what a file first boot puts in its home needs."""

    name: str
    uid: int
    gid: int
    home: PurePosixPath

    @property
    def authorized_keys(self) -> PurePosixPath:
        """sshd's default AuthorizedKeysFile, %h/.ssh/authorized_keys."""
        return self.home / ".ssh" / "authorized_keys"


def passwd_account(passwd: str, user: str) -> Account:
    """`user`'s entry in /etc/passwd text; ApplyFailed if it is absent or unreadable."""
    for line in passwd.splitlines():
        fields = line.split(":")
        if fields[0] != user:
            continue
        if len(fields) < 7 or not fields[2].isdigit() or not fields[3].isdigit():
            raise ApplyFailed(f"the account {user!r} has a malformed entry in {PASSWD}")
        home = PurePosixPath(fields[5])
        if not home.is_absolute() or ".." in home.parts:
            raise ApplyFailed(f"the account {user!r} has no absolute home directory in {PASSWD}")
        return Account(user, int(fields[2]), int(fields[3]), home)
    raise ApplyFailed(f"the account {user!r} has no entry in {PASSWD}")


def crypt_sha512(password: str, runner: Runner) -> str:
    """A $6$ crypt hash with a random salt, from openssl (Python 3.13 has no crypt module)."""
    if "\n" in password or "\r" in password:
        raise ApplyFailed("the admin password must be a single line")
    done = runner(["openssl", "passwd", "-6", "-stdin"], timeout=OPENSSL_TIMEOUT, input_text=password + "\n")
    hashed = done.stdout.strip()
    if not hashed.startswith("$6$") or ":" in hashed or "\n" in hashed:
        raise ApplyFailed("openssl passwd -6 did not return a SHA-512 crypt hash")
    return hashed


def argon2_hash(password: str) -> str:
    """argon2id PHC string with argon2-cffi's defaults (the api hashes its users the same way)."""
    return PasswordHasher().hash(password)


def with_shadow_hash(shadow: str, user: str, hashed: str, last_change: int) -> str:
    """/etc/shadow text with `user`'s hash and last-change day replaced; ApplyFailed if user is absent."""
    lines = shadow.splitlines()
    for index, line in enumerate(lines):
        fields = line.split(":")
        if fields[0] == user and len(fields) >= 3:
            fields[1] = hashed
            fields[2] = str(last_change)
            lines[index] = ":".join(fields)
            return "\n".join(lines) + "\n"
    raise ApplyFailed(f"the account {user!r} has no entry in {SHADOW}, so it cannot get the admin password")


def with_password_locked(shadow: str, user: str) -> str:
    """/etc/shadow text with `user`'s password locked as `passwd -l` does ('!' before the hash).

    An entry already locked is kept as it is; so is a shadow without the user (it has no password to
    lock). An empty hash field, which would let the account in with no password, becomes '!'.
    """
    lines = shadow.splitlines()
    for index, line in enumerate(lines):
        fields = line.split(":")
        if fields[0] == user and len(fields) >= 2:
            if fields[1].startswith(LOCKED_PREFIXES):
                return shadow
            fields[1] = "!" + fields[1]
            lines[index] = ":".join(fields)
            return "\n".join(lines) + "\n"
    return shadow
