"""vCenter connection requests and answers."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from provisioning.certificate import normalise_thumbprint
from provisioning.inventory import About, VmkernelNic

# A DNS name or an IPv4/IPv6 literal; validated here so junk never reaches a socket.
Hostname = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True,
        min_length=1,
        max_length=253,
        pattern=r"^(\[?[0-9A-Fa-f:.]+\]?|[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)$",
    ),
]
# Any spelling users paste (case, colons, spaces) becomes 'AB:CD:…'; SHA-1 is refused.
Thumbprint = Annotated[str, AfterValidator(normalise_thumbprint)]
Port = Annotated[int, Field(ge=1, le=65535)]


class CertificateRequest(BaseModel):
    host: Hostname = Field(description="vCenter address (DNS name or IP)")
    port: Port = Field(default=443, description="HTTPS port")


class VCenterCreate(BaseModel):
    name: str = Field(
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._-]*$",
        description="Display name, unique",
    )
    host: Hostname = Field(description="vCenter address (DNS name or IP)")
    port: Port = Field(default=443, description="HTTPS port")
    username: str = Field(
        min_length=1, max_length=256, description="vCenter user, e.g. administrator@vsphere.local"
    )
    password: str = Field(min_length=1, max_length=1024, description="vCenter password; stored encrypted")
    thumbprint_sha256: Thumbprint | None = Field(
        default=None,
        description="SHA-256 thumbprint of the certificate the user accepted; null to require a CA-trusted one",
    )


class VCenterOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int = Field(description="Connection id")
    name: str = Field(description="Display name")
    host: str = Field(description="vCenter address")
    port: int = Field(description="HTTPS port")
    username: str = Field(description="vCenter user")
    thumbprint_sha256: str | None = Field(description="Pinned certificate thumbprint, or null if CA-verified")
    created_at: datetime = Field(description="When it was added")


class TestResult(BaseModel):
    ok: bool = Field(description="Whether login and a read succeeded")
    about: About = Field(description="What the endpoint is")


class NfsClientHost(BaseModel):
    """An ESXi host and the VMkernel addresses an NFS export for it should allow."""

    host: str = Field(description="Host name as vCenter knows it")
    datacenter: str = Field(description="Its datacenter's name")
    cluster: str | None = Field(description="Its cluster's name; null for a standalone host")
    addresses: list[str] = Field(
        description="IPv4 addresses of its management-tagged or untagged VMkernel NICs: the export's clients"
    )
    vmkernel: list[VmkernelNic] = Field(description="Every VMkernel NIC of the host, with its service tags")
