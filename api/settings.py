"""Runtime settings, from ARCVSA_* environment variables (pydantic-settings)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ARCVSA_", frozen=True)

    data_dir: Path = Field(
        default=Path("/var/lib/arcvsa"),
        description="Where the SQLite database, the secrets key and the TLS certificate live",
    )
    etc_dir: Path = Field(
        default=Path("/etc/arcvsa"),
        description="Where first boot and the image build leave appliance.json and build-manifest.json",
    )
    install_root: Path = Field(
        default=Path("/opt/arcvsa"),
        description="Where the releases are installed (releases/<version>, current); upgrades switch it",
    )
    admin_user: str = Field(default="admin", description="Name of the first administrator")
    admin_password: SecretStr | None = Field(
        default=None,
        description="Password of the first administrator; used only when the database has no user yet",
    )
    session_hours: float = Field(default=8.0, gt=0, description="How long a login session lasts")
    cookie_secure: bool = Field(default=True, description="Send session cookies only over HTTPS")
    web_dist: Path | None = Field(
        default=None, description="Built web assets to serve at /; none serves the api alone"
    )
    vcenter_timeout: float = Field(
        default=12.0, gt=0, le=15, description="Seconds allowed for any one vCenter call"
    )
    login_attempts: int = Field(
        default=5, ge=1, description="Failed logins allowed per client and user within login_window"
    )
    login_window_seconds: float = Field(default=60.0, gt=0, description="Window for login_attempts")
    metrics_interval_seconds: float = Field(
        default=10.0, ge=1, le=3600, description="Seconds between two metric samples (appliance only)"
    )
    alerts_check_seconds: float = Field(
        default=60.0, ge=1, le=3600, description="Seconds between two alert checks for notifications"
    )
    metrics_keep: int = Field(
        default=8640, ge=2, description="Metric samples kept; older ones are pruned (8640 = 24 h at 10 s)"
    )
    ova_dir: Path | None = Field(
        default=None,
        description="Folder of arcvsa OVAs the deployment wizard offers (none: the admin types a path)",
    )
    control_socket: Path | None = Field(
        default=None,
        description="The control service's socket: changes that run the storage tools are asked of it "
        "(an appliance's units name it); none runs them in the api's own process",
    )
    control_caller: str | None = Field(
        default=None,
        description="The user, besides root, whose calls the control service answers: the api's (an "
        "appliance's units name it); none answers root alone",
    )
    stand_in_file: Path | None = Field(
        default=None,
        description="JSON file naming lab appliances that play the appliance VMs a simulated vCenter cannot "
        "run (the demo writes it); none in production",
    )

    @cached_property
    def database_file(self) -> Path:
        return self.data_dir / "arcvsa.db"

    @cached_property
    def database_url(self) -> str:
        return f"sqlite:///{self.database_file}"

    @cached_property
    def state_file(self) -> Path:
        """The appliance's published state (api.state): what every read of the storage answers from."""
        return self.data_dir / "state.json"

    @cached_property
    def admin_password_hash_file(self) -> Path:
        """The argon2id hash first boot made from the admin_password OVF property."""
        return self.data_dir / "admin-password.argon2"

    @cached_property
    def appliance_config(self) -> Path:
        """Role and NFS backend from the OVF properties (written by first boot)."""
        return self.etc_dir / "appliance.json"

    @cached_property
    def build_manifest(self) -> Path:
        """The image's build manifest; present only on an appliance."""
        return self.etc_dir / "build-manifest.json"

    @cached_property
    def upgrade_key_file(self) -> Path:
        """The public key upgrade bundles must be signed with; the image build put it there."""
        return self.etc_dir / "upgrade-signing.pub"

    @cached_property
    def upgrade_dir(self) -> Path:
        """The staged bundle and the upgrader's state.json (appliance/upgrade/apply.py)."""
        return self.data_dir / "upgrade"

    @cached_property
    def key_file(self) -> Path:
        """The key that encrypts stored secrets; kept beside the database, never inside it."""
        return self.data_dir / "secrets.key"
