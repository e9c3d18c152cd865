"""The backup routes' requests and answers, and the shape of the configuration inside a backup file.

The sections' models (api/<domain>/backup.py) hold secrets in plain text: they exist only between the
secretbox and the passphrase-encrypted file (api.backup.envelope), never in an answer, a log or the
database.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from api.backup import envelope
from api.backup.section import NotRestored, Skipped

__all__ = ["NotRestored", "Skipped"]

MIN_PASSPHRASE = 12

# --- inside the file (encrypted) -------------------------------------------------------------------


class BackupZfsPool(BaseModel):
    """A ZFS pool the configuration needs, with the GUID that tells it from any other of its name."""

    name: str = Field(description="pool name")
    guid: str | None = Field(description="the pool's GUID in decimal (None in a format 1 file)")


class Payload(BaseModel):
    """The appliance's desired state as a backup carries it (format version 2): each domain's section
    (api.backup.section) under its key, and the storage those sections need."""

    pools: list[BackupZfsPool] = Field(description="the ZFS pools the sections' datasets are on")
    datasets: list[str] = Field(description="the datasets and zvols the sections need")
    sections: dict[str, Any] = Field(description="each domain's configuration, by section key")
    skipped: list[Skipped] = Field(default_factory=list, description="what the backup could not carry")


# --- the routes --------------------------------------------------------------------------------------


class BackupRequest(BaseModel):
    """The passphrase the backup is encrypted under (needed again to restore it)."""

    passphrase: str = Field(
        min_length=MIN_PASSPHRASE,
        max_length=1024,
        repr=False,
        description=f"at least {MIN_PASSPHRASE} characters; the file's secrets are only as safe as it",
    )


class BackupFile(BaseModel):
    """The backup file as downloaded (JSON): readable header, encrypted configuration."""

    format: Literal["arcvsa-config-backup"] = Field(description="what kind of file this is")
    format_version: int = Field(description=f"format version ({envelope.FORMAT_VERSION} here)")
    arcvsa_version: str = Field(description="arcvsa version that wrote it")
    hostname: str = Field(description="the appliance it was made on")
    created_at: str = Field(description="when (UTC, ISO 8601)")
    kdf: dict[str, Any] = Field(description="key derivation and its pinned parameters (scrypt)")
    cipher: Literal["AES-256-GCM"] = Field(description="authenticated encryption of the payload")
    salt: str = Field(description="scrypt salt, base64")
    nonce: str = Field(description="GCM nonce, base64")
    ciphertext: str = Field(description="the configuration (JSON) encrypted, with its tag; base64")


class RestoreRequest(BaseModel):
    """A backup file (base64 of its bytes) and its passphrase."""

    file_base64: str = Field(
        min_length=1,
        max_length=(envelope.MAX_FILE_BYTES * 4) // 3 + 4,
        description="the .arcvsa-backup file's bytes, base64",
    )
    passphrase: str = Field(
        min_length=1, max_length=1024, repr=False, description="the passphrase the backup was made with"
    )
    replace: bool = Field(
        False,
        description="replace this appliance's configuration; without it a restore is refused when "
        "the appliance has exports, iSCSI targets or vCenter connections already",
    )


class RestoredSection(BaseModel):
    """One section of the backup as this appliance now holds it."""

    section: str = Field(description="the section's key in the file (users, nfs, iscsi, tuning ...)")
    title: str = Field(description="what it is, for people")
    items: list[str] = Field(description="what is stored now (names, ids); empty when the backup had none")


class ConvergeError(BaseModel):
    """Why a stored section is not in effect yet."""

    error: str = Field(description="the typed error's class (NotFound, ServiceDown, LioFault ...)")
    message: str = Field(description="what it said")


class Converged(BaseModel):
    """A section's configuration made real after it was stored: what changed, or why it could not be."""

    section: str = Field(description="the section's key")
    changes: list[str] = Field(description="what converging changed, one line each")
    failure: ConvergeError | None = Field(
        None, description="why it could not converge now (stored all the same, and alerted where polled)"
    )


class RestoreReport(BaseModel):
    """What a restore did."""

    source_hostname: str = Field(description="the appliance the backup was made on")
    source_version: str = Field(description="the arcvsa version that made it")
    created_at: str = Field(description="when the backup was made")
    format_version: int = Field(description="the backup's format (an older one is read as the current)")
    pools_imported: list[str] = Field(
        description="pools this restore imported (by GUID where the file has it)"
    )
    pools_present: list[str] = Field(description="pools that were imported already")
    restored: list[RestoredSection] = Field(description="each section of the backup, as stored now")
    converged: list[Converged] = Field(description="each section made real after it was stored")
    sessions_ended: bool = Field(description="every login ended (the users were replaced): log in again")
    not_restored: list[NotRestored] = Field(description="everything that could not be restored, and why")
