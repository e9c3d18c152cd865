"""The root tree's cache key (appliance.image.rootfs.rootfs_key) is the recipe's, not the checkout's: two
clones of one tree share a cached rootfs (its ZFS DKMS build is most of an image build), and a change to
what the tree is made from makes a new one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from appliance.image import rootfs

SOURCE = "deb http://mirror.example/debian trixie main contrib"  # never fetched: only hashed


def clone(at: Path) -> Path:
    """The files the key reads, at ``at`` as another checkout would have them."""
    here = at / "appliance" / "image"
    here.mkdir(parents=True)
    for name in ("packages.txt", "customize.sh", "grub-probe.sh"):
        shutil.copy2(rootfs.HERE / name, here / name)
    shutil.copytree(rootfs.HERE / "overlay", here / "overlay")
    return here


def key_in(monkeypatch: pytest.MonkeyPatch, here: Path) -> str:
    monkeypatch.setattr(rootfs, "HERE", here)
    monkeypatch.setattr(rootfs, "REPO", here.parent.parent)
    return rootfs.rootfs_key(rootfs.image_packages(here / "packages.txt"), SOURCE)


def test_two_checkouts_of_one_tree_share_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = clone(tmp_path / "main"), clone(tmp_path / "ci-fresh")
    assert key_in(monkeypatch, first) == key_in(monkeypatch, second)


def test_what_the_tree_is_made_of_changes_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = clone(tmp_path / "main")
    before = key_in(monkeypatch, here)
    with (here / "customize.sh").open("a", encoding="utf-8") as hook:
        hook.write("# a changed hook\n")
    assert key_in(monkeypatch, here) != before
    (here / "customize.sh").chmod(0o644)
    changed_mode = key_in(monkeypatch, here)
    (here / "overlay" / "etc" / "hostname").write_text("other\n", encoding="utf-8")
    assert key_in(monkeypatch, here) not in (before, changed_mode)
    assert rootfs.rootfs_key(["zfs-dkms"], SOURCE) != rootfs.rootfs_key(["zfs-dkms", "fio"], SOURCE)
