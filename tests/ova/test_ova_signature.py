"""The OVA's signature checked with openssl alone, after a plain tar extraction: the .cert's first line
holds the signature over the .mf, its first PEM certificate the key to check it with. No arcvsa code
reads the package here.

The signature covers the .mf's bytes and the .mf's digests cover the rest, so a reader runs both
checks: a changed VMDK byte fails the manifest check; a tamperer who also fixes the manifest fails the
signature check; an edited .mf fails both.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import tarfile
from pathlib import Path

import pytest
from support.ova import (
    OvaUnderTest,
    change_vmdk_digest,
    extract,
    flip_middle_byte,
    manifest_failures,
    member_named,
    rewrite_member,
)

pytestmark = pytest.mark.integration

SIGNATURE_LINE = re.compile(r"SHA256\((?P<name>[^)]+)\)= (?P<hex>[0-9a-f]+)")
CERTIFICATE = re.compile(r"-----BEGIN CERTIFICATE-----\n.+?\n-----END CERTIFICATE-----\n", re.DOTALL)
VERIFIED = "Verified OK"
FAILED = "Verification failure"


def _openssl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["openssl", *args], capture_output=True, text=True, timeout=60, check=False)  # noqa: S607


def openssl_verdict(ova: Path, folder: Path) -> str:
    """The first line `openssl dgst -sha256 -verify` prints for the .cert's signature over the .mf."""
    extract(ova, folder)
    manifest = folder / member_named(ova, ".mf")
    first, _, certificates = (folder / member_named(ova, ".cert")).read_text().partition("\n")
    match = SIGNATURE_LINE.fullmatch(first)
    assert match is not None, f"not a signature line: {first!r}"
    assert match["name"] == manifest.name
    signature = folder / "manifest.sig"
    signature.write_bytes(bytes.fromhex(match["hex"]))
    signer = CERTIFICATE.search(certificates)
    assert signer is not None, "no PEM certificate after the signature line"
    (folder / "signer.pem").write_text(signer.group(0))
    pubkey = _openssl("x509", "-in", str(folder / "signer.pem"), "-noout", "-pubkey")
    assert pubkey.returncode == 0, pubkey.stderr
    (folder / "signer.pub").write_text(pubkey.stdout)
    done = _openssl(
        "dgst", "-sha256", "-verify", str(folder / "signer.pub"), "-signature", str(signature), str(manifest)
    )
    verdict = done.stdout.strip().splitlines()[0] if done.stdout.strip() else done.stderr.strip()
    assert (verdict == VERIFIED) == (done.returncode == 0), f"{verdict!r} with exit {done.returncode}"
    return verdict


def test_the_cert_follows_the_manifest_and_holds_no_key(under_test: OvaUnderTest, tmp_path: Path) -> None:
    with tarfile.open(under_test.ova) as tar:
        names = tar.getnames()
    print(f"\nmembers: {names}")
    assert names[1].endswith(".mf")
    assert names[2] == names[1].removesuffix(".mf") + ".cert"
    text = (extract(under_test.ova, tmp_path) / names[2]).read_text()
    assert "PRIVATE KEY" not in text


def test_openssl_verifies_the_signature_over_the_manifest(under_test: OvaUnderTest, tmp_path: Path) -> None:
    verdict = openssl_verdict(under_test.ova, tmp_path)
    subject = _openssl("x509", "-in", str(tmp_path / "signer.pem"), "-noout", "-subject", "-enddate")
    print(f"\ngood OVA: openssl dgst -verify: {verdict}; {' '.join(subject.stdout.split())}")
    assert verdict == VERIFIED
    assert manifest_failures(under_test.ova, tmp_path / "mf") == []


def test_a_tampered_vmdk_fails_the_manifest_the_signature_vouches_for(
    small: OvaUnderTest, tmp_path: Path
) -> None:
    bad = tmp_path / "tampered-vmdk.ova"
    rewrite_member(small.ova, bad, ".vmdk", flip_middle_byte)
    vmdk = member_named(bad, ".vmdk")
    failures = manifest_failures(bad, tmp_path / "mf")
    verdict = openssl_verdict(bad, tmp_path / "sig")
    print(f"\ntampered VMDK: manifest check {failures}; openssl dgst -verify of the .mf: {verdict}")
    assert failures == [f"{vmdk}: FAILED"]
    assert verdict == VERIFIED, "the .mf is as signed: the manifest check is what catches the disk"

    # A tamperer who also rewrites the VMDK's digest passes the manifest check, not the signature.
    with tarfile.open(bad) as tar:
        fh = tar.extractfile(vmdk)
        assert fh is not None
        digest = hashlib.sha256(fh.read()).hexdigest()
    worse = tmp_path / "tampered-vmdk-and-mf.ova"

    def new_digest(manifest: bytes) -> bytes:
        lines = [
            f"SHA256({vmdk})= {digest}" if line.startswith(f"SHA256({vmdk})= ") else line
            for line in manifest.decode().splitlines()
        ]
        return ("\n".join(lines) + "\n").encode()

    rewrite_member(bad, worse, ".mf", new_digest)
    failures = manifest_failures(worse, tmp_path / "mf2")
    verdict = openssl_verdict(worse, tmp_path / "sig2")
    print(f"tampered VMDK, .mf re-digested: manifest check {failures}; openssl dgst -verify: {verdict}")
    assert failures == []
    assert verdict == FAILED


def test_an_edited_manifest_fails_both_checks(small: OvaUnderTest, tmp_path: Path) -> None:
    bad = tmp_path / "tampered-mf.ova"
    rewrite_member(small.ova, bad, ".mf", change_vmdk_digest)
    failures = manifest_failures(bad, tmp_path / "mf")
    verdict = openssl_verdict(bad, tmp_path / "sig")
    print(f"\nedited .mf: manifest check {failures}; openssl dgst -verify: {verdict}")
    assert failures == [f"{member_named(bad, '.vmdk')}: FAILED"]
    assert verdict == FAILED


def test_one_byte_added_to_the_manifest_fails_the_signature(small: OvaUnderTest, tmp_path: Path) -> None:
    """The signature covers the .mf's bytes, not only its digests: a CR before the last line feed is a
    change no digest check sees."""
    bad = tmp_path / "crlf.ova"
    rewrite_member(small.ova, bad, ".mf", lambda manifest: manifest[:-1] + b"\r\n")
    assert manifest_failures(bad, tmp_path / "mf") == []
    assert openssl_verdict(bad, tmp_path / "sig") == FAILED
