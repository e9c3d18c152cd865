"""The admin password and SSH key: hashes and key files, never the clear password.

The console account gets a SHA-512 crypt hash in /etc/shadow (made by `openssl passwd -6`, with the
password on stdin, never in argv); the web interface gets an argon2id hash the api seeds its admin
user from. Both are one-way: nothing on disk can give the password back.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from argon2 import PasswordHasher

from appliance.firstboot.errors import ApplyFailed
from appliance.firstboot.runner import Runner

SHADOW = PurePosixPath("/etc/shadow")
API_ADMIN_HASH = PurePosixPath("/var/lib/arcvsa/admin-password.argon2")
OPENSSL_TIMEOUT = 30.0


def authorized_keys_path(user: str) -> PurePosixPath:
    """~user/.ssh/authorized_keys (root's home is /root)."""
    home = PurePosixPath("/root") if user == "root" else PurePosixPath("/home") / user
    return home / ".ssh" / "authorized_keys"


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


def with_shadow_hash(shadow: str, user: str, hashed: str, days_since_epoch: int) -> str:
    """/etc/shadow text with `user`'s hash and last-change day replaced; ApplyFailed if user is absent."""
    lines = shadow.splitlines()
    for index, line in enumerate(lines):
        fields = line.split(":")
        if fields[0] == user and len(fields) >= 3:
            fields[1] = hashed
            fields[2] = str(days_since_epoch)
            lines[index] = ":".join(fields)
            return "\n".join(lines) + "\n"
    raise ApplyFailed(f"user {user!r} has no entry in /etc/shadow")
