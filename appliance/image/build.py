"""Build the appliance image: ``python -m appliance.image.build`` (``make image``, as root).

Stages, each timed and each cached under ``build/image/cache`` by a hash of its inputs (an unchanged
rebuild on the same machine is skipped; a fresh machine has no cache and builds everything):

1. rootfs — mmdebstrap bootstraps Debian 13 with ``packages.txt``; DKMS builds the ZFS module for the
   image's kernel; ``customize.sh`` finishes the tree (``rootfs.py``).
2. base disk — ``disk.sh`` lays the tree onto a GPT disk that boots under BIOS and UEFI and
   authorizes a build-only SSH key (``build/image/keys/build``) for packer (``disk.py``).
3. payload — the project's wheel, its locked runtime dependencies, the web assets and the systemd
   units in one reproducible tar (``payload.py``).
4. packer — ``packer build -only=qemu.lab`` boots the base disk under qemu, installs the payload, enables
   first boot and the api, writes /etc/arcvsa/build-manifest.json and seals the disk (the build key is
   removed): ``build/image/arcvsa-<version>.qcow2``, the product disk the OVA and the lab use
   (``provision.py``).

The lab logs in with its own key (``build/image/lab/id_ed25519``), handed to first boot through the
ovf-env like any admin's SSH key property; the product disk has no key and no password.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import time
import tomllib
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

from appliance.image import release, sources
from appliance.image.disk import build_disk, disk_key
from appliance.image.errors import BuildError
from appliance.image.payload import make_payload
from appliance.image.provision import provision, template_files
from appliance.image.rootfs import (
    REPO,
    build_rootfs,
    dpkg_versions,
    hash_files,
    image_packages,
    release_mounts,
    rootfs_key,
)
from process import ProcessError, run

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
    "grub-efi-amd64-bin",
    "openssh-server",
)


@dataclass
class StageTime:
    """Wall time of one stage; ``cached`` when its output came from the cache."""

    name: str
    seconds: float
    cached: bool


@dataclass
class Manifest:
    """What a build made, from what, and how long it took (written next to the disk)."""

    version: str
    rootfs_key: str
    disk_key: str
    payload_sha256: str
    image_key: str
    root_uuid: str
    image: str
    image_bytes: int
    build_manifest: str
    upgrade_bundle: str
    release: int
    lab_key: str
    disk_size_mib: int
    kernel: str
    zfs_module: str
    packages: dict[str, str]
    stages: list[StageTime] = field(default_factory=list)
    mmdebstrap_phases: dict[str, float] = field(default_factory=dict)
    total_seconds: float = 0.0


def image_version() -> str:
    """``git describe --always --dirty`` of the checkout; pyproject's version outside a git checkout."""
    try:
        return run(["git", "-C", str(REPO), "describe", "--always", "--dirty"], timeout=30).stdout.strip()
    except (ProcessError, OSError):
        project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        return str(project["version"])


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
    current = {f"arcvsa-{version}.{suffix}" for suffix in ("qcow2", "json", "build-manifest.json", "upgrade")}
    for pattern in ("arcvsa-*.qcow2", "arcvsa-*.json", "arcvsa-*.upgrade"):
        for path in out.glob(pattern):
            if path.name not in current:
                path.unlink()


def copy_out(src: Path, dst: Path) -> None:
    """Publish a cached disk under its version's name: a hard link (nothing writes either file: the lab
    boots overlays on it, the OVA reads it), so the ~1 GB disk is on disk once; a copy across devices."""
    tmp = dst.with_name(dst.name + ".partial")
    tmp.unlink(missing_ok=True)
    if dst.exists() and dst.samefile(src):
        return  # published already; renaming a second link to it over it would do nothing, leaving tmp
    try:
        os.link(src, tmp)
    except OSError:
        run(["cp", "--sparse=always", "--reflink=auto", str(src), str(tmp)], timeout=600)
    tmp.replace(dst)


def keypair(path: Path, comment: str) -> Path:
    """An ed25519 key made once per build tree (never committed); returns the public half."""
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.parent.chmod(0o700)
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)], timeout=60)
    return path.with_suffix(".pub")


def image_key(base_key: str, payload_sha256: str, version: str, release: str) -> str:
    """Hash of the base disk, the payload, the packer template and scripts, the stamped version and the
    release file (the first release's record and the upgrade key)."""
    digest = hashlib.sha256(f"base={base_key}\npayload={payload_sha256}\nversion={version}\n".encode())
    digest.update(release.encode())
    hash_files(digest, template_files())
    return digest.hexdigest()


