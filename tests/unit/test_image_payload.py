"""The image's payload tar is reproducible: its SHA-256 is the packer stage's cache key."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from appliance.image.payload import WEB_DIST, make_payload


@pytest.mark.timeout(300)
def test_same_code_same_payload_whatever_the_work_folder(tmp_path: Path) -> None:
    if not (WEB_DIST / "index.html").is_file():
        pytest.skip("web/dist not built (make web)")
    first, sha1 = make_payload(tmp_path / "a", tmp_path / "a.tar")
    _, sha2 = make_payload(tmp_path / "b", tmp_path / "b.tar")
    assert sha1 == sha2
    with tarfile.open(first) as tar:
        members = tar.getmembers()
    names = {m.name for m in members}
    for needed in ("lib/api/app.py", "lib/zfs_tuning/profiles/generic.yaml", "lib/pydantic_core",
                   "web/index.html", "systemd/arcvsa-api.service", "systemd/arcvsa-firstboot.service",
                   "systemd/arcvsa-metrics.service", "systemd/arcvsa.slice", "systemd/arcvsa.sysusers"):  # fmt: skip
        assert needed in names, needed
    assert not [n for n in names if "__pycache__" in n or n.endswith("direct_url.json")]
    assert {(m.uid, m.gid, m.mtime) for m in members} == {(0, 0, 0)}
    assert any(n.endswith(".cpython-313-x86_64-linux-gnu.so") for n in names), (
        "wheels for the image's CPython"
    )
