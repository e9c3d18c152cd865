"""Thumbprints, certificate descriptions and the transport-fault table: the pure parts of certificate.py."""

from __future__ import annotations

import hashlib
import http.client
import socket
import ssl
from pathlib import Path

import pytest

from lab.vcsim import write_self_signed
from provisioning.certificate import (
    PinMismatch,
    describe_certificate,
    normalise_thumbprint,
    pinned_context,
    thumbprint_sha256,
    translate_transport_error,
)
from provisioning.errors import NotAVCenter, ThumbprintMismatch, Unreachable, VCenterTimeout

ABC_SHA256 = "BA:78:16:BF:8F:01:CF:EA:41:41:40:DE:5D:AE:22:23:B0:03:61:A3:96:17:7A:9C:B4:10:FF:61:F2:00:15:AD"


def test_thumbprint_is_upper_case_colon_separated_sha256() -> None:
    assert thumbprint_sha256(b"abc") == ABC_SHA256
    assert thumbprint_sha256(b"abc").replace(":", "").lower() == hashlib.sha256(b"abc").hexdigest()


@pytest.mark.parametrize(
    "typed",
    [
        ABC_SHA256,
        ABC_SHA256.lower(),
        ABC_SHA256.replace(":", ""),
        ABC_SHA256.replace(":", " "),
        ABC_SHA256.replace(":", "-").lower(),
        f"  {ABC_SHA256}\n",
    ],
)
def test_every_usual_spelling_normalises_to_one_form(typed: str) -> None:
    assert normalise_thumbprint(typed) == ABC_SHA256


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("", "32 hex pairs"),
        ("AB:CD", "32 hex pairs"),
        (ABC_SHA256 + ":00", "32 hex pairs"),
        (ABC_SHA256.replace("BA", "ZZ", 1), "32 hex pairs"),
        ("A9:99:3E:36:47:06:81:6A:BA:3E:25:71:78:50:C2:6C:9C:D0:D8:9D", "SHA-1"),
    ],
)
def test_anything_but_a_sha256_thumbprint_is_refused(typed: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        normalise_thumbprint(typed)


def test_pinned_context_stores_the_normal_form_and_checks_nothing_else() -> None:
    ctx = pinned_context(ABC_SHA256.lower().replace(":", ""))
    assert ctx.pinned_sha256 == ABC_SHA256  # type: ignore[attr-defined]
    assert ctx.verify_mode == ssl.CERT_NONE and not ctx.check_hostname


def test_describe_certificate_reads_subject_dates_and_thumbprint(tmp_path: Path) -> None:
    cert_path, _ = write_self_signed(tmp_path, "127.0.0.1")
    der = ssl.PEM_cert_to_DER_cert(cert_path.read_text())
    info = describe_certificate("vc.example", 443, der, trusted=False)
    assert info.thumbprint_sha256 == thumbprint_sha256(der)
    assert "CN=127.0.0.1" in info.subject and info.subject == info.issuer
    assert info.not_before < info.not_after
    assert info.not_before.endswith("+00:00")
    assert (info.host, info.port, info.trusted) == ("vc.example", 443, False)


@pytest.mark.parametrize(
    ("exc", "fault"),
    [
        (TimeoutError("timed out"), VCenterTimeout),
        (socket.gaierror(-2, "Name or service not known"), Unreachable),
        (ConnectionRefusedError(111, "Connection refused"), Unreachable),
        (OSError(113, "No route to host"), Unreachable),
        (ConnectionResetError(104, "Connection reset by peer"), Unreachable),
        (http.client.RemoteDisconnected("closed"), NotAVCenter),
        (http.client.BadStatusLine("SSH-2.0-OpenSSH"), NotAVCenter),
        (ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number"), NotAVCenter),
    ],
)
def test_transport_errors_map_to_one_typed_fault(exc: BaseException, fault: type) -> None:
    translated = translate_transport_error(exc, "vc:443")
    assert type(translated) is fault
    assert "vc" in str(translated)


def test_pin_mismatch_carries_the_thumbprint_seen() -> None:
    translated = translate_transport_error(PinMismatch(ABC_SHA256), "vc:443")
    assert isinstance(translated, ThumbprintMismatch)
    assert translated.thumbprint == ABC_SHA256 and translated.field == "thumbprint"


def test_verification_failures_and_foreign_errors_are_left_to_the_caller() -> None:
    assert translate_transport_error(ssl.SSLCertVerificationError("self-signed"), "vc:443") is None
    assert translate_transport_error(KeyError("x"), "vc:443") is None
