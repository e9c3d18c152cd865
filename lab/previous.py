"""The appliance image of an earlier commit, built the way `make image` builds it, for the upgrade test.

The commit is checked out as a git worktree under ``build/previous/<sha>`` and built with its own build
code into ``build/previous/image``. That build starts from this tree's cache: the root tree and base
disk (hard-linked, so unchanged package lists cost nothing) and this tree's keys, so the earlier image
trusts the bundles this tree signs, as an appliance trusts the releases of the pipeline that built it.
Its web assets are built with this tree's node_modules.

``python -m lab.previous [REV]`` prints the built image's record (REV defaults to HEAD~1).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from appliance.image import release
from appliance.image.rootfs import image_packages
from process import run

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "build" / "image"
PREVIOUS = REPO / "build" / "previous"
# Everything reusable: the root tree (and its .done/.log), the base disk. Not the payload or packer stage.
REUSED = ("rootfs-", "disk-")
BUILD_TIMEOUT = 5400.0


class NotUpgradable(RuntimeError):
    """The earlier commit's image cannot take this tree's bundle: it predates in-place upgrades, or its
    package set differs (such a release ships as a new OVA)."""


def git(*argv: str, cwd: Path = REPO, timeout: float = 300) -> str:
    return run(["git", "-C", str(cwd), *argv], timeout=timeout).stdout.strip()


def worktree(rev: str, upgradable: bool = True) -> Path:
    """A clean checkout of ``rev`` (made once; reused while it exists); with ``upgradable``, NotUpgradable
    unless its image could take this tree's bundle."""
    sha = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    tree = PREVIOUS / sha[:12]
    if not (tree / ".git").exists():
        PREVIOUS.mkdir(parents=True, exist_ok=True)
        git("worktree", "prune")
        git("worktree", "add", "--detach", "--force", str(tree), sha)
    if not upgradable:
        return tree
    if not (tree / "appliance" / "upgrade").is_dir():
        raise NotUpgradable(f"{rev} ({sha[:12]}) has no appliance/upgrade: it cannot be upgraded in place")
    check_base(tree, f"{rev} ({sha[:12]})")
    return tree


def check_base(tree: Path, name: str) -> None:
    """NotUpgradable when the checkout's image has another package set than this tree's: its appliances
    refuse this tree's bundle (appliance.upgrade.release.check_fits), so building it proves nothing."""
    theirs = release.base_key(image_packages(tree / "appliance" / "image" / "packages.txt"))
    if theirs != release.base_key():
        raise NotUpgradable(f"{name} has another package set than this tree: its image takes a new OVA")


def seed_cache(out: Path) -> None:
    """Hard-link this tree's reusable cache entries and copy its keys into ``out``."""
    cache = out / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    for entry in sorted((BUILD / "cache").iterdir()):
        target = cache / entry.name
        if not entry.name.startswith(REUSED) or target.exists():
            continue
        if entry.is_dir():
            run(["cp", "-al", str(entry), str(target)], timeout=1800)
        else:
            os.link(entry, target)
    keys = out / "keys"
    keys.mkdir(parents=True, exist_ok=True)
    keys.chmod(0o700)
    for key in (BUILD / "keys").iterdir():
        shutil.copy2(key, keys / key.name)


def web(tree: Path) -> None:
    """The worktree's web assets, built with this tree's installed node_modules."""
    modules = tree / "web" / "node_modules"
    if not modules.exists():
        modules.symlink_to(REPO / "web" / "node_modules")
    run(["npm", "--prefix", str(tree / "web"), "run", "--silent", "build"], timeout=900)


def build(rev: str = "HEAD~1", upgradable: bool = True) -> dict[str, object]:
    """Build ``rev``'s image (cached like `make image`); returns its build record (latest.json).
    ``upgradable=False``: any commit's image, to compare with this tree's (reliability.soak_ab)."""
    tree = worktree(rev, upgradable)
    out = PREVIOUS / "image"
    seed_cache(out)
    web(tree)
    python = str(REPO / ".venv" / "bin" / "python")
    # Run in the worktree: its appliance/ comes first on sys.path (python -m puts the cwd there).
    run(
        ["env", "-C", str(tree), python, "-m", "appliance.image.build", "--out", str(out)],
        timeout=BUILD_TIMEOUT,
    )
    record = json.loads((out / "latest.json").read_text(encoding="utf-8"))
    return dict(record)


def main() -> None:
    rev = sys.argv[1] if len(sys.argv) > 1 else "HEAD~1"
    try:
        record = build(rev)
    except NotUpgradable as err:
        print(err, file=sys.stderr)
        raise SystemExit(2) from None
    print(json.dumps({k: record[k] for k in ("version", "release", "image", "lab_key", "upgrade_bundle")}))


if __name__ == "__main__":
    main()
