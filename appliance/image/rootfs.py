"""Stage 1 of the image build: the root tree, bootstrapped by mmdebstrap (packages, ZFS DKMS, customize).

The tree is cached under ``cache/rootfs-<key>/`` by the hash of everything it is made from.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shutil
import time
from pathlib import Path

from appliance.image import sources
from appliance.image.errors import BuildError
from process import ProcessError, run, stream

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
# Bump when the way the stages are run changes in a way the hashed files do not show.
RECIPE = 1
MMDEBSTRAP_TIMEOUT = 3600.0


def image_packages(path: Path = HERE / "packages.txt") -> list[str]:
    """The image's package list, comments and blank lines dropped."""
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        name = line.split("#", 1)[0].strip()
        if name:
            names.append(name)
    return names


def hash_files(digest: hashlib._Hash, paths: list[Path]) -> None:
    """Feed each file's repo-relative path, mode and content into the digest."""
    for path in sorted(paths):
        digest.update(str(path.relative_to(REPO)).encode())
        digest.update(oct(path.stat().st_mode & 0o777).encode())
        digest.update(path.read_bytes())


def mmdebstrap_argv(
    packages: list[str], source_line: str, target: Path, hook: Path = HERE / "customize.sh"
) -> list[str]:
    """The bootstrap command; everything but ``target`` and where ``hook`` is is part of the rootfs cache key."""
    return [
        "mmdebstrap",
        "--verbose",
        "--mode=root",
        "--format=directory",
        "--variant=minbase",
        "--components=main,contrib",
        f"--include={','.join(packages)}",
        f"--customize-hook={hook}",
        sources.TARGET_SUITE,
        str(target),
        source_line,
    ]


def rootfs_key(packages: list[str], source_line: str) -> str:
    """Hash of everything the root tree is made from."""
    digest = hashlib.sha256(f"recipe={RECIPE}\n".encode())
    # Placeholders for the paths that name the checkout, not the recipe (the hook's content is hashed
    # below): another clone of the same tree then reuses the tree instead of building ZFS's DKMS again.
    argv = mmdebstrap_argv(packages, source_line, Path("TARGET"), Path("HOOK"))
    digest.update(json.dumps(argv[1:]).encode())
    overlay = [p for p in (HERE / "overlay").rglob("*") if p.is_file()]
    hash_files(digest, [HERE / "packages.txt", HERE / "customize.sh", HERE / "grub-probe.sh", *overlay])
    return digest.hexdigest()


def mmdebstrap_phases(lines: list[tuple[float, str]]) -> dict[str, float]:
    """Seconds spent in mmdebstrap's phases, ZFS DKMS and the customize hook, read from its output."""
    marks: dict[str, float] = {}
    dkms: list[float] = []
    for at, line in lines:
        if line.startswith("I: ") and line.endswith("...") and line[3:-3] not in marks:
            marks[line[3:-3]] = at
        # dkms 3: "Building initial module zfs/…" … "Installing /lib/modules/…/zfs.ko…"
        if re.search(
            r"Building (initial )?module|Installing /lib/modules/|Running the p(re|ost)_build", line
        ):
            dkms.append(at)
        if line.startswith("arcvsa-image: customize start"):
            marks["customize hook"] = at
    end = lines[-1][0] if lines else 0.0
    ordered = sorted(marks.items(), key=lambda item: item[1])
    phases = {
        name: round((ordered[i + 1][1] if i + 1 < len(ordered) else end) - at, 1)
        for i, (name, at) in enumerate(ordered)
    }
    if len(dkms) >= 2:
        phases["zfs dkms build (inside installing remaining packages)"] = round(dkms[-1] - dkms[0], 1)
    return phases


def dpkg_versions(rootfs: Path, names: tuple[str, ...]) -> dict[str, str]:
    """Installed versions read straight from the tree's dpkg status file."""
    wanted = set(names)
    found: dict[str, str] = {}
    kernel_packages: dict[str, str] = {}
    for stanza in (rootfs / "var/lib/dpkg/status").read_text(encoding="utf-8").split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in stanza.splitlines() if ": " in line and not line.startswith(" ")
        )
        name, status = fields.get("Package", ""), fields.get("Status", "")
        if not status.endswith(" installed"):
            continue
        if name in wanted:
            found[name] = fields.get("Version", "")
        if re.match(r"linux-(image|headers)-\d", name):
            kernel_packages[name] = fields.get("Version", "")
    found.update(kernel_packages)
    return found


def build_rootfs(cache: Path, logs: Path, key: str, root_uuid: str, source_line: str) -> tuple[Path, bool]:
    """The cached root tree for ``key``, bootstrapping it if missing; returns (tree, was_cached)."""
    tree = cache / f"rootfs-{key[:16]}"
    done = tree.with_suffix(".done")
    if done.is_file() and tree.is_dir():
        release_mounts(tree, logs / "rootfs.log")
        return tree, True
    if tree.exists():
        release_mounts(tree, logs / "rootfs.log")
        shutil.rmtree(tree)
    done.unlink(missing_ok=True)
    env = {"ARCVSA_ROOT_UUID": root_uuid, "LC_ALL": "C.UTF-8"}  # added to this process's
    log = logs / "rootfs.log"
    log.unlink(missing_ok=True)
    lines = stream(
        mmdebstrap_argv(image_packages(), source_line, tree), timeout=MMDEBSTRAP_TIMEOUT, log=log, env=env
    )
    release_mounts(tree, log)
    done.write_text(json.dumps(mmdebstrap_phases(lines), indent=2) + "\n", encoding="utf-8")
    return tree, False


def mounts_under(tree: Path) -> list[str]:
    """Mount points inside ``tree``, deepest first (from /proc/self/mountinfo)."""
    prefix = str(tree) + "/"
    points = []
    for line in Path("/proc/self/mountinfo").read_text(encoding="utf-8").splitlines():
        point = line.split()[4].replace("\\040", " ")
        if point.startswith(prefix):
            points.append(point)
    return sorted(points, key=len, reverse=True)


def release_mounts(tree: Path, log: Path) -> None:
    """Unmount what a chroot left mounted in the tree; raise BuildError if something stays.

    mmdebstrap only warns ("W: umount /proc failed") when the chroot's /proc is busy, e.g. while
    any process on the machine (a recursive grep of the checkout) reads it; mkfs.ext4 -d would then
    copy /proc into the image, and rm -r would walk into it.
    """
    for _ in range(10):
        points = mounts_under(tree)
        if not points:
            return
        for point in points:
            with contextlib.suppress(ProcessError):
                run(["umount", point], timeout=30)
        time.sleep(1)
    # A lazy unmount detaches the mount now; readers keep their open files.
    with log.open("a", encoding="utf-8") as sink:
        sink.write(f"still mounted after retries, detaching lazily: {mounts_under(tree)}\n")
    for point in mounts_under(tree):
        with contextlib.suppress(ProcessError):
            run(["umount", "--lazy", point], timeout=30)
    if mounts_under(tree):
        raise BuildError(f"cannot unmount {mounts_under(tree)}")
