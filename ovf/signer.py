"""The OVA's signer: an RSA private key and the X.509 certificate that vouches for it, its chain after it.

Both come from outside the tree (make's OVA_SIGNING_KEY and OVA_SIGNING_CERT; one PEM file may hold
both, as ovftool's --privateKey takes them) and are checked when loaded, before the disk is converted,
so a wrong key fails the build in a second, not after the conversion. The key stays in this process:
signing runs no tool, so neither the key nor its passphrase can reach an argv or a log.

Without a key, `make ova` signs with a throwaway self-signed lab key (make_lab_signer): the package is
then signed, but by no one a vSphere site trusts.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from ovf.errors import SigningKeyInvalid
from pki import Extension, Validity, self_signed

# OVF signatures are SHA256 with RSA (what ovftool writes and vSphere checks); NIST SP 800-131A
# disallows RSA signing keys under 2048 bits.
MIN_RSA_BITS = 2048
LAB_RSA_BITS = 3072
LAB_VALID_DAYS = 30
LAB_KEY_NAME = "lab-signing.key"
LAB_CERT_NAME = "lab-signing.crt"
LAB_COMMON_NAME = "arcvsa lab OVA signing (throwaway)"


@dataclass(frozen=True)
class OvaSigner:
    """A checked key and its certificates, the signing one first; `lab` marks the throwaway one."""

    key: rsa.RSAPrivateKey = field(repr=False)
    certificates: tuple[x509.Certificate, ...]
    lab: bool = False

    @property
    def subject(self) -> str:
        """The signing certificate's subject, as vSphere shows it (RFC 4514)."""
        return self.certificates[0].subject.rfc4514_string()

    def certificates_pem(self) -> bytes:
        """The certificates as PEM, re-encoded: whatever else their file held (a key) is left behind."""
        return b"".join(c.public_bytes(serialization.Encoding.PEM) for c in self.certificates)

    def sign(self, data: bytes) -> bytes:
        """RSA PKCS #1 v1.5 over SHA-256 of `data`: the bytes `openssl dgst -sha256 -sign` writes."""
        return self.key.sign(data, padding.PKCS1v15(), hashes.SHA256())


def read_passphrase(path: Path) -> bytes:
    """A key's passphrase from a file, its line end dropped: passphrases never travel on argv."""
    try:
        return path.read_bytes().rstrip(b"\r\n")
    except OSError as exc:
        raise SigningKeyInvalid(f"cannot read the passphrase file {path}: {exc.strerror}") from None


def load_signer(
    key_path: Path, cert_path: Path, *, passphrase: bytes | None = None, now: dt.datetime | None = None
) -> OvaSigner:
    """The key and certificates at these paths, checked; SigningKeyInvalid names the rule broken."""
    key = _load_key(key_path, passphrase)
    certificates = _load_certificates(cert_path)
    leaf = certificates[0]
    if _public_der(leaf.public_key()) != _public_der(key.public_key()):
        raise SigningKeyInvalid(
            f"{key_path} is not the key of the certificate in {cert_path} ({leaf.subject.rfc4514_string()})"
        )
    _check_chain(certificates, cert_path, now or dt.datetime.now(dt.UTC))
    return OvaSigner(key=key, certificates=certificates)


def make_lab_signer(folder: Path, *, now: dt.datetime | None = None) -> OvaSigner:
    """A fresh throwaway key and self-signed certificate written to `folder` (the key owner-only)."""
    now = now or dt.datetime.now(dt.UTC)
    key = rsa.generate_private_key(public_exponent=65537, key_size=LAB_RSA_BITS)
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, LAB_COMMON_NAME),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "arcvsa lab"),
        ]
    )
    start = now - dt.timedelta(minutes=5)
    usage = x509.KeyUsage(
        digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
        key_agreement=False, key_cert_sign=False, crl_sign=False, encipher_only=False, decipher_only=False,
    )  # fmt: skip
    cert = self_signed(
        key,
        name,
        validity=Validity(not_before=start, not_after=start + dt.timedelta(days=LAB_VALID_DAYS)),
        extensions=[
            Extension(x509.BasicConstraints(ca=False, path_length=None), critical=True),
            Extension(usage, critical=True),
            Extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CODE_SIGNING]), critical=False),
        ],
    )
    folder.mkdir(parents=True, exist_ok=True)
    key_path, cert_path = folder / LAB_KEY_NAME, folder / LAB_CERT_NAME
    _write_owner_only(
        key_path,
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
    )
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return dataclasses.replace(load_signer(key_path, cert_path, now=now), lab=True)


def _load_key(path: Path, passphrase: bytes | None) -> rsa.RSAPrivateKey:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SigningKeyInvalid(f"cannot read the signing key {path}: {exc.strerror}") from None
    try:
        key = serialization.load_pem_private_key(data, password=passphrase)
    except TypeError:
        if passphrase is None:
            raise SigningKeyInvalid(
                f"{path} is encrypted: name a file holding its passphrase (OVA_SIGNING_PASSPHRASE_FILE)"
            ) from None
        raise SigningKeyInvalid(f"{path} is not encrypted, yet a passphrase was given") from None
    except ValueError:
        raise SigningKeyInvalid(f"{path} holds no PEM private key, or the passphrase is wrong") from None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise SigningKeyInvalid(f"{path} is not an RSA key: OVF package signatures are SHA256 with RSA")
    if key.key_size < MIN_RSA_BITS:
        raise SigningKeyInvalid(f"{path} is RSA-{key.key_size}; signing needs at least {MIN_RSA_BITS} bits")
    return key


def _load_certificates(path: Path) -> tuple[x509.Certificate, ...]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SigningKeyInvalid(f"cannot read the signing certificate {path}: {exc.strerror}") from None
    try:
        return tuple(x509.load_pem_x509_certificates(data))
    except ValueError:
        raise SigningKeyInvalid(f"{path} holds no PEM certificate") from None


def _check_chain(certificates: tuple[x509.Certificate, ...], path: Path, now: dt.datetime) -> None:
    for cert in certificates:
        start, end = cert.not_valid_before_utc, cert.not_valid_after_utc
        if not start <= now <= end:
            raise SigningKeyInvalid(
                f"{path}: {cert.subject.rfc4514_string()} is valid from {start:%Y-%m-%d %H:%M:%S} to"
                f" {end:%Y-%m-%d %H:%M:%S} UTC, not at {now:%Y-%m-%d %H:%M:%S} UTC"
            )
    for child, issuer in itertools.pairwise(certificates):
        try:
            child.verify_directly_issued_by(issuer)
        except (ValueError, TypeError, InvalidSignature):
            raise SigningKeyInvalid(
                f"{path}: {child.subject.rfc4514_string()} is not issued by the certificate after it"
                f" ({issuer.subject.rfc4514_string()}): the signing certificate goes first, then each issuer"
            ) from None


def _public_der(key: object) -> bytes:
    if not isinstance(key, rsa.RSAPublicKey):
        return b""
    return key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def _write_owner_only(path: Path, data: bytes) -> None:
    path.unlink(missing_ok=True)  # O_CREAT's mode only applies to a file it creates
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
