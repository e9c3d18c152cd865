"""The .cert file: written in the form ovftool writes, read back, and its signature checked against the
manifest's bytes, each refusal named."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import rsa
from support.signing import NOW, cert_pem, issue, key_pem, rsa_key, write

from ovf.errors import SignatureInvalid
from ovf.signature import parse_signature, render_signature, verify_signature
from ovf.signer import OvaSigner, load_signer

MANIFEST = b"SHA256(arcvsa-1.2.3.ovf)= " + b"ab" * 32 + b"\n"


@pytest.fixture
def signer(tmp_path: Path, signing_key: rsa.RSAPrivateKey, signing_cert: x509.Certificate) -> OvaSigner:
    return load_signer(
        write(tmp_path, "k.pem", key_pem(signing_key)),
        write(tmp_path, "c.pem", cert_pem(signing_cert)),
        now=NOW,
    )


def test_the_cert_is_the_signature_line_then_the_certificate(
    signer: OvaSigner, signing_cert: x509.Certificate
) -> None:
    signature = signer.sign(MANIFEST)
    text = render_signature("arcvsa-1.2.3.mf", signature, signer.certificates_pem()).decode()
    first, _, rest = text.partition("\n")
    assert first == f"SHA256(arcvsa-1.2.3.mf)= {signature.hex()}"
    assert len(signature) == 256, "RSA-2048: a 256-byte signature, 512 hex digits"
    assert rest.encode() == cert_pem(signing_cert)


def test_a_signature_reads_back_and_verifies(signer: OvaSigner) -> None:
    data = render_signature("arcvsa-1.2.3.mf", signer.sign(MANIFEST), signer.certificates_pem())
    signed = parse_signature(data)
    assert (signed.manifest_name, signed.algorithm, signed.subject) == (
        "arcvsa-1.2.3.mf",
        "SHA256",
        "CN=arcvsa release signing",
    )
    verify_signature(signed, "arcvsa-1.2.3.mf", MANIFEST)


def test_a_manifest_changed_by_one_byte_is_refused(signer: OvaSigner) -> None:
    signed = parse_signature(render_signature("a.mf", signer.sign(MANIFEST), signer.certificates_pem()))
    with pytest.raises(
        SignatureInvalid, match=r"does not match a.mf: the manifest changed after it was signed"
    ):
        verify_signature(signed, "a.mf", MANIFEST[:-1] + b" ")


def test_a_signature_by_another_key_is_refused(signer: OvaSigner) -> None:
    other_key = rsa_key()
    other_cert = issue(other_key, "someone else")
    signed = parse_signature(render_signature("a.mf", signer.sign(MANIFEST), cert_pem(other_cert)))
    with pytest.raises(SignatureInvalid, match=r"another key signed it \(the .cert names CN=someone else\)"):
        verify_signature(signed, "a.mf", MANIFEST)


def test_the_cert_must_sign_this_packages_manifest_with_sha256(signer: OvaSigner) -> None:
    data = render_signature("other.mf", signer.sign(MANIFEST), signer.certificates_pem())
    with pytest.raises(
        SignatureInvalid, match=r"the .cert signs 'other.mf'; the package's manifest is 'a.mf'"
    ):
        verify_signature(parse_signature(data), "a.mf", MANIFEST)
    sha1 = data.replace(b"SHA256(", b"SHA1(", 1)
    with pytest.raises(SignatureInvalid, match="signed with SHA1; we require SHA256"):
        verify_signature(parse_signature(sha1), "other.mf", MANIFEST)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"SHA256 (a.mf) = 00\n", "first line is not 'SHA256"),
        (b"SHA256(a.mf)= 0\n", "first line is not 'SHA256"),
        (b"SHA256(a.mf)= 00\n", "holds no PEM certificate"),
        (b"SHA256(a.mf)= 00\n\xff", "not ASCII"),
    ],
    ids=["spaces", "odd hex", "no certificate", "binary"],
)
def test_a_malformed_cert_is_refused(data: bytes, problem: str) -> None:
    with pytest.raises(SignatureInvalid, match=problem):
        parse_signature(data)
