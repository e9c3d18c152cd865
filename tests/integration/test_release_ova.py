"""The release OVA (``make ova-test`` names it in ARCVSA_OVA): tar order, digests, disk, build manifest.

Skipped without ARCVSA_OVA: the packer and descriptor logic is covered on a small OVA in
tests/unit/test_ovf_ova.py; this checks the artefact `make ova` made from the real image.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from ovf.ova import verify_ova

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def release() -> Path:
    named = os.environ.get("ARCVSA_OVA")
    if not named:
        pytest.skip("ARCVSA_OVA not set (make ova-test sets it)")
    return Path(named)


def test_tar_tf_lists_the_ovf_first(release: Path) -> None:
    argv = ["tar", "tf", str(release)]
    listing = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=300).stdout.split()
    print(f"\n{release.name} ({release.stat().st_size / 2**20:.1f} MiB): {listing}")
    assert listing[0].endswith(".ovf") and listing[1].endswith(".mf")
    assert listing[2] == listing[1].removesuffix(".mf") + ".cert", "make ova signs every OVA"


def test_every_member_matches_its_sha256_in_the_manifest(release: Path) -> None:
    with tarfile.open(release) as tar:
        names = tar.getnames()
        manifest = tar.extractfile(names[1])
        assert manifest is not None
        expected = {}
        for line in manifest.read().decode().splitlines():
            algo, rest = line.split("(", 1)
            name, digest = rest.split(")= ")
            assert algo == "SHA256"
            expected[name] = digest
        assert set(expected) == {n for n in names if n != names[1] and not n.endswith(".cert")}
        for name, digest in expected.items():
            member = tar.extractfile(name)
            assert member is not None
            sha = hashlib.sha256()
            while chunk := member.read(1 << 20):
                sha.update(chunk)
            assert sha.hexdigest() == digest, name
    print(f"\nsigned by {verify_ova(release).signed_by}")


def test_build_manifest_names_the_real_components(release: Path) -> None:
    with tarfile.open(release) as tar:
        member = tar.extractfile("build-manifest.json")
        assert member is not None
        build = json.loads(member.read())
    print(f"\nbuild manifest: {build}")
    assert build["kernel"].endswith("-amd64")
    major, minor = (int(x) for x in build["openzfs"].split(".")[:2])
    assert (major, minor) >= (2, 3)
    assert build["nfs_ganesha"].startswith("6.")
