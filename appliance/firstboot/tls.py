"""The appliance's first TLS certificate: self-signed, for its host name, FQDN and static address.

It is written where the api looks for it (/var/lib/arcvsa/tls.crt and tls.key) and only when no
certificate is there yet, so an admin's own certificate is never replaced.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from pathlib import PurePosixPath

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

import pki

CERT = PurePosixPath("/var/lib/arcvsa/tls.crt")
KEY = PurePosixPath("/var/lib/arcvsa/tls.key")
# Under Mozilla's "intermediate" limit of 366 days (and the CA/Browser Forum's 398).
VALID_DAYS = 365

# The organisation in the certificates the appliance makes itself (and may renew itself).
MADE_BY = "arcvsa"
# ECDHE key exchange: the certificate's key only signs the handshake.
SIGNING_ONLY = x509.KeyUsage(
    digital_signature=True,
    content_commitment=False,
    key_encipherment=False,
    data_encipherment=False,
    key_agreement=False,
    key_cert_sign=False,
    crl_sign=False,
    encipher_only=False,
    decipher_only=False,
)


def self_signed(
    hostname: str, address: ipaddress.IPv4Address | None, now: dt.datetime, fqdn: str = ""
) -> tuple[bytes, bytes]:
    """(certificate PEM, private key PEM) for `hostname` (and `fqdn`, `address` when set); EC P-256."""
    alt: list[x509.GeneralName] = [x509.DNSName(hostname), x509.DNSName("localhost")]
    if fqdn:
        alt.insert(0, x509.DNSName(fqdn))
    if address is not None:
        alt.append(x509.IPAddress(address))
    return certificate_for(fqdn or hostname, alt, now)


def certificate_for(common_name: str, alt: list[x509.GeneralName], now: dt.datetime) -> tuple[bytes, bytes]:
    """(certificate PEM, private key PEM): a new key and a server certificate for these names, signed by
    itself, valid VALID_DAYS from five minutes before ``now`` (clocks differ a little)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, MADE_BY),
        ]
    )
    start = now - dt.timedelta(minutes=5)
    cert = pki.self_signed(
        key,
        name,
        validity=pki.Validity(not_before=start, not_after=start + dt.timedelta(days=VALID_DAYS)),
        extensions=[
            pki.Extension(x509.SubjectAlternativeName(alt), critical=False),
            pki.Extension(x509.BasicConstraints(ca=False, path_length=None), critical=True),
            pki.Extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False),
            pki.Extension(SIGNING_ONLY, critical=True),
            # Path validators (RFC 5280 profiles as in browsers and sslyze) want the key identifiers even
            # on a certificate that is its own issuer: an admin who trusts it as an anchor gets a valid path.
            pki.Extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False),
            pki.Extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), critical=False
            ),
        ],
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return cert.public_bytes(serialization.Encoding.PEM), key_pem