def build(out: Path, version: str, size_mib: int) -> Manifest:
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
    rkey = rootfs_key(image_packages(), source_line)
    root_uuid = str(uuid.UUID(rkey[:32]))
    tree, cached = build_rootfs(cache, logs, rkey, root_uuid, source_line)
    stages.append(StageTime("rootfs (mmdebstrap + zfs dkms + customize)", time.monotonic() - t0, cached))
    phases = json.loads(tree.with_suffix(".done").read_text(encoding="utf-8"))
    kver = sorted(p.name for p in (tree / "lib/modules").iterdir())[0]
    zfs_module = run(["chroot", str(tree), "modinfo", "-k", kver, "-F", "version", "zfs"], timeout=60).stdout
    versions = dpkg_versions(tree, VERSIONED_PACKAGES)
    if versions.get(f"linux-image-{kver}") != versions.get(f"linux-headers-{kver}"):
        raise BuildError(f"kernel and headers differ for {kver}: {versions}")

    t0 = time.monotonic()
    build_key = out / "keys" / "build"
    dkey = disk_key(rkey, size_mib, keypair(build_key, "arcvsa-build-only"))
    base, cached = build_disk(tree, cache, logs, dkey, size_mib, root_uuid, build_key.with_suffix(".pub"))
    stages.append(
        StageTime("base disk (mkfs -d, mkfs.vfat, sfdisk, grub, build key)", time.monotonic() - t0, cached)
    )

    t0 = time.monotonic()
    payload, payload_sha = make_payload(out / "payload", cache / "payload.tar")
    stages.append(StageTime("payload (wheel, locked deps, web, units)", time.monotonic() - t0, False))

    t0 = time.monotonic()
    first = release.manifest(version, payload, payload_sha)
    upgrade_key = release.signing_key(out / "keys")
    release_json = out / "payload" / "release.json"
    ikey = image_key(dkey, payload_sha, version, release.release_file(release_json, first, upgrade_key))
    provisioned = cache / f"image-{ikey[:16]}.qcow2"
    recorded = provisioned.with_suffix(".json")
    cached = provisioned.is_file() and recorded.is_file()
    if not cached:
        log = logs / "packer.log"
        log.unlink(missing_ok=True)
        data = provision(base, build_key, payload, release_json, version, out / "packer", provisioned, log)
        recorded.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    stages.append(StageTime("packer (qemu: payload, units, manifest, seal)", time.monotonic() - t0, cached))

    image = out / f"arcvsa-{version}.qcow2"
    copy_out(provisioned, image)
    upgrade = release.write_bundle(out / f"arcvsa-{version}.upgrade", first, payload, upgrade_key)
    build_manifest = out / f"arcvsa-{version}.build-manifest.json"
    shutil.copyfile(recorded, build_manifest)
    lab_key = keypair(out / "lab" / "id_ed25519", "arcvsa-lab-only").with_suffix("")
    prune(cache, {tree.name, base.name.split(".", 1)[0], provisioned.name.split(".", 1)[0], "payload"})
    prune_published(out, version)

    for stage in stages:
        stage.seconds = round(stage.seconds, 1)
    manifest = Manifest(
        version=version,
        rootfs_key=rkey,
        disk_key=dkey,
        payload_sha256=payload_sha,
        image_key=ikey,
        root_uuid=root_uuid,
        image=str(image),
        image_bytes=image.stat().st_size,
        build_manifest=str(build_manifest),
        upgrade_bundle=str(upgrade),
        release=first.release,
        lab_key=str(lab_key),
        disk_size_mib=size_mib,
        kernel=kver,
        zfs_module=zfs_module.strip(),
        packages=versions,
        stages=stages,
        mmdebstrap_phases=phases,
        total_seconds=round(time.monotonic() - started, 1),
    )
    text = json.dumps(asdict(manifest), indent=2) + "\n"
    (out / f"arcvsa-{version}.json").write_text(text, encoding="utf-8")
    (out / "latest.json").write_text(text, encoding="utf-8")
    return manifest


def main() -> None:
    """Command line: build the image and print the manifest."""
    parser = argparse.ArgumentParser(description="Build the arcvsa appliance image (qcow2).")
    parser.add_argument("--out", type=Path, default=REPO / "build" / "image")
    parser.add_argument("--version", default=None, help="default: git describe --always --dirty")
    parser.add_argument("--disk-size-mib", type=int, default=8192)
    args = parser.parse_args()
    try:
        manifest = build(args.out.resolve(), args.version or image_version(), args.disk_size_mib)
    except (BuildError, ProcessError) as err:
        print(f"image build failed: {err}", file=sys.stderr)
        raise SystemExit(1) from None
    print(json.dumps(asdict(manifest), indent=2))


if __name__ == "__main__":
    main()
