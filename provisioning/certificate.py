"""A vCenter's TLS certificate: fetch it, fingerprint it, and pin connections to it.

The wizard shows the certificate of an endpoint the CA store does not trust and lets the user accept its
SHA-256 thumbprint; every later connection is then pinned to exactly that certificate.
"""

from __future__ import annotations

import hashlib
import http.client
import re
import socket
import ssl
import time

from cryptography import x509
from pydantic import BaseModel, Field

from provisioning.errors import NotAVCenter, ThumbprintMismatch, Unreachable, VCenterError, VCenterTimeout


class CertificateInfo(BaseModel):
    """What the user needs to decide whether to trust an endpoint."""

    host: str = Field(description="Host name or address that was contacted")
    port: int = Field(description="TCP port that was contacted")
    thumbprint_sha256: str = Field(
        description="SHA-256 of the DER certificate, upper-case hex pairs joined by colons"
    )
    subject: str = Field(description="Subject distinguished name (RFC 4514)")
    issuer: str = Field(description="Issuer distinguished name (RFC 4514)")
    not_before: str = Field(description="Start of validity, ISO 8601 UTC")
    not_after: str = Field(description="End of validity, ISO 8601 UTC")
    trusted: bool = Field(
        description="Whether the certificate verifies against the system CA store, host name included"
    )


_HEX64 = re.compile(r"[0-9a-f]{64}")


def thumbprint_sha256(der: bytes) -> str:
    """SHA-256 of a DER certificate in the form vCenter and browsers show: 'AB:CD:...'."""
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))


def normalise_thumbprint(value: str) -> str:
    """Canonical form of a user-typed SHA-256 thumbprint; raises ValueError if it is not one.

    Accepts any case, with or without colons, spaces or dashes between the pairs, as copied from vSphere
    Client, openssl or govc. A SHA-1 thumbprint is refused rather than silently weakening the pin.
    """
    compact = re.sub(r"[\s:\-]", "", value).lower()
    if len(compact) == 40 and re.fullmatch(r"[0-9a-f]{40}", compact):
        raise ValueError("that is a SHA-1 thumbprint; give the SHA-256 thumbprint of the certificate")
    if not _HEX64.fullmatch(compact):
        raise ValueError("a SHA-256 thumbprint is 32 hex pairs, e.g. 'AB:CD:...'")
    upper = compact.upper()
    return ":".join(upper[i : i + 2] for i in range(0, 64, 2))


class PinMismatch(ssl.SSLError):
    """The peer presented another certificate than the pinned one (raised during the TLS handshake)."""

    def __init__(self, seen: str) -> None:
        super().__init__(f"certificate SHA-256 {seen} is not the pinned one")
        self.seen = seen


class PinnedContext(ssl.SSLContext):
    """A client context that accepts exactly one certificate, checked on every handshake.

    Chain and host name checks are off on purpose: the user accepted this very certificate (typically
    self-signed). pyVmomi's own thumbprint argument is not used because it only pins when CA verification
    fails first and then turns verification off in the shared context for all later connections.
    """

    pinned_sha256: str

    def wrap_socket(
        self,
        sock: socket.socket,
        server_side: bool = False,
        do_handshake_on_connect: bool = True,
        suppress_ragged_eofs: bool = True,
        server_hostname: str | bytes | None = None,
        session: ssl.SSLSession | None = None,
    ) -> ssl.SSLSocket:
        tls = super().wrap_socket(
            sock,
            server_side=server_side,
            do_handshake_on_connect=do_handshake_on_connect,
            suppress_ragged_eofs=suppress_ragged_eofs,
            server_hostname=server_hostname,
            session=session,
        )
        if not do_handshake_on_connect:
            tls.do_handshake()
        der = tls.getpeercert(binary_form=True)
        seen = thumbprint_sha256(der) if der else "(none)"
        if seen != self.pinned_sha256:
            tls.close()
            raise PinMismatch(seen)
        return tls


