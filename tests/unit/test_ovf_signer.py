"""The OVA signer: a key and certificate are checked when loaded, each rule at its boundary, and the
throwaway lab key is what `make ova` says it is."""

from __future__ import annotations

import datetime as dt
import stat
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID
from support.signing import NOW, cert_pem, issue, key_pem, rsa_key, write

from ovf.errors import SigningKeyInvalid
from ovf.signer import (
    LAB_CERT_NAME,
    LAB_KEY_NAME,
    LAB_VALID_DAYS,
    load_signer,
    make_lab_signer,
    read_passphrase,
)


def _pair(
    folder: Path, key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey, *certs: x509.Certificate
) -> tuple[Path, Path]:
    return write(folder, "sign.key", key_pem(key)), write(folder, "sign.crt", cert_pem(*certs))


def test_a_matching_key_and_certificate_sign(
    tmp_path: Path, signing_key: rsa.RSAPrivateKey, signing_cert: x509.Certificate
) -> None:
    signer = load_signer(*_pair(tmp_path, signing_key, signing_cert), now=NOW)
    assert signer.subject == "CN=arcvsa release signing" and not signer.lab
    signature = signer.sign(b"SHA256(a.ovf)= 00\n")
    public = signing_cert.public_key()
    assert isinstance(public, rsa.RSAPublicKey)
    public.verify(signature, b"SHA256(a.ovf)= 00\n", padding.PKCS1v15(), hashes.SHA256())
    assert "PRIVATE" not in repr(signer)


def test_a_key_that_is_not_the_certificates_is_refused(
    tmp_path: Path, signing_key: rsa.RSAPrivateKey, signing_cert: x509.Certificate
) -> None:
    other = write(tmp_path, "other.key", key_pem(rsa_key()))
    certificate = write(tmp_path, "sign.crt", cert_pem(signing_cert))
    with pytest.raises(SigningKeyInvalid, match=r"other.key is not the key of the certificate in .*sign.crt"):
        load_signer(other, certificate, now=NOW)


@pytest.mark.parametrize(("bits", "accepted"), [(2047, False), (2048, True)])
def test_rsa_keys_need_2048_bits(tmp_path: Path, bits: int, accepted: bool) -> None:
    short = rsa_key(bits)
    pair = _pair(tmp_path, short, issue(short, f"rsa-{bits}"))
    if accepted:
        assert load_signer(*pair, now=NOW).key.key_size == bits
    else:
        with pytest.raises(SigningKeyInvalid, match=r"is RSA-2047; signing needs at least 2048 bits"):
            load_signer(*pair, now=NOW)


def test_an_ec_key_is_refused(tmp_path: Path) -> None:
    curve = ec.generate_private_key(ec.SECP256R1())
    with pytest.raises(SigningKeyInvalid, match="is not an RSA key"):
        load_signer(*_pair(tmp_path, curve, issue(curve, "ec")), now=NOW)


@pytest.mark.parametrize(
    ("at", "accepted"),
    [
        (dt.timedelta(seconds=-1), False),
        (dt.timedelta(0), True),
        (dt.timedelta(days=10), True),
        (dt.timedelta(days=10, seconds=1), False),
    ],
    ids=["a second before", "its first second", "its last second", "a second after"],
)
def test_the_certificate_must_be_valid_when_signing(
    tmp_path: Path, signing_key: rsa.RSAPrivateKey, at: dt.timedelta, accepted: bool
) -> None:
    cert = issue(signing_key, "ten days", not_before=NOW, not_after=NOW + dt.timedelta(days=10))
    pair = _pair(tmp_path, signing_key, cert)
    if accepted:
        load_signer(*pair, now=NOW + at)
    else:
        with pytest.raises(
            SigningKeyInvalid, match=r"CN=ten days is valid from 2026-03-01 12:00:00 to 2026-03-11"
        ):
            load_signer(*pair, now=NOW + at)


def test_an_encrypted_key_takes_its_passphrase_from_a_file(
    tmp_path: Path, signing_key: rsa.RSAPrivateKey, signing_cert: x509.Certificate
) -> None:
    secret = b"correct horse battery"
    key_path = write(tmp_path, "sign.key", key_pem(signing_key, passphrase=secret))
    cert_path = write(tmp_path, "sign.crt", cert_pem(signing_cert))
    passphrase = read_passphrase(write(tmp_path, "passphrase", secret + b"\n"))
    assert load_signer(key_path, cert_path, passphrase=passphrase, now=NOW).subject
    with pytest.raises(
        SigningKeyInvalid, match="is encrypted: name a file holding its passphrase"
    ) as missing:
        load_signer(key_path, cert_path, now=NOW)
    with pytest.raises(SigningKeyInvalid, match="or the passphrase is wrong") as wrong:
        load_signer(key_path, cert_path, passphrase=secret + b"!", now=NOW)
    for refused in (missing, wrong):
        assert "horse" not in str(refused.value)


