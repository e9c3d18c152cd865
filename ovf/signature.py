"""The OVF certificate file (.cert): the manifest's signature and the certificate to check it with.

DSP0243 (package signing) and VMware's ovftool, whose form vSphere reads, write it as

    SHA256(arcvsa-1.2.3.mf)= <hex of the RSA signature over the .mf file's bytes>
    -----BEGIN CERTIFICATE-----
    ...  (the signing certificate, then any chain, PEM)

The signature is what `openssl dgst -sha256 -sign KEY arcvsa-1.2.3.mf` writes, so anyone can check it
with openssl alone. The manifest lists every file but itself and the .cert: the signature covers the
manifest, and the manifest's digests cover the rest. Checking it here proves integrity only; whether
the signer is trusted is the reader's call (vSphere checks the chain against its own trust store).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from ovf.errors import SignatureInvalid

_SIGNATURE_LINE = re.compile(r"^(?P<algorithm>SHA1|SHA256|SHA512)\((?P<name>[^)]+)\)= (?P<hex>[0-9a-fA-F]+)$")


@dataclass(frozen=True)
class PackageSignature:
    """A parsed .cert: which manifest it signs, how, the signature, and the certificates (signer first)."""

    manifest_name: str
    algorithm: str
    signature: bytes
    certificates: tuple[x509.Certificate, ...]

    @property
    def subject(self) -> str:
        """The signing certificate's subject (RFC 4514)."""
        return self.certificates[0].subject.rfc4514_string()


def render_signature(manifest_name: str, signature: bytes, certificates_pem: bytes) -> bytes:
    """The .cert's bytes: the signature line, then the certificates as given (PEM)."""
    return f"SHA256({manifest_name})= {signature.hex()}\n".encode("ascii") + certificates_pem


def parse_signature(data: bytes) -> PackageSignature:
    """A .cert's parts; SignatureInvalid if it is not a signature line followed by PEM certificates."""
    try:
        first, _, rest = data.decode("ascii").partition("\n")
    except UnicodeDecodeError:
        raise SignatureInvalid("the .cert is not ASCII text") from None
    match = _SIGNATURE_LINE.match(first.strip())
    if match is None or len(match["hex"]) % 2:
        raise SignatureInvalid(f"the .cert's first line is not 'SHA256(name.mf)= hex': {first[:80]!r}")
    try:
        certificates = tuple(x509.load_pem_x509_certificates(rest.encode("ascii")))
    except ValueError:
        raise SignatureInvalid("the .cert holds no PEM certificate after its signature line") from None
    return PackageSignature(
        manifest_name=match["name"],
        algorithm=match["algorithm"],
        signature=bytes.fromhex(match["hex"]),
        certificates=certificates,
    )


def verify_signature(signed: PackageSignature, manifest_name: str, manifest: bytes) -> None:
    """SignatureInvalid unless `signed` is a SHA256-with-RSA signature of these manifest bytes."""
    if signed.manifest_name != manifest_name:
        raise SignatureInvalid(
            f"the .cert signs {signed.manifest_name!r}; the package's manifest is {manifest_name!r}"
        )
    if signed.algorithm != "SHA256":
        raise SignatureInvalid(f"the .cert is signed with {signed.algorithm}; we require SHA256")
    key = signed.certificates[0].public_key()
    if not isinstance(key, rsa.RSAPublicKey):
        raise SignatureInvalid(f"the .cert's certificate ({signed.subject}) does not hold an RSA key")
    try:
        key.verify(signed.signature, manifest, padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        raise SignatureInvalid(
            f"the .cert's signature does not match {manifest_name}: the manifest changed after it was"
            f" signed, or another key signed it (the .cert names {signed.subject})"
        ) from None
