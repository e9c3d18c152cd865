"""Check an uploaded certificate chain and key, describe a certificate, install a pair where the api reads it.

api/tls.py serves data_dir/tls.crt and tls.key (first boot writes them); the api reads them when it starts,
so an installed pair takes effect at its next restart.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import logging
import os
import socket
import ssl
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519, rsa
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
from cryptography.x509.oid import ExtensionOID, NameOID

from api.certificate.schemas import CertificateFacts
from api.errors import Conflict, InvalidInput
from api.tls import paths
from appliance.control.files import fsync_dir, write_temp
from appliance.firstboot import tls as first_tls
from provisioning.certificate import thumbprint_sha256

log = logging.getLogger(__name__)

MIN_RSA_BITS = 2048
_SPKI = (serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


@dataclass(frozen=True)
class Pair:
    chain: list[x509.Certificate]
    key: PrivateKeyTypes


def host_names() -> list[str]:
    """This machine's names and addresses as browsers would reach it (loopback left out: every
    self-signed certificate of ours names localhost, which says nothing about this appliance)."""
    host = socket.gethostname()
    names = {host, socket.getfqdn()}
    with contextlib.suppress(OSError):  # a name that does not resolve here: its addresses are unknown
        names.update(socket.gethostbyname_ex(host)[2])
    return sorted(n for n in names if n and not _loopback(n))


def _loopback(name: str) -> bool:
    if name == "localhost" or name.startswith("localhost."):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _cert_error(message: str) -> InvalidInput:
    return InvalidInput(message, field="certificate")


def _key_error(message: str) -> InvalidInput:
    return InvalidInput(message, field="private_key")


def _load_chain(pem: str) -> list[x509.Certificate]:
    if "PRIVATE KEY" in pem:
        raise _cert_error("This field takes the certificate chain; paste the private key in its own field")
    try:
        chain = x509.load_pem_x509_certificates(pem.encode())
    except ValueError as exc:
        raise _cert_error(
            "Not a PEM certificate: paste the text from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----"
        ) from exc
    return chain


def _load_key(pem: str) -> PrivateKeyTypes:
    try:
        key = serialization.load_pem_private_key(pem.encode(), password=None)
    except TypeError as exc:  # encrypted, and no password given
        raise _key_error(
            "The private key is encrypted: remove its passphrase first (openssl pkey -in key.pem -out plain.pem)"
        ) from exc
    except ValueError as exc:
        raise _key_error(
            "Not a PEM private key: paste the text from -----BEGIN PRIVATE KEY----- to -----END PRIVATE KEY-----"
        ) from exc
    if isinstance(key, rsa.RSAPrivateKey) and key.key_size < MIN_RSA_BITS:
        raise _key_error(f"An RSA key of {key.key_size} bits is too weak: use at least {MIN_RSA_BITS} bits")
    if isinstance(key, dsa.DSAPrivateKey):
        raise _key_error("DSA keys are not accepted by browsers: use an RSA or EC key")
    return key


def _name(cert: x509.Certificate) -> str:
    return cert.subject.rfc4514_string() or "(no subject)"


def check(certificate: str, private_key: str, at: dt.datetime) -> Pair:
    """The parsed pair, or InvalidInput naming the field at fault. Nothing is written."""
    chain = _load_chain(certificate)
    key = _load_key(private_key)
    leaf = chain[0]
    if key.public_key().public_bytes(*_SPKI) != leaf.public_key().public_bytes(*_SPKI):
        raise _key_error(
            "This private key does not belong to the certificate (the first certificate of the chain)"
        )
    for cert in chain:
        if cert.not_valid_after_utc <= at:
            raise _cert_error(f"{_name(cert)} expired on {cert.not_valid_after_utc:%Y-%m-%d %H:%M} UTC")
        if cert.not_valid_before_utc > at:
            raise _cert_error(
                f"{_name(cert)} is not valid before {cert.not_valid_before_utc:%Y-%m-%d %H:%M} UTC"
            )
    for child, parent in pairwise(chain):
        try:
            child.verify_directly_issued_by(parent)
        except (ValueError, TypeError, InvalidSignature) as exc:
            raise _cert_error(
                f"The chain is out of order: {_name(parent)} did not issue {_name(child)}. "
                "Put the server certificate first, then each issuer"
            ) from exc
    return Pair(chain, key)


def _sans(cert: x509.Certificate) -> tuple[list[str], list[str]]:
    """(DNS names, IP addresses) of the subject alternative names."""
    try:
        ext = cert.extensions.get_extension_for_oid(ExtensionOID.SUBJECT_ALTERNATIVE_NAME).value
    except x509.ExtensionNotFound:
        return [], []
    assert isinstance(ext, x509.SubjectAlternativeName)
    ips = [str(ip) for ip in ext.get_values_for_type(x509.IPAddress)]
    return ext.get_values_for_type(x509.DNSName), ips


def _covers(pattern: str, host: str) -> bool:
    pattern, host = pattern.lower().rstrip("."), host.lower().rstrip(".")
    if pattern.startswith("*."):
        head, _, rest = host.partition(".")
        return bool(head) and rest == pattern[2:]
    return pattern == host


def _describe_key(cert: x509.Certificate) -> str:
    public = cert.public_key()
    if isinstance(public, rsa.RSAPublicKey):
        return f"RSA {public.key_size}"
    if isinstance(public, ec.EllipticCurvePublicKey):
        return {"secp256r1": "EC P-256", "secp384r1": "EC P-384", "secp521r1": "EC P-521"}.get(
            public.curve.name, f"EC {public.curve.name}"
        )
    if isinstance(public, ed25519.Ed25519PublicKey):
        return "Ed25519"
    if isinstance(public, ed448.Ed448PublicKey):
        return "Ed448"
    return type(public).__name__


def describe(chain: list[x509.Certificate], names: list[str]) -> CertificateFacts:
    leaf = chain[0]
    dns, ips = _sans(leaf)
    addresses = {str(ipaddress.ip_address(n)) for n in names if _is_ip(n)}
    matches = any(_covers(p, n) for p in dns for n in names) or bool(addresses & set(ips))
    return CertificateFacts(
        subject=_name(leaf),
        issuer=leaf.issuer.rfc4514_string() or "(no issuer)",
        sans=dns + ips,
        not_before=leaf.not_valid_before_utc,
        not_after=leaf.not_valid_after_utc,
        thumbprint_sha256=thumbprint_sha256(leaf.public_bytes(serialization.Encoding.DER)),
        key=_describe_key(leaf),
        self_signed=leaf.issuer == leaf.subject,
        renewable=renewable(chain),
        chain_length=len(chain),
        host_names=names,
        matches_host=matches,
    )


def renewable(chain: list[x509.Certificate]) -> bool:
    """Whether this is a certificate the appliance made itself (first boot or a renewal): alone, signed
    by itself, its organisation arcvsa's. Anyone else's certificate is renewed by whoever issued it."""
    leaf = chain[0]
    organisation = [a.value for a in leaf.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
    return len(chain) == 1 and leaf.issuer == leaf.subject and organisation == [first_tls.MADE_BY]


def renew(data_dir: Path, at: dt.datetime, *, by: str) -> None:
    """Replace the appliance's own certificate with a new key and certificate for the same names, valid
    from ``at`` for as long as first boot's; served after the api restarts."""
    chain = installed(data_dir)
    if not chain or not renewable(chain):
        raise Conflict(
            "Only a certificate this appliance made itself is renewed here: upload the renewal of this one"
            " from whoever issued it"
        )
    leaf = chain[0]
    common = leaf.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    alt = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    cert_pem, key_pem = first_tls.certificate_for(str(common[0].value) if common else "", list(alt), at)
    install(data_dir, check(cert_pem.decode(), key_pem.decode(), at), by=by)


