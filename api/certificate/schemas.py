"""Requests and answers of /api/settings/tls. The private key goes in, never out."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class TlsUpload(BaseModel):
    certificate: str = Field(
        min_length=1,
        max_length=65536,
        description="PEM certificate chain: the server certificate first, then each issuer",
    )
    private_key: str = Field(
        min_length=1, max_length=16384, description="PEM private key of the server certificate, unencrypted"
    )


class CertificateFacts(BaseModel):
    subject: str = Field(description="Subject of the server certificate (RFC 4514)")
    issuer: str = Field(description="Issuer of the server certificate (RFC 4514)")
    sans: list[str] = Field(description="Subject alternative names: DNS names and IP addresses")
    not_before: datetime = Field(description="Valid from")
    not_after: datetime = Field(description="Valid until")
    thumbprint_sha256: str = Field(description="SHA-256 of the DER certificate, upper-case hex pairs")
    key: str = Field(description="Key type and size, e.g. 'EC P-256' or 'RSA 2048'")
    self_signed: bool = Field(description="Issued by itself rather than by a certificate authority")
    renewable: bool = Field(
        description="Made by this appliance (first boot or a renewal): POST /api/settings/tls/renew makes a new"
        " one for the same names",
    )
    chain_length: int = Field(description="Certificates in the chain, the server certificate included")
    host_names: list[str] = Field(description="This appliance's own host names")
    matches_host: bool = Field(description="Whether a DNS name among the SANs covers one of host_names")


class TlsState(BaseModel):
    certificate: CertificateFacts | None = Field(
        description="The installed certificate; none before first start"
    )
    restart_needed: bool = Field(
        description="A certificate was installed since the api started: it serves it after its next restart"
    )
