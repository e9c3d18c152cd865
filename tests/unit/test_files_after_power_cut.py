"""Files the api makes on its first start must survive a power cut whole (no VM: runs in seconds).

Found by the power-cut run (issue 8): qemu killed about 30 s after first boot left
/var/lib/arcvsa/secrets.key empty (written without fsync), and the api never started again
("Fernet key must be 32 url-safe base64-encoded bytes"). The key and the TLS pair are now written to a
temporary file, fsynced and renamed; an empty file left by an older build is made anew.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from api.secretbox import SecretBox
from api.tls import ensure_certificate, paths


def test_empty_key_file_is_replaced_and_the_new_key_is_fsynced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = tmp_path / "secrets.key"
    key.write_bytes(b"")
    synced: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    box = SecretBox(key)
    assert len(key.read_bytes().strip()) == 44 and len(synced) >= 2  # the file and its folder
    assert SecretBox(key).open(box.seal("vcenter-password")) == "vcenter-password"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secrets.key"]


def test_empty_tls_files_are_made_anew(tmp_path: Path) -> None:
    cert, key = paths(tmp_path)
    cert.write_bytes(b"")
    key.write_bytes(b"")
    ensure_certificate(tmp_path)
    assert cert.read_bytes().startswith(b"-----BEGIN CERTIFICATE-----")
    assert b"PRIVATE KEY" in key.read_bytes() and key.stat().st_mode & 0o777 == 0o600
    first = cert.read_bytes()
    ensure_certificate(tmp_path)
    assert cert.read_bytes() == first  # complete files are kept