def test_a_passphrase_for_a_plain_key_is_refused(
    tmp_path: Path, signing_key: rsa.RSAPrivateKey, signing_cert: x509.Certificate
) -> None:
    with pytest.raises(SigningKeyInvalid, match="is not encrypted, yet a passphrase was given"):
        load_signer(*_pair(tmp_path, signing_key, signing_cert), passphrase=b"x", now=NOW)


def test_missing_files_are_named(
    tmp_path: Path, signing_key: rsa.RSAPrivateKey, signing_cert: x509.Certificate
) -> None:
    key_path, cert_path = _pair(tmp_path, signing_key, signing_cert)
    with pytest.raises(SigningKeyInvalid, match=r"cannot read the signing key .*absent.key"):
        load_signer(tmp_path / "absent.key", cert_path, now=NOW)
    with pytest.raises(SigningKeyInvalid, match=r"cannot read the signing certificate .*absent.crt"):
        load_signer(key_path, tmp_path / "absent.crt", now=NOW)
    with pytest.raises(SigningKeyInvalid, match=r"holds no PEM certificate"):
        load_signer(key_path, key_path, now=NOW)
    with pytest.raises(SigningKeyInvalid, match=r"cannot read the passphrase file"):
        read_passphrase(tmp_path / "absent")


def test_one_file_may_hold_the_key_and_certificate_and_only_certificates_leave_it(
    tmp_path: Path, signing_key: rsa.RSAPrivateKey, signing_cert: x509.Certificate
) -> None:
    both = write(tmp_path, "both.pem", key_pem(signing_key) + cert_pem(signing_cert))
    signer = load_signer(both, both, now=NOW)
    assert signer.certificates_pem() == cert_pem(signing_cert)


def test_a_chain_goes_signer_first_then_each_issuer(tmp_path: Path) -> None:
    ca_key, leaf_key = rsa_key(), rsa_key()
    ca = issue(ca_key, "arcvsa test CA", ca=True)
    leaf = issue(leaf_key, "arcvsa signing", issuer=(ca_key, ca))
    key_path = write(tmp_path, "leaf.key", key_pem(leaf_key))
    signer = load_signer(key_path, write(tmp_path, "chain.crt", cert_pem(leaf, ca)), now=NOW)
    assert signer.certificates == (leaf, ca)
    stranger = issue(rsa_key(), "not the issuer", ca=True)
    with pytest.raises(
        SigningKeyInvalid, match=r"CN=arcvsa signing is not issued by the certificate after it"
    ):
        load_signer(key_path, write(tmp_path, "wrong.crt", cert_pem(leaf, stranger)), now=NOW)
    expired_ca = issue(ca_key, "arcvsa test CA", ca=True, not_after=NOW - dt.timedelta(seconds=1))
    with pytest.raises(SigningKeyInvalid, match=r"CN=arcvsa test CA is valid from"):
        load_signer(key_path, write(tmp_path, "stale.crt", cert_pem(leaf, expired_ca)), now=NOW)


def test_the_lab_signer_is_a_fresh_self_signed_code_signing_key(tmp_path: Path) -> None:
    first = make_lab_signer(tmp_path / "lab", now=NOW)
    key_path, cert_path = tmp_path / "lab" / LAB_KEY_NAME, tmp_path / "lab" / LAB_CERT_NAME
    assert first.lab and first.key.key_size == 3072
    assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
    (cert,) = first.certificates
    assert cert.issuer == cert.subject and "throwaway" in first.subject
    assert cert.not_valid_after_utc - cert.not_valid_before_utc == dt.timedelta(days=LAB_VALID_DAYS)
    usage = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(usage) == [ExtendedKeyUsageOID.CODE_SIGNING]
    assert load_signer(key_path, cert_path, now=NOW).certificates == first.certificates
    key_path.chmod(0o644)
    second = make_lab_signer(tmp_path / "lab", now=NOW)
    assert second.certificates != first.certificates, "a new key each build"
    assert stat.S_IMODE(key_path.stat().st_mode) == 0o600


def test_the_lab_certificate_may_sign_code_and_nothing_else(tmp_path: Path) -> None:
    (cert,) = make_lab_signer(tmp_path / "lab", now=NOW).certificates
    sign_only = x509.KeyUsage(
        digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
        key_agreement=False, key_cert_sign=False, crl_sign=False, encipher_only=False, decipher_only=False,
    )  # fmt: skip
    assert [(e.value, e.critical) for e in cert.extensions] == [
        (x509.BasicConstraints(ca=False, path_length=None), True),
        (sign_only, True),
        (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CODE_SIGNING]), False),
    ]
    # valid from five minutes before the build, so a signing host's clock a little behind still accepts it
    assert cert.not_valid_before_utc == NOW - dt.timedelta(minutes=5)
    assert cert.not_valid_after_utc == NOW - dt.timedelta(minutes=5) + dt.timedelta(days=LAB_VALID_DAYS)
    public = cert.public_key()
    assert isinstance(public, rsa.RSAPublicKey) and public.key_size == 3072
    assert isinstance(cert.signature_hash_algorithm, hashes.SHA256)
