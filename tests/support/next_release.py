"""The next release of this tree's image as an upgrade bundle, for the lab tests that upgrade an appliance:
the image's own payload (plus files a test adds), under another version, signed like the build's."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from appliance.upgrade import bundle

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build" / "image"


def next_bundle(
    out: Path, version: str, release: int, extra: dict[str, bytes], key: Ed25519PrivateKey
) -> Path:
    """The image's payload plus ``extra`` files, as release ``version``, signed with ``key``."""
    record = json.loads((BUILD / "latest.json").read_text(encoding="utf-8"))
    source = BUILD / "cache" / "payload.tar"
    payload = out.with_suffix(".payload.tar")
    with tarfile.open(source) as tin, tarfile.open(payload, "w", format=tarfile.PAX_FORMAT) as tout:
        for info in tin:
            tout.addfile(info, tin.extractfile(info) if info.isreg() else None)
        for name, data in extra.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tout.addfile(info, io.BytesIO(data))
    data = payload.read_bytes()
    base = json.loads((BUILD / "payload" / "release.json").read_text(encoding="utf-8"))["release"]["base_key"]
    manifest = bundle.Manifest(
        version=version,
        release=release,
        payload_sha256=hashlib.sha256(data).hexdigest(),
        payload_bytes=len(data),
        base_key=base,
    )
    assert record["release"] >= 1
    return bundle.write(out, manifest, payload, key)
