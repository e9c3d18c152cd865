"""The build's release: what the image's first release records, and the signed upgrade bundle of it.

Both come from the payload this build made, so the bundle of a version is byte for byte the code its
OVA runs. The signing key is made once per build tree under ``keys/upgrade`` (never committed); its
public half goes into the image, outside every release (see appliance/upgrade/bundle.py).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from appliance.image.rootfs import REPO, image_packages
from appliance.upgrade import bundle
from appliance.upgrade.bundle import Manifest
from process import ProcessError, run


def release_number() -> int:
    """Orders versions: the commit count of the checkout (1 outside git)."""
    try:
        return int(run(["git", "-C", str(REPO), "rev-list", "--count", "HEAD"], timeout=30).stdout.strip())
    except (ProcessError, OSError, ValueError):
        return 1


def base_key(packages: list[str] | None = None) -> str:
    """Hash of the image's package set: a bundle installs only onto an image with the same set."""
    names = sorted(packages if packages is not None else image_packages())
    return hashlib.sha256("\n".join(names).encode()).hexdigest()


def manifest(version: str, payload: Path, payload_sha256: str) -> Manifest:
    return Manifest(
        version=version,
        release=release_number(),
        payload_sha256=payload_sha256,
        payload_bytes=payload.stat().st_size,
        base_key=base_key(),
    )


def signing_key(keys: Path) -> Path:
    path = keys / "upgrade"
    if not path.is_file():
        bundle.new_private_key(path)
    return path


def release_file(out: Path, release: Manifest, key: Path) -> str:
    """The file packer uploads: the first release's RELEASE.json and the public key. Returns its text."""
    public = bundle.public_key_text(bundle.load_private_key(key))
    text = json.dumps({"release": release.model_dump(), "upgrade_key": public}, indent=2, sort_keys=True)
    out.write_text(text + "\n", encoding="utf-8")
    return text


def write_bundle(out: Path, release: Manifest, payload: Path, key: Path) -> Path:
    """``arcvsa-<version>.upgrade`` from the payload the image was made of."""
    return bundle.write(out, release, payload, bundle.load_private_key(key))
