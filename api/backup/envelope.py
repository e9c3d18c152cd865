"""The backup file: a small versioned JSON envelope around the configuration, sealed under a passphrase.

AES-256-GCM with a key from scrypt (N=2**15, r=8, p=1: about 32 MiB and a tenth of a second, pinned in
the envelope and refused when a file asks for others, so a crafted file cannot make the api spend
gigabytes). Every field of the envelope but the ciphertext is the GCM associated data: a changed
header fails the tag like a changed ciphertext. A wrong passphrase and a tampered file give the same
error: the tag cannot tell them apart, and the answer must not pretend it can.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from datetime import UTC, datetime
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from api.errors import InvalidInput

FORMAT = "arcvsa-config-backup"
FORMAT_VERSION = 2  # 1: every domain at the payload's top (api.backup.migrate reads it)
SUFFIX = ".arcvsa-backup"
SCRYPT_N, SCRYPT_R, SCRYPT_P, KEY_BYTES = 1 << 15, 8, 1, 32
KDF: dict[str, object] = {"name": "scrypt", "n": SCRYPT_N, "r": SCRYPT_R, "p": SCRYPT_P, "length": KEY_BYTES}
CIPHER = "AES-256-GCM"
SALT_BYTES, NONCE_BYTES = 16, 12
MAX_FILE_BYTES = 8 << 20  # a configuration is kilobytes; a TLS chain and many users stay far below this
_HEADER = (
    "format",
    "format_version",
    "arcvsa_version",
    "hostname",
    "created_at",
    "kdf",
    "cipher",
    "salt",
    "nonce",
)


class BackupMalformed(InvalidInput):
    """The file is not a backup envelope (not JSON, fields missing or of the wrong kind)."""

    field = "file"


class BackupUnsupported(InvalidInput):
    """A backup of another kind, or of a newer format than this appliance reads."""

    field = "file"


class BackupUnopenable(InvalidInput):
    """The passphrase does not open the file, or the file was changed after it was written."""

    field = "passphrase"


def _key(passphrase: str, salt: bytes) -> bytes:
    return Scrypt(salt=salt, length=KEY_BYTES, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P).derive(
        passphrase.encode("utf-8")
    )


def _aad(header: dict[str, Any]) -> bytes:
    return json.dumps({k: header[k] for k in _HEADER}, sort_keys=True, separators=(",", ":")).encode()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def seal(payload: dict[str, Any], passphrase: str, *, arcvsa_version: str, hostname: str) -> bytes:
    """The backup file's bytes: ``payload`` as JSON, encrypted and authenticated under ``passphrase``."""
    salt, nonce = os.urandom(SALT_BYTES), os.urandom(NONCE_BYTES)
    header: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "arcvsa_version": arcvsa_version,
        "hostname": hostname,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "kdf": dict(KDF),
        "cipher": CIPHER,
        "salt": _b64(salt),
        "nonce": _b64(nonce),
    }
    plain = json.dumps(payload, sort_keys=True).encode("utf-8")
    sealed = AESGCM(_key(passphrase, salt)).encrypt(nonce, plain, _aad(header))
    return (json.dumps({**header, "ciphertext": _b64(sealed)}, indent=1) + "\n").encode("ascii")


def header(data: bytes) -> dict[str, Any]:
    """The envelope's readable fields, checked: BackupMalformed or BackupUnsupported otherwise."""
    if len(data) > MAX_FILE_BYTES:
        raise BackupMalformed(f"A backup file is at most {MAX_FILE_BYTES >> 20} MiB; this one is larger")
    try:
        envelope = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise BackupMalformed("Not an arcvsa configuration backup: the file is not JSON") from None
    if not isinstance(envelope, dict) or envelope.get("format") != FORMAT:
        raise BackupUnsupported(f"Not an arcvsa configuration backup (no {FORMAT!r} format field)")
    version = envelope.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise BackupMalformed("The backup's format_version is not a number")
    if version > FORMAT_VERSION:
        raise BackupUnsupported(
            f"This backup has format version {version}, newer than this appliance reads "
            f"({FORMAT_VERSION}): update the appliance first"
        )
    if version < 1:
        raise BackupUnsupported(f"Unknown backup format version {version}")
    if envelope.get("cipher") != CIPHER or envelope.get("kdf") != KDF:
        raise BackupUnsupported(
            f"This backup's cipher or key derivation is not the one format {version} uses"
        )
    for name in (*_HEADER, "ciphertext"):
        if name not in envelope:
            raise BackupMalformed(f"The backup has no {name} field")
    for name in ("arcvsa_version", "hostname", "created_at", "salt", "nonce", "ciphertext"):
        if not isinstance(envelope[name], str):
            raise BackupMalformed(f"The backup's {name} field is not text")
    return envelope


def _unb64(envelope: dict[str, Any], name: str, size: int | None = None) -> bytes:
    try:
        raw = base64.b64decode(envelope[name], validate=True)
    except (binascii.Error, ValueError):
        raise BackupMalformed(f"The backup's {name} field is not base64") from None
    if size is not None and len(raw) != size:
        raise BackupMalformed(f"The backup's {name} field has {len(raw)} bytes, not {size}")
    return raw


def unseal(data: bytes, passphrase: str) -> dict[str, Any]:
    """The payload of a backup file; BackupUnopenable for a wrong passphrase or a changed file."""
    envelope = header(data)
    salt = _unb64(envelope, "salt", SALT_BYTES)
    nonce = _unb64(envelope, "nonce", NONCE_BYTES)
    sealed = _unb64(envelope, "ciphertext")
    try:
        plain = AESGCM(_key(passphrase, salt)).decrypt(nonce, sealed, _aad(envelope))
    except InvalidTag:
        raise BackupUnopenable(
            "The backup cannot be opened: the passphrase is wrong or the file was changed"
        ) from None
    payload = json.loads(plain)  # authenticated: written by seal() above
    if not isinstance(payload, dict):
        raise BackupMalformed("The backup's payload is not an object")
    return payload
