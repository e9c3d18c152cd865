"""A lab vCenter's own certificate (lab.vcsim.write_self_signed): fresh, EC P-256, its IP address as the
subject alternative name, the key owner-only."""

from __future__ import annotations

import datetime as dt
import ipaddress
import stat
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from lab.vcsim import write_self_signed


@pytest.mark.parametrize(
    ("host", "extensions"),
    [
        (
            "127.0.0.1",
            [(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)],
        ),
        ("::1", [(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("::1"))]), False)]),
        ("vc.lab.example", []),
    ],
)
def test_the_certificate_names_the_host_and_an_address_as_its_san(
    tmp_path: Path, host: str, extensions: list[tuple[x509.ExtensionType, bool]]
) -> None:
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    cert_path, key_path = write_self_signed(tmp_path / "tls", host, organisation="org x", stem="vc", days=7)
    after = dt.datetime.now(dt.UTC)
    assert (cert_path.name, key_path.name) == ("vc.crt", "vc.key")
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "org x"),
            x509.NameAttribute(NameOID.COMMON_NAME, host),
        ]
    )
    assert cert.subject == cert.issuer == name
    assert [(e.value, e.critical) for e in cert.extensions] == extensions
    start, end = cert.not_valid_before_utc, cert.not_valid_after_utc
    assert before - dt.timedelta(minutes=5) <= start <= after - dt.timedelta(minutes=5)
    assert end - start == dt.timedelta(days=7, minutes=5)
    public = cert.public_key()
    assert isinstance(public, ec.EllipticCurvePublicKey) and isinstance(public.curve, ec.SECP256R1)
    assert isinstance(cert.signature_hash_algorithm, hashes.SHA256)
    assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
    key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey) and key.public_key() == public


def test_each_call_makes_a_new_key(tmp_path: Path) -> None:
    first = write_self_signed(tmp_path / "a")[1].read_bytes()
    assert write_self_signed(tmp_path / "b")[1].read_bytes() != first


def test_the_default_lifetime_is_thirty_days(tmp_path: Path) -> None:
    cert = x509.load_pem_x509_certificate(write_self_signed(tmp_path)[0].read_bytes())
    assert cert.not_valid_after_utc - cert.not_valid_before_utc == dt.timedelta(days=30, minutes=5)