def pinned_context(thumbprint: str) -> ssl.SSLContext:
    """A TLS client context pinned to one SHA-256 thumbprint (any accepted spelling)."""
    ctx = PinnedContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.pinned_sha256 = normalise_thumbprint(thumbprint)
    return ctx


def verified_context() -> ssl.SSLContext:
    """A TLS client context that trusts the system CA store and checks the host name."""
    return ssl.create_default_context()


def _unverified_context() -> ssl.SSLContext:
    # Only ever used to *look* at a certificate, never to talk to the endpoint.
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def translate_transport_error(exc: BaseException, where: str) -> VCenterError | None:
    """The typed fault for a socket, TLS or HTTP failure talking to `where` ('host:port'); else None.

    Certificate verification failures are left to the caller: reporting them needs the thumbprint.
    """
    if isinstance(exc, PinMismatch):
        return ThumbprintMismatch(
            f"{where} presented a certificate with SHA-256 {exc.seen}, not the accepted one",
            thumbprint=exc.seen,
        )
    if isinstance(exc, ssl.SSLCertVerificationError):
        return None
    if isinstance(exc, UnicodeError):  # the resolver's IDNA encoding refused the name ('d:6:8..e')
        return Unreachable(f"{where} is not a valid host name or address")
    if isinstance(exc, TimeoutError):
        return VCenterTimeout(f"{where} did not answer in time")
    if isinstance(exc, socket.gaierror):
        return Unreachable(f"cannot resolve {where}: {exc.strerror or exc}")
    # RemoteDisconnected is both an HTTPException and a ConnectionResetError: the peer took the
    # connection and closed it without an HTTP answer, so something is there but it is not vSphere.
    if isinstance(exc, http.client.HTTPException):
        return NotAVCenter(f"{where} does not speak the vSphere API over HTTPS: {exc!r}")
    if isinstance(exc, ssl.SSLError):
        return NotAVCenter(f"TLS handshake with {where} failed: {getattr(exc, 'reason', None) or exc}")
    if isinstance(exc, ConnectionRefusedError):
        return Unreachable(f"{where} refused the connection")
    if isinstance(exc, OSError):
        return Unreachable(f"cannot connect to {where}: {exc.strerror or exc}")
    return None


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("deadline passed")
    return left


def _peer_certificate(host: str, port: int, ctx: ssl.SSLContext, deadline: float) -> bytes:
    with socket.create_connection((host, port), timeout=_remaining(deadline)) as raw:
        raw.settimeout(_remaining(deadline))
        with ctx.wrap_socket(raw, server_hostname=host) as tls:
            der = tls.getpeercert(binary_form=True)
    if not der:
        raise ssl.SSLError("the server sent no certificate")
    return der


def describe_certificate(host: str, port: int, der: bytes, *, trusted: bool) -> CertificateInfo:
    """CertificateInfo for a DER certificate seen at host:port (pure)."""
    cert = x509.load_der_x509_certificate(der)
    return CertificateInfo(
        host=host,
        port=port,
        thumbprint_sha256=thumbprint_sha256(der),
        subject=cert.subject.rfc4514_string(),
        issuer=cert.issuer.rfc4514_string(),
        not_before=cert.not_valid_before_utc.isoformat(),
        not_after=cert.not_valid_after_utc.isoformat(),
        trusted=trusted,
    )


def fetch_certificate(host: str, port: int, timeout: float) -> CertificateInfo:
    """The certificate host:port presents, and whether the system CA store trusts it.

    One verified handshake; a second, unverified one only when verification fails, to read what was sent.
    Raises Unreachable, VCenterTimeout or NotAVCenter (no TLS there), all within `timeout` seconds.
    """
    deadline = time.monotonic() + timeout
    try:
        try:
            der = _peer_certificate(host, port, verified_context(), deadline)
            trusted = True
        except ssl.SSLCertVerificationError:
            der = _peer_certificate(host, port, _unverified_context(), deadline)
            trusted = False
    except Exception as exc:
        fault = translate_transport_error(exc, f"{host}:{port}")
        if fault is None:
            raise
        raise fault from exc
    return describe_certificate(host, port, der, trusted=trusted)
