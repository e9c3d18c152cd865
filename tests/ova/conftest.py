"""Fixtures of `make ova-test`: the OVA under test, its files as a plain tar extraction gives them, and
the SHA-256 of the disk it was packed from.

`make ova-test` names the release OVA in ARCVSA_OVA and the image it was packed from in
ARCVSA_OVA_SOURCE; without them a small OVA is packed here from a disk made here (noise that does
not compress, then holes), so the checks run in seconds.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support.ova import OvaUnderTest, extract, sha256_file, small_ova


@pytest.fixture(scope="session")
def under_test(tmp_path_factory: pytest.TempPathFactory) -> OvaUnderTest:
    named = os.environ.get("ARCVSA_OVA")
    if not named:
        return small_ova(tmp_path_factory.mktemp("small-ova"))
    source = os.environ.get("ARCVSA_OVA_SOURCE")
    if not source:
        pytest.fail("ARCVSA_OVA_SOURCE must name the disk image ARCVSA_OVA was packed from")
    return OvaUnderTest(ova=Path(named), source=Path(source))


@pytest.fixture(scope="session")
def small(tmp_path_factory: pytest.TempPathFactory) -> OvaUnderTest:
    """Always the small OVA: the one the tampering tests change, whatever ARCVSA_OVA names."""
    return small_ova(tmp_path_factory.mktemp("tamper-ova"))


@pytest.fixture(scope="session")
def extracted(under_test: OvaUnderTest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return extract(under_test.ova, tmp_path_factory.mktemp("extracted"))


@pytest.fixture(scope="session")
def vmdk(extracted: Path) -> Path:
    (found,) = extracted.glob("*.vmdk")
    return found


@pytest.fixture(scope="session")
def source_sha256(under_test: OvaUnderTest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """SHA-256 of the source disk's raw content, as qemu-img reads the image it was packed from."""
    raw = tmp_path_factory.mktemp("source") / "source.raw"
    argv = ["qemu-img", "convert", "-O", "raw", str(under_test.source), str(raw)]
    subprocess.run(argv, check=True, timeout=600)
    try:
        return sha256_file(raw)
    finally:
        raw.unlink()
