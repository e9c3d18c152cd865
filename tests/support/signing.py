"""Keys and certificates for the OVA signing tests, made here: what an admin might hand `make ova`, right
and wrong (short keys, EC keys, expired or out-of-order chains, encrypted keys)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

import pki

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
PrivateKey = pki.PrivateKey


def rsa_key(bits: int = 2048) -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=bits)


def issue(
    key: PrivateKey,
    common_name: str,
    *,
    issuer: tuple[PrivateKey, x509.Certificate] | None = None,
    not_before: dt.datetime = NOW - dt.timedelta(days=1),
    not_after: dt.datetime = NOW + dt.timedelta(days=365),
    ca: bool = False,
) -> x509.Certificate:
    """A certificate for `key`, self-signed unless `issuer` (its key and certificate) signs it."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    signing_key, issuer_name = (key, name) if issuer is None else (issuer[0], issuer[1].subject)
    return pki.issue(
        key.public_key(),
        name,
        issuer=(signing_key, issuer_name),
        validity=pki.Validity(not_before, not_after),
        extensions=[pki.Extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)],
    )


def key_pem(key: PrivateKey, passphrase: bytes | None = None) -> bytes:
    encryption: serialization.KeySerializationEncryption = (
        serialization.NoEncryption()
        if passphrase is None
        else serialization.BestAvailableEncryption(passphrase)
    )
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)


def cert_pem(*certificates: x509.Certificate) -> bytes:
    return b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certificates)


def write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


@pytest.fixture(scope="session")
def signing_key() -> rsa.RSAPrivateKey:
    """One RSA-2048 key for the tests that need a good one (a key takes tens of milliseconds to make)."""
    return rsa_key()


@pytest.fixture(scope="session")
def signing_cert(signing_key: rsa.RSAPrivateKey) -> x509.Certificate:
    """`signing_key`'s self-signed certificate, valid a day before NOW to a year after."""
    return issue(signing_key, "arcvsa release signing")
