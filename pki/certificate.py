"""One X.509 certificate builder: the caller names every part that differs between its certificates.

What a certificate is for (its key usages, names and lifetime) is the caller's decision, so none of it
has a default here: a caller that forgot an extension or a date would otherwise get a certificate that
looks right and is not. Keys are made by the caller too, for the same reason (RSA-3072 for code signing,
EC P-256 for TLS).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, rsa

PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
PublicKey = rsa.RSAPublicKey | ec.EllipticCurvePublicKey

# SHA-256 is what vSphere checks OVF signatures with and what every TLS client accepts; nothing here
# needs another, so it is not a choice.
SIGNATURE_HASH = hashes.SHA256


@dataclass(frozen=True)
class Extension:
    """An extension and its criticality: a verifier that does not understand a critical one must refuse
    the certificate."""

    value: x509.ExtensionType
    critical: bool


@dataclass(frozen=True)
class Validity:
    """When a certificate is valid, both ends included.

    Both dates must carry a time zone (cryptography reads a naive one as UTC, hours off for a caller that
    meant local time) and `not_before` must come first (else the certificate is never valid).
    """

    not_before: dt.datetime
    not_after: dt.datetime

    def __post_init__(self) -> None:
        for name, when in (("not_before", self.not_before), ("not_after", self.not_after)):
            if when.utcoffset() is None:
                raise ValueError(f"{name} {when.isoformat()} has no time zone")
        if self.not_after <= self.not_before:
            raise ValueError(
                f"not_after {self.not_after.isoformat()} is not after not_before {self.not_before.isoformat()}"
            )


Issuer = tuple[PrivateKey, x509.Name]


def self_signed(
    key: PrivateKey, subject: x509.Name, *, validity: Validity, extensions: Sequence[Extension]
) -> x509.Certificate:
    """A certificate for `key`, signed by `key` itself: its issuer is its subject."""
    return issue(key.public_key(), subject, issuer=(key, subject), validity=validity, extensions=extensions)


def issue(
    public_key: PublicKey,
    subject: x509.Name,
    *,
    issuer: Issuer,
    validity: Validity,
    extensions: Sequence[Extension],
) -> x509.Certificate:
    """A certificate for `public_key`, signed with SHA-256 by `issuer` (its key and name), with a random
    serial; the extensions go in the order given."""
    issuer_key, issuer_name = issuer
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer_name)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(validity.not_before)
        .not_valid_after(validity.not_after)
    )
    for extension in extensions:
        builder = builder.add_extension(extension.value, critical=extension.critical)
    return builder.sign(issuer_key, SIGNATURE_HASH())
