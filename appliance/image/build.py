"""Build the appliance's base disk: ``python -m appliance.image.build``.

Stages, each timed and each cached under ``build/image/cache`` by a hash of its inputs (an unchanged
rebuild on the same machine is skipped; a fresh machine has no cache and builds everything):

1. rootfs — mmdebstrap bootstraps Debian 13 with the packages of ``packages.txt``; the ZFS module is
   built by DKMS for the image's kernel while the packages install; ``customize.sh`` finishes the tree.
2. disk — ``disk.sh`` lays the tree onto a partitioned BIOS-bootable raw disk; ``qemu-img`` makes the
   qcow2 ``build/image/arcvsa-<version>.qcow2`` (no password, no key: the product base disk).
3. lab disk — the same tree with a lab-only SSH key for root (``build/image/lab/id_ed25519``, made on
   first use, never committed): ``arcvsa-<version>-lab.qcow2``, for the lab and nothing else.

Must run as root (mmdebstrap's root mode, chroot, file ownership in the tree).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import tomllib
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

from appliance.image import sources

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
# Bump when the way the stages are run changes in a way the hashed files do not show.
RECIPE = 1
MMDEBSTRAP_TIMEOUT = 3600.0
DISK_TIMEOUT = 1200.0
VERSIONED_PACKAGES = (
    "linux-image-amd64",
    "linux-headers-amd64",
    "zfs-dkms",
    "zfsutils-linux",
    "nfs-ganesha",
    "nfs-ganesha-vfs",
    "nfs-kernel-server",
    "targetcli-fb",
    "open-vm-tools",
    "fio",
    "chrony",
    "python3",
    "systemd",
    "grub-pc-bin",
    "openssh-server",
)


class BuildError(RuntimeError):
    """A build step failed; the message names the command and where its log is."""


@dataclass
class StageTime:
    """Wall time of one stage; ``cached`` when its output came from the cache."""

    name: str
    seconds: float
    cached: bool


@dataclass
class Manifest:
    """What a build made, from what, and how long it took (written next to the disks)."""

    version: str
    rootfs_key: str
    disk_key: str
    root_uuid: str
    image: str
    lab_image: str | None
    lab_key: str | None
    disk_size_mib: int
    image_bytes: int
    lab_image_bytes: int | None
    kernel: str
    zfs_module: str
    packages: dict[str, str]
    stages: list[StageTime] = field(default_factory=list)
    mmdebstrap_phases: dict[str, float] = field(default_factory=dict)
    total_seconds: float = 0.0


def run(
    argv: list[str], *, timeout: float, log: Path, env: dict[str, str] | None = None
) -> list[tuple[float, str]]:
    """Run argv with its output appended to ``log`` (each line stamped); kill its group on timeout.

    Returns the (seconds since start, line) pairs, so callers can time phases inside a long command.
    """
    started = time.monotonic()
    lines: list[tuple[float, str]] = []
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a", encoding="utf-8") as sink:
        sink.write(f"$ {argv}\n")
        sink.flush()
        proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
        assert proc.stdout is not None
        stdout = proc.stdout

        def pump() -> None:
            for raw in stdout:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                at = time.monotonic() - started
                lines.append((at, line))
                sink.write(f"[{at:8.1f}] {line}\n")
                sink.flush()

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise BuildError(f"{argv[0]} timed out after {timeout:.0f} s; see {log}") from None
        reader.join(timeout=10)
    if code != 0:
        tail = "\n".join(line for _, line in lines[-15:])
        raise BuildError(f"{argv} exited {code}; see {log}\n{tail}")
    return lines


def capture(argv: list[str], *, timeout: float) -> str:
    """Run a short command and return its stdout; raise BuildError with its stderr on failure."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise BuildError(f"{argv} timed out after {timeout:.0f} s") from None
    if done.returncode != 0:
        raise BuildError(f"{argv} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def image_packages(path: Path = HERE / "packages.txt") -> list[str]:
    """The image's package list, comments and blank lines dropped."""
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        name = line.split("#", 1)[0].strip()
        if name:
            names.append(name)
    return names


def image_version() -> str:
    """``git describe --always --dirty`` of the checkout; pyproject's version outside a git checkout."""
    try:
        return capture(["git", "-C", str(REPO), "describe", "--always", "--dirty"], timeout=30).strip()
    except (BuildError, OSError):
        project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        return str(project["version"])


def hash_files(digest: hashlib._Hash, paths: list[Path]) -> None:
    """Feed each file's repo-relative path, mode and content into the digest."""
    for path in sorted(paths):
        digest.update(str(path.relative_to(REPO)).encode())
        digest.update(oct(path.stat().st_mode & 0o777).encode())
        digest.update(path.read_bytes())


def mmdebstrap_argv(packages: list[str], source_line: str, target: Path) -> list[str]:
    """The bootstrap command; everything but ``target`` is part of the rootfs cache key."""
    return [
        "mmdebstrap",
        "--verbose",
        "--mode=root",
        "--format=directory",
        "--variant=minbase",
        "--components=main,contrib",
        f"--include={','.join(packages)}",
        f"--customize-hook={HERE / 'customize.sh'}",
        sources.TARGET_SUITE,
        str(target),
        source_line,
    ]


def rootfs_key(packages: list[str], source_line: str) -> str:
    """Hash of everything the root tree is made from."""
    digest = hashlib.sha256(f"recipe={RECIPE}\n".encode())
    digest.update(json.dumps(mmdebstrap_argv(packages, source_line, Path("TARGET"))[1:]).encode())
    overlay = [p for p in (HERE / "overlay").rglob("*") if p.is_file()]
    hash_files(digest, [HERE / "packages.txt", HERE / "customize.sh", *overlay])
    return digest.hexdigest()


def disk_key(rootfs: str, size_mib: int, authorized_keys: Path | None) -> str:
    """Hash of the root tree's key, the disk layout script, the size and the lab key (if any)."""
    digest = hashlib.sha256(f"rootfs={rootfs}\nsize={size_mib}\n".encode())
    hash_files(digest, [HERE / "disk.sh"])
    if authorized_keys is not None:
        digest.update(authorized_keys.read_bytes())
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
    env = dict(os.environ, ARCVSA_ROOT_UUID=root_uuid, LC_ALL="C.UTF-8")
    log = logs / "rootfs.log"
    log.unlink(missing_ok=True)
    lines = run(
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
            with contextlib.suppress(BuildError):
                capture(["umount", point], timeout=30)
        time.sleep(1)
    # A lazy unmount detaches the mount now; readers keep their open files.
    with log.open("a", encoding="utf-8") as sink:
        sink.write(f"still mounted after retries, detaching lazily: {mounts_under(tree)}\n")
    for point in mounts_under(tree):
        with contextlib.suppress(BuildError):
            capture(["umount", "--lazy", point], timeout=30)
    if mounts_under(tree):
        raise BuildError(f"cannot unmount {mounts_under(tree)}")


def build_disk(
    tree: Path, cache: Path, logs: Path, key: str, size_mib: int, root_uuid: str, keys: Path | None
) -> tuple[Path, bool]:
    """The cached qcow2 for ``key``, laying the tree onto a disk if missing; returns (qcow2, was_cached)."""
    qcow2 = cache / f"disk-{key[:16]}.qcow2"
    if qcow2.is_file():
        return qcow2, True
    raw = cache / f"disk-{key[:16]}.raw"
    partial = qcow2.with_suffix(".qcow2.partial")
    log = logs / f"disk-{key[:16]}.log"
    log.unlink(missing_ok=True)
    argv = [str(HERE / "disk.sh"), str(tree), str(raw), str(size_mib), root_uuid]
    if keys is not None:
        argv.append(str(keys))
    try:
        run(argv, timeout=DISK_TIMEOUT, log=log)
        run(["qemu-img", "convert", "-O", "qcow2", str(raw), str(partial)], timeout=DISK_TIMEOUT, log=log)
    finally:
        raw.unlink(missing_ok=True)
    partial.rename(qcow2)
    return qcow2, False


def lab_keypair(out: Path) -> Path:
    """The lab-only SSH key (made once per build tree); returns the public half."""
    private = out / "lab" / "id_ed25519"
    if not private.is_file():
        private.parent.mkdir(parents=True, exist_ok=True)
        private.parent.chmod(0o700)
        capture(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "arcvsa-lab-only", "-f", str(private)],
            timeout=60,
        )
    return private.with_suffix(".pub")


def prune(cache: Path, keep: set[str]) -> None:
    """Remove cache entries of other keys (a root tree is ~2 GB)."""
    for entry in cache.iterdir():
        stem = entry.name.split(".", 1)[0]
        if stem not in keep:
            if entry.is_dir():
                # Never recurse into a leftover /proc or /dev bind mount of a chroot.
                release_mounts(entry, entry.with_suffix(".log"))
                shutil.rmtree(entry)
            else:
                entry.unlink()


def prune_published(out: Path, version: str) -> None:
    """Remove the disks and manifests published under other versions (each disk is ~1 GB)."""
    current = {f"arcvsa-{version}.qcow2", f"arcvsa-{version}-lab.qcow2", f"arcvsa-{version}.json"}
    for pattern in ("arcvsa-*.qcow2", "arcvsa-*.json"):
        for path in out.glob(pattern):
            if path.name not in current:
                path.unlink()


def copy_out(src: Path, dst: Path) -> None:
    """Copy a cached disk to its published name (a copy: the lab or packer may write to it)."""
    tmp = dst.with_name(dst.name + ".partial")
    capture(["cp", "--sparse=always", "--reflink=auto", str(src), str(tmp)], timeout=600)
    tmp.rename(dst)


def build(out: Path, version: str, size_mib: int, lab: bool) -> Manifest:
    """Run all stages; returns the manifest (also written to ``out/arcvsa-<version>.json``)."""
    if os.geteuid() != 0:
        raise BuildError("the image build needs root (mmdebstrap --mode=root, chroot)")
    started = time.monotonic()
    stages: list[StageTime] = []
    cache, logs = out / "cache", out / "logs"
    cache.mkdir(parents=True, exist_ok=True)

    t0 = time.monotonic()
    source_line = sources.mmdebstrap_source(
        sources.debian_mirror(sources.read_sources(), sources.host_codename())
    )
    packages = image_packages()
    rkey = rootfs_key(packages, source_line)
    root_uuid = str(uuid.UUID(rkey[:32]))
    tree, cached = build_rootfs(cache, logs, rkey, root_uuid, source_line)
    stages.append(StageTime("rootfs (mmdebstrap + zfs dkms + customize)", time.monotonic() - t0, cached))
    phases = json.loads(tree.with_suffix(".done").read_text(encoding="utf-8"))

    kernels = sorted(p.name for p in (tree / "lib/modules").iterdir())
    kver = kernels[0]
    zfs_module = capture(["chroot", str(tree), "modinfo", "-k", kver, "-F", "version", "zfs"], timeout=60)
    versions = dpkg_versions(tree, VERSIONED_PACKAGES)
    if versions.get(f"linux-image-{kver}") != versions.get(f"linux-headers-{kver}"):
        raise BuildError(f"kernel and headers differ for {kver}: {versions}")

    t0 = time.monotonic()
    dkey = disk_key(rkey, size_mib, None)
    disk, cached = build_disk(tree, cache, logs, dkey, size_mib, root_uuid, None)
    image = out / f"arcvsa-{version}.qcow2"
    copy_out(disk, image)
    stages.append(StageTime("disk (mkfs -d, sfdisk, grub, qcow2)", time.monotonic() - t0, cached))

    lab_image: Path | None = None
    pub: Path | None = None
    keep = {tree.name, disk.name.split(".", 1)[0]}
    if lab:
        t0 = time.monotonic()
        pub = lab_keypair(out)
        lkey = disk_key(rkey, size_mib, pub)
        lab_disk, cached = build_disk(tree, cache, logs, lkey, size_mib, root_uuid, pub)
        lab_image = out / f"arcvsa-{version}-lab.qcow2"
        copy_out(lab_disk, lab_image)
        keep.add(lab_disk.name.split(".", 1)[0])
        stages.append(StageTime("lab disk (same tree + lab SSH key)", time.monotonic() - t0, cached))
    prune(cache, keep)
    prune_published(out, version)

    manifest = Manifest(
        version=version,
        rootfs_key=rkey,
        disk_key=dkey,
        root_uuid=root_uuid,
        image=str(image),
        lab_image=str(lab_image) if lab_image else None,
        lab_key=str(pub.with_suffix("")) if pub else None,
        disk_size_mib=size_mib,
        image_bytes=image.stat().st_size,
        lab_image_bytes=lab_image.stat().st_size if lab_image else None,
        kernel=kver,
        zfs_module=zfs_module.strip(),
        packages=versions,
        stages=stages,
        mmdebstrap_phases=phases,
        total_seconds=round(time.monotonic() - started, 1),
    )
    for stage in stages:
        stage.seconds = round(stage.seconds, 1)
    text = json.dumps(asdict(manifest), indent=2) + "\n"
    (out / f"arcvsa-{version}.json").write_text(text, encoding="utf-8")
    (out / "latest.json").write_text(text, encoding="utf-8")
    return manifest


def main() -> None:
    """Command line: build the disks and print the manifest."""
    parser = argparse.ArgumentParser(description="Build the arcvsa base disk (qcow2).")
    parser.add_argument("--out", type=Path, default=REPO / "build" / "image")
    parser.add_argument("--version", default=None, help="default: git describe --always --dirty")
    parser.add_argument("--disk-size-mib", type=int, default=8192)
    parser.add_argument("--no-lab", action="store_true", help="skip the lab disk (with the lab SSH key)")
    args = parser.parse_args()
    try:
        manifest = build(
            args.out.resolve(), args.version or image_version(), args.disk_size_mib, not args.no_lab
        )
    except BuildError as err:
        print(f"image build failed: {err}", file=sys.stderr)
        raise SystemExit(1) from None
    print(json.dumps(asdict(manifest), indent=2))


if __name__ == "__main__":
    main()
