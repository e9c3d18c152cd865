"""Fixtures of `make ova-test`: the OVA under test, its files as a plain tar extraction gives them, the
SHA-256 of the disk it was packed from, and govc run against a vcsim of each test module's own.

`make ova-test` names the release OVA in ARCVSA_OVA and the image it was packed from in
ARCVSA_OVA_SOURCE; without them a small OVA is packed here from a disk made here (noise that does
not compress, then holes), so the checks run in seconds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.ova import OvaUnderTest, extract, sha256_file, small_ova

from lab.vcsim import DATACENTER, DATASTORES, Vcsim

GOVC_TIMEOUT = 300.0


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


def _govc_binary() -> str:
    found = os.environ.get("GOVC") or shutil.which("govc")
    if not found or not os.access(found, os.X_OK):
        pytest.fail("govc not found: `make setup` installs it (GOVC names it)")
    return found


@pytest.fixture(scope="module")
def site() -> Iterator[Vcsim]:
    with Vcsim() as sim:
        yield sim


@pytest.fixture(scope="module")
def govc(site: Vcsim) -> Any:
    """Run govc against the module's vcsim: credentials in the environment, its certificate pinned."""
    binary = _govc_binary()
    assert site.workdir is not None
    env = {
        **os.environ,
        "GOVC_URL": site.url,
        "GOVC_USERNAME": site.username,
        "GOVC_PASSWORD": site.password,
        "GOVC_TLS_CA_CERTS": str(site.workdir / "vcsim.crt"),
        "GOVC_DATACENTER": DATACENTER,
        "GOVC_DATASTORE": DATASTORES[0],
        "GOVC_PERSIST_SESSION": "false",
    }

    def run(*args: str) -> str:
        done = subprocess.run([binary, *args], env=env, capture_output=True, text=True, timeout=GOVC_TIMEOUT)
        if done.returncode:
            raise AssertionError(f"govc {' '.join(args[:1])} exited {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    return run
