"""Which earlier commit's image the upgrade test may start from (lab.previous): only one with this tree's
package set, as an appliance takes only a bundle built on its own base system."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from appliance.image.rootfs import HERE
from lab import previous


def checkout(at: Path, packages: str | None = None) -> Path:
    """A checkout whose image package list is this tree's, or ``packages``."""
    image = at / "appliance" / "image"
    image.mkdir(parents=True)
    if packages is None:
        shutil.copy2(HERE / "packages.txt", image / "packages.txt")
    else:
        (image / "packages.txt").write_text(packages, encoding="utf-8")
    return at


def test_a_commit_with_this_trees_package_set_is_built(tmp_path: Path) -> None:
    previous.check_base(checkout(tmp_path), "HEAD~1")


def test_the_order_and_comments_of_the_list_do_not_matter(tmp_path: Path) -> None:
    lines = (HERE / "packages.txt").read_text(encoding="utf-8").splitlines()
    names = [line.split("#", 1)[0].strip() for line in lines]
    previous.check_base(checkout(tmp_path, "# reordered\n" + "\n".join(reversed(names)) + "\n"), "HEAD~1")


def test_a_commit_with_another_package_set_is_not_upgradable(tmp_path: Path) -> None:
    text = (HERE / "packages.txt").read_text(encoding="utf-8").replace("grub-efi-amd64\n", "")
    with pytest.raises(previous.NotUpgradable, match="another package set"):
        previous.check_base(checkout(tmp_path, text), "HEAD~1 (abc)")
