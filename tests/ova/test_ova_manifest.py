"""The OVA's .mf checked as `sha256sum -c` would check it, after a plain tar extraction: no arcvsa code
reads the package here. A changed digest in the manifest and a changed byte in the VMDK are caught."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.ova import (
    OvaUnderTest,
    change_vmdk_digest,
    flip_middle_byte,
    manifest_failures,
    member_named,
    rewrite_member,
)

pytestmark = pytest.mark.integration


def test_every_member_matches_the_manifest(under_test: OvaUnderTest, tmp_path: Path) -> None:
    assert manifest_failures(under_test.ova, tmp_path) == []


def test_a_tampered_manifest_is_caught(small: OvaUnderTest, tmp_path: Path) -> None:
    bad = tmp_path / "tampered-mf.ova"
    rewrite_member(small.ova, bad, ".mf", change_vmdk_digest)
    assert manifest_failures(small.ova, tmp_path / "sound") == []
    failures = manifest_failures(bad, tmp_path / "bad")
    print(f"\ntampered manifest: {failures}")
    assert failures == [f"{member_named(bad, '.vmdk')}: FAILED"]


def test_a_tampered_vmdk_is_caught(small: OvaUnderTest, tmp_path: Path) -> None:
    bad = tmp_path / "tampered-vmdk.ova"
    rewrite_member(small.ova, bad, ".vmdk", flip_middle_byte)
    failures = manifest_failures(bad, tmp_path / "bad")
    print(f"\ntampered VMDK: {failures}")
    assert failures == [f"{member_named(bad, '.vmdk')}: FAILED"]


def test_a_member_left_out_of_the_manifest_is_caught(small: OvaUnderTest, tmp_path: Path) -> None:
    bad = tmp_path / "unlisted.ova"

    def drop_build_manifest(manifest: bytes) -> bytes:
        return b"".join(line for line in manifest.splitlines(keepends=True) if b"build-manifest" not in line)

    rewrite_member(small.ova, bad, ".mf", drop_build_manifest)
    assert manifest_failures(bad, tmp_path / "bad") == ["build-manifest.json: not in the manifest"]
