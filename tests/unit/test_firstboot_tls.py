"""The appliance's first TLS certificate: a server certificate for its names, EC P-256, a year."""

from __future__ import annotations

import datetime as dt
import ipaddress

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from appliance.firstboot.tls import SIGNING_ONLY, VALID_DAYS, self_signed

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
STATIC = ipaddress.IPv4Address("192.0.2.10")


@pytest.mark.parametrize(
    ("address", "names"),
    [
        (STATIC, [x509.DNSName("arcvsa-01"), x509.DNSName("localhost"), x509.IPAddress(STATIC)]),
        (None, [x509.DNSName("arcvsa-01"), x509.DNSName("localhost")]),
    ],
)
def test_a_server_certificate_for_the_host_name_and_static_address(
    address: ipaddress.IPv4Address | None, names: list[x509.GeneralName]
) -> None:
    cert_pem, key_pem = self_signed("arcvsa-01", address, NOW)
    cert = x509.load_pem_x509_certificate(cert_pem)
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, "arcvsa-01"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "arcvsa"),
        ]
    )
    assert cert.subject == cert.issuer == name
    # KeyUsage is optional in a server certificate (RFC 5280 4.2.1.3) and this one never had it: adding
    # one changes what clients accept, so it is a decision, not a side effect of a refactor.
    assert [(e.value, e.critical) for e in cert.extensions] == [
        (x509.SubjectAlternativeName(names), False),
        (x509.BasicConstraints(ca=False, path_length=None), True),
        (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False),
        (SIGNING_ONLY, True),
        (x509.SubjectKeyIdentifier.from_public_key(cert.public_key()), False),  # type: ignore[arg-type]
        (x509.AuthorityKeyIdentifier.from_issuer_public_key(cert.public_key()), False),  # type: ignore[arg-type]
    ]
    assert cert.not_valid_before_utc == NOW - dt.timedelta(minutes=5)
    assert cert.not_valid_after_utc == NOW - dt.timedelta(minutes=5) + dt.timedelta(days=VALID_DAYS)
    lifespan = cert.not_valid_after_utc - cert.not_valid_before_utc
    assert dt.timedelta(days=365) <= lifespan <= dt.timedelta(days=366)  # Mozilla intermediate: 366 at most
    public = cert.public_key()
    assert isinstance(public, ec.EllipticCurvePublicKey) and isinstance(public.curve, ec.SECP256R1)
    assert isinstance(cert.signature_hash_algorithm, hashes.SHA256)
    key = serialization.load_pem_private_key(key_pem, password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    assert key.public_key() == public