def _is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def installed(data_dir: Path) -> list[x509.Certificate] | None:
    """The chain in data_dir/tls.crt; None when there is none (the api makes one when it starts)."""
    cert, _ = paths(data_dir)
    if not cert.is_file():
        return None
    try:
        return x509.load_pem_x509_certificates(cert.read_bytes())
    except ValueError:
        return None


def install(data_dir: Path, pair: Pair, *, by: str) -> None:
    """Write the pair beside the old one, have the TLS library load it, then rename it into place.

    The key is 0600 from the moment it exists; each file is replaced by an atomic rename (the key first:
    a restart between the two renames would fail loudly rather than serve a certificate with no key).
    """
    cert_path, key_path = paths(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    cert_pem = b"".join(c.public_bytes(serialization.Encoding.PEM) for c in pair.chain)
    key_pem = pair.key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    new_key = write_temp(data_dir, key_pem, 0o600, ".tls-")
    new_cert: Path | None = None
    try:
        new_cert = write_temp(data_dir, cert_pem, 0o644, ".tls-")
        try:  # the same check the server makes when it starts
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(new_cert, new_key)
        except ssl.SSLError as exc:
            raise _cert_error(
                f"The TLS library refuses this certificate and key: {exc.reason or exc}"
            ) from exc
        os.replace(new_key, key_path)
        os.replace(new_cert, cert_path)
        fsync_dir(data_dir)
    finally:
        for leftover in (new_key, new_cert):
            if leftover is not None:
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()
    der = pair.chain[0].public_bytes(serialization.Encoding.DER)
    log.info("TLS certificate %s installed by %s; served after the api restarts", thumbprint_sha256(der), by)
