"""The api's TLS certificate and private key in a backup (the key only inside the encrypted file).

Restored, the pair is checked as an upload is (chain, key, validity) and installed; the api serves it
from its next start. None installed here: the appliance's own stays.
"""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, Field

from api.backup.section import Context, Restoring, Section, Skipped
from api.certificate import service as certificates
from api.errors import ApiError
from api.tls import paths


class BackupTls(BaseModel):
    """The api's HTTPS certificate chain and private key (PEM)."""

    certificate: str = Field(description="certificate chain, server certificate first")
    private_key: str = Field(repr=False, description="private key, unencrypted PEM (only inside the file)")


class TlsSection(Section):
    key = "tls"
    title = "TLS certificate"
    model = BackupTls
    restarts_api = True

    def collect(self, ctx: Context, skipped: list[Skipped]) -> BackupTls | None:
        cert, key = paths(ctx.settings.data_dir)
        try:
            return BackupTls(
                certificate=cert.read_text(encoding="ascii"), private_key=key.read_text(encoding="ascii")
            )
        except (FileNotFoundError, UnicodeDecodeError):
            return None

    def store(self, ctx: Context, value: BackupTls | None, restoring: Restoring) -> list[str]:
        if value is None:
            return []
        try:
            pair = certificates.check(value.certificate, value.private_key, datetime.now(UTC))
        except ApiError as err:
            restoring.lost("tls", "certificate", str(err))
            return []
        restoring.converge(self)
        return [pair.chain[0].subject.rfc4514_string() or "(no subject)"]

    def converge(self, ctx: Context, value: BackupTls | None) -> list[str]:
        assert value is not None  # asked for by store, which had one
        pair = certificates.check(value.certificate, value.private_key, datetime.now(UTC))
        certificates.install(ctx.settings.data_dir, pair, by=ctx.by)
        return ["certificate installed: served after the api restarts"]


SECTION = TlsSection()
