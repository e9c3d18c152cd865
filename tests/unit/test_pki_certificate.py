"""The certificate builder puts in what its caller names, nothing else, and refuses dates that would make
a certificate never valid or valid at another hour than meant."""

from __future__ import annotations

import datetime as dt

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from support.signing import NOW, rsa_key

import pki

NAME = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "builder test")])
SAN = pki.Extension(x509.SubjectAlternativeName([x509.DNSName("a.example")]), critical=False)
LEAF = pki.Extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
SERVER = pki.Extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
HOUR = pki.Validity(NOW, NOW + dt.timedelta(hours=1))


def test_a_self_signed_certificate_holds_exactly_what_was_named() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    end = NOW + dt.timedelta(days=3)
    cert = pki.self_signed(key, NAME, validity=pki.Validity(NOW, end), extensions=[SAN, LEAF, SERVER])
    assert cert.subject == cert.issuer == NAME
    assert (cert.not_valid_before_utc, cert.not_valid_after_utc) == (NOW, end)
    assert [pki.Extension(e.value, e.critical) for e in cert.extensions] == [SAN, LEAF, SERVER]
    assert isinstance(cert.signature_hash_algorithm, hashes.SHA256)
    cert.verify_directly_issued_by(cert)


def test_no_extension_is_added_that_was_not_named() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    cert = pki.self_signed(key, NAME, validity=HOUR, extensions=[])
    assert len(cert.extensions) == 0


def test_serials_are_random_and_long() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    made = [pki.self_signed(key, NAME, validity=HOUR, extensions=[]) for _ in range(3)]
    serials = {c.serial_number for c in made}
    assert len(serials) == 3 and min(s.bit_length() for s in serials) > 64


def test_an_issued_certificate_is_signed_by_its_issuer() -> None:
    ca_key, leaf_key = rsa_key(), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "builder CA")])
    ca_ext = pki.Extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
    ca = pki.self_signed(ca_key, ca_name, validity=HOUR, extensions=[ca_ext])
    leaf = pki.issue(
        leaf_key.public_key(), NAME, issuer=(ca_key, ca.subject), validity=HOUR, extensions=[LEAF]
    )
    assert leaf.issuer == ca_name and leaf.subject == NAME
    assert isinstance(leaf.signature_hash_algorithm, hashes.SHA256)
    leaf.verify_directly_issued_by(ca)


@pytest.mark.parametrize(
    ("not_before", "not_after", "message"),
    [
        (NOW, NOW, "is not after not_before"),
        (NOW, NOW - dt.timedelta(seconds=1), "is not after not_before"),
        (NOW.replace(tzinfo=None), NOW + dt.timedelta(days=1), "not_before .* has no time zone"),
        (NOW, (NOW + dt.timedelta(days=1)).replace(tzinfo=None), "not_after .* has no time zone"),
    ],
)
def test_dates_that_would_mislead_are_refused(
    not_before: dt.datetime, not_after: dt.datetime, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        pki.Validity(not_before, not_after)
