"""The published disk shares the cached disk's blocks: the build keeps one ~1 GB copy, not two."""

from __future__ import annotations

from pathlib import Path

from appliance.image.build import copy_out, prune_published


def test_published_disk_is_the_cached_file_and_survives_its_pruning(tmp_path: Path) -> None:
    cached, published = tmp_path / "cache" / "image-1.qcow2", tmp_path / "arcvsa-v2.qcow2"
    cached.parent.mkdir()
    cached.write_bytes(b"qcow2 bytes")
    (tmp_path / "arcvsa-v2.qcow2.partial").write_bytes(b"left by a killed build")
    copy_out(cached, published)
    assert published.stat().st_ino == cached.stat().st_ino
    assert not (tmp_path / "arcvsa-v2.qcow2.partial").exists()
    copy_out(cached, published)  # a rebuild of the same version publishes again
    assert not (tmp_path / "arcvsa-v2.qcow2.partial").exists()  # rename() of one file's two links: a no-op
    cached.unlink()  # the cache pruned for the next key: the published disk keeps its data
    assert published.read_bytes() == b"qcow2 bytes"


def test_other_versions_are_pruned(tmp_path: Path) -> None:
    for name in ("arcvsa-v1.qcow2", "arcvsa-v1.json", "arcvsa-v2.qcow2", "arcvsa-v2.json"):
        (tmp_path / name).write_text("x")
    prune_published(tmp_path, "v2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arcvsa-v2.json", "arcvsa-v2.qcow2"]
