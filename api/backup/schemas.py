"""The backup routes' requests and answers, and the configuration carried inside a backup file.

The payload models hold secrets in plain text: they exist only between the secretbox and the
passphrase-encrypted file (api.backup.envelope), never in an answer, a log or the database.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from api.backup import envelope
from api.notify.schemas import NotifySettings
from appliance.control.iscsi import Chap
from appliance.control.nfs.backends import Backend
from appliance.control.nfs.model import Protocol

MIN_PASSPHRASE = 12

# --- inside the file (encrypted) -------------------------------------------------------------------


class BackupUser(BaseModel):
    """An administrator with the argon2id hash of their password (the password itself is never known)."""

    username: str = Field(description="login name")
    password_hash: str = Field(repr=False, description="argon2id hash of the password")
    created_at: datetime = Field(description="when the user was added")


class BackupVCenter(BaseModel):
    """A vCenter connection; the password opened from the secretbox, sealed again by the restoring box."""

    name: str = Field(description="connection name")
    host: str = Field(description="vCenter address")
    port: int = Field(description="vCenter HTTPS port")
    username: str = Field(description="vCenter login")
    password: str = Field(repr=False, description="vCenter password (only inside the encrypted payload)")
    thumbprint_sha256: str | None = Field(description="pinned certificate thumbprint")
    created_at: datetime = Field(description="when the connection was added")


class BackupExport(BaseModel):
    """An NFS export as stored (its path is looked up again on restore)."""

    export_id: int = Field(description="ganesha Export_Id / knfsd fsid")
    dataset: str = Field(description="the exported dataset")
    path: str = Field(description="its mount point when the backup was made")
    protocol: Protocol = Field(description="NFS version")
    clients: list[str] = Field(description="ESXi host addresses")
    insecure_ports: bool = Field(description="client ports above 1023 accepted")


class BackupTarget(BaseModel):
    """An iSCSI target arcvsa made: one LUN on a zvol, its initiators and CHAP (secret included)."""

    iqn: str = Field(description="target IQN")
    zvol: str = Field(description="the zvol behind the LUN")
    initiators: list[str] = Field(description="initiator IQNs allowed in")
    chap: Chap | None = Field(description="one-way CHAP user and secret, None when off")
    wwn: str | None = Field(
        None, description="the LUN's unit serial, so ESXi knows the restored LUN as the same one"
    )


class Skipped(BaseModel):
    """Something the backup could not carry, named so that a restore reports it."""

    kind: str = Field(description="what it is: iscsi_target, ...")
    name: str = Field(description="which one")
    reason: str = Field(description="why it is not in the backup")


class BackupNotify(BaseModel):
    """Notification settings with the SMTP password opened from the secretbox."""

    settings: NotifySettings = Field(description="SMTP and syslog settings")
    smtp_password: str | None = Field(repr=False, description="SMTP password, None when none is stored")


class BackupTls(BaseModel):
    """The api's HTTPS certificate chain and private key (PEM)."""

    certificate: str = Field(description="certificate chain, server certificate first")
    private_key: str = Field(repr=False, description="private key, unencrypted PEM (only inside the payload)")


class BackupScrapeToken(BaseModel):
    """A Prometheus scrape token: its SHA-256 only (the token itself was shown once and never kept)."""

    name: str = Field(description="token name")
    token_sha256: str = Field(description="SHA-256 of the token")
    created_by: str = Field(description="who made it")
    created_at: datetime = Field(description="when")
    last_used_at: datetime | None = Field(description="last scrape with it")


class StorageNeeds(BaseModel):
    """The pools and datasets the exports and LUNs of the backup need (a restore imports and checks them)."""

    pools: list[str] = Field(description="pool names")
    datasets: list[str] = Field(description="datasets and zvols")


class Payload(BaseModel):
    """The appliance configuration a backup carries (format version 1)."""

    users: list[BackupUser] = Field(description="administrators")
    vcenters: list[BackupVCenter] = Field(description="vCenter connections")
    nfs_backend: Backend | None = Field(description="the NFS server chosen (None: never chosen)")
    exports: list[BackupExport] = Field(description="NFS exports")
    iscsi_targets: list[BackupTarget] = Field(description="iSCSI targets")
    tuning: dict[str, int] = Field(
        description="the tuning plan: ZFS module parameters held in effect and at module load"
    )
    notify: BackupNotify | None = Field(description="notification settings (None: never set)")
    tls: BackupTls | None = Field(description="the api's certificate and key (None: none installed)")
    scrape_tokens: list[BackupScrapeToken] = Field(description="Prometheus scrape tokens")
    storage: StorageNeeds = Field(description="what the exports and LUNs need")
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


class NotRestored(BaseModel):
    """Something in the backup this restore could not bring back."""

    kind: str = Field(description="pool, dataset, export, iscsi_target, tuning, tls, vcenter, users ...")
    name: str = Field(description="which one")
    reason: str = Field(description="why, in words for a person")


class RestoreReport(BaseModel):
    """What a restore did."""

    source_hostname: str = Field(description="the appliance the backup was made on")
    source_version: str = Field(description="the arcvsa version that made it")
    created_at: str = Field(description="when the backup was made")
    pools_imported: list[str] = Field(description="pools this restore imported")
    pools_present: list[str] = Field(description="pools that were imported already")
    exports_applied: list[int] = Field(description="exports stored and served by the NFS server")
    nfs_backend: Backend = Field(description="the NFS server the exports are served by")
    iscsi_targets_applied: list[str] = Field(description="iSCSI targets created in LIO")
    users: list[str] = Field(description="administrators now (their passwords are the backup's)")
    vcenters: list[str] = Field(description="vCenter connections now")
    scrape_tokens: list[str] = Field(description="scrape tokens now (the same tokens work again)")
    notify_restored: bool = Field(description="notification settings restored")
    tuning_applied: dict[str, int] = Field(description="ZFS module parameters applied and persisted")
    tls_installed: bool = Field(description="the backup's certificate installed (served after a restart)")
    sessions_ended: bool = Field(description="every login ended (the users were replaced): log in again")
    not_restored: list[NotRestored] = Field(description="everything that could not be restored, and why")
