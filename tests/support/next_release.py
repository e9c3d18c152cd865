"""The next release of this tree's image as an upgrade bundle, for the lab tests that upgrade an appliance:
the image's own payload (plus files a test adds), under another version, signed like the build's."""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from appliance.upgrade import bundle

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build" / "image"
MIGRATIONS = REPO / "api" / "migrations" / "versions"


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


def head_revision() -> str:
    """The newest migration of this tree (the one the image runs)."""
    revisions = {}
    for path in MIGRATIONS.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        rev = re.search(r'^revision = "([^"]+)"', text, re.M)
        down = re.search(r'^down_revision = "([^"]+)"', text, re.M)
        if rev:
            revisions[rev.group(1)] = down.group(1) if down else None
    heads = set(revisions) - set(revisions.values())
    assert len(heads) == 1, heads
    return heads.pop()


def migration(revision: str, body: str) -> bytes:
    return (
        f'"""Lab upgrade test: {revision}."""\n\nimport sqlalchemy as sa\nfrom alembic import op\n\n'
        f'revision = "{revision}"\ndown_revision = "{head_revision()}"\nbranch_labels = None\n'
        f"depends_on = None\n\n\ndef upgrade() -> None:\n    {body}\n\n\ndef downgrade() -> None:\n    pass\n"
    ).encode()
