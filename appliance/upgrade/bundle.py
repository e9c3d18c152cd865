"""The upgrade bundle: one uncompressed tar of exactly three members, in this order.

- ``manifest.json``: what the bundle is (format, version, release number, the payload's SHA-256 and
  size, the base system it needs); the only part the signature covers;
- ``manifest.sig``: the raw 64-byte Ed25519 signature of ``manifest.json`` as stored;
- ``payload.tar``: the image's payload (``appliance/image/payload.py``) of that version.

Signing the manifest, not the tar, lets the appliance check the signature before it reads the ~100 MB
payload, then hash the payload while it writes it to disk: a tampered payload is refused by its hash,
a tampered manifest by its signature. The public key is in the image (``/etc/arcvsa``), outside every
release, so a bundle cannot bring the key it is checked with.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import IO, Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from appliance.upgrade.errors import Malformed, Tampered, Unsigned

FORMAT: Literal["arcvsa-upgrade/1"] = "arcvsa-upgrade/1"
MEMBERS = ("manifest.json", "manifest.sig", "payload.tar")
MAX_MANIFEST = 64 * 1024
MAX_PAYLOAD = 2 * 1024**3
SIGNATURE_BYTES = 64
CHUNK = 1024 * 1024
# Versions name folders under /opt/arcvsa/releases: no separators, no dots first.
VERSION_PATTERN = r"^[0-9A-Za-z][0-9A-Za-z._+-]{0,63}$"


class Manifest(BaseModel):
    """What a bundle installs; also what each installed release records as its RELEASE.json."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["arcvsa-upgrade/1"] = FORMAT
    version: str = Field(pattern=VERSION_PATTERN, description="the build's version (git describe)")
    release: int = Field(ge=1, description="orders versions: the commit count of the build")
    payload_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    payload_bytes: int = Field(ge=1, le=MAX_PAYLOAD)
    base_key: str = Field(pattern=r"^[0-9a-f]{64}$", description="hash of the image's package set")

    def to_json(self) -> bytes:
        return (json.dumps(self.model_dump(), indent=2, sort_keys=True) + "\n").encode()


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """The build's signing key: 32 raw bytes, base64, as :func:`new_private_key` writes them."""
    return Ed25519PrivateKey.from_private_bytes(base64.b64decode(path.read_text(encoding="ascii")))


def new_private_key(path: Path) -> None:
    """Make the signing key once per build tree (never committed), readable by its owner only."""
    raw = Ed25519PrivateKey.generate().private_bytes_raw()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.write_text(base64.b64encode(raw).decode() + "\n", encoding="ascii")


def public_key_text(key: Ed25519PrivateKey) -> str:
    """The public half as the image stores it: 32 raw bytes, base64, one line."""
    return base64.b64encode(key.public_key().public_bytes_raw()).decode() + "\n"


def load_public_key(text: str) -> Ed25519PublicKey:
    try:
        return Ed25519PublicKey.from_public_bytes(base64.b64decode(text.strip(), validate=True))
    except ValueError as err:
        raise Unsigned(f"the appliance's upgrade key is unreadable: {err}") from None


def write(out: Path, manifest: Manifest, payload: Path, key: Ed25519PrivateKey) -> Path:
    """Sign ``manifest`` and write the bundle to ``out`` (through a .partial file)."""
    text = manifest.to_json()
    partial = out.with_name(out.name + ".partial")
    with tarfile.open(partial, "w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in (("manifest.json", text), ("manifest.sig", key.sign(text))):
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
        info = tarfile.TarInfo("payload.tar")
        info.size, info.mode = payload.stat().st_size, 0o644
        with payload.open("rb") as handle:
            tar.addfile(info, handle)
    partial.replace(out)
    return out


def _member(tar: tarfile.TarFile, name: str, limit: int) -> tarfile.TarInfo:
    info = tar.next()
    if info is None:
        if name == "manifest.sig":
            raise Unsigned("the bundle has no signature")
        raise Malformed(f"the bundle ends before {name}")
    if info.name != name:
        if name == "manifest.sig":
            raise Unsigned(f"the bundle has no signature (found {info.name!r} after the manifest)")
        raise Malformed(f"expected {name} in the bundle, found {info.name!r}")
    if not info.isreg() or info.size > limit:
        raise Malformed(f"{name} is not a regular file of at most {limit} bytes")
    return info


def _read(tar: tarfile.TarFile, info: tarfile.TarInfo) -> bytes:
    handle = tar.extractfile(info)
    assert handle is not None  # a regular member always has data
    return handle.read()


def verify(source: IO[bytes], key: Ed25519PublicKey, folder: Path) -> Manifest:
    """Check ``source`` (a bundle) against ``key``; stage it in ``folder`` as the three files
    ``manifest.json`` (the signed bytes), ``manifest.sig`` and ``payload.tar``.

    Raises Malformed, Unsigned or Tampered; on any refusal nothing is left in ``folder``.
    """
    try:
        with tarfile.open(fileobj=source, mode="r|") as tar:
            text = _read(tar, _member(tar, "manifest.json", MAX_MANIFEST))
            signature = _read(tar, _member(tar, "manifest.sig", SIGNATURE_BYTES))
            try:
                key.verify(signature, text)
            except InvalidSignature:
                raise Unsigned("the signature does not match this appliance's upgrade key") from None
            try:
                manifest = Manifest.model_validate_json(text)
            except ValidationError as err:
                raise Malformed(f"the manifest is invalid: {err.errors()[0]['msg']}") from None
            info = _member(tar, "payload.tar", MAX_PAYLOAD)
            folder.mkdir(parents=True, exist_ok=True)
            _copy_checked(tar, info, manifest, folder / "payload.tar")
            if tar.next() is not None:
                raise Malformed("the bundle has members after payload.tar")
        (folder / "manifest.sig").write_bytes(signature)
        (folder / "manifest.json").write_bytes(text)
    except tarfile.TarError as err:
        unstage(folder)
        raise Malformed(f"not an upgrade bundle, or cut or corrupt: {err}") from None
    except BaseException:
        unstage(folder)
        raise
    return manifest


def unstage(folder: Path) -> None:
    """Remove a staged bundle; the manifest first, so a half-removed one never verifies."""
    for name in ("manifest.json", "manifest.sig", "payload.tar"):
        (folder / name).unlink(missing_ok=True)


def _copy_checked(tar: tarfile.TarFile, info: tarfile.TarInfo, manifest: Manifest, out: Path) -> None:
    """Write the payload while hashing it; refuse it unless size and hash are the manifest's."""
    if info.size != manifest.payload_bytes:
        raise Tampered(f"payload.tar is {info.size} bytes, the signed manifest says {manifest.payload_bytes}")
    handle = tar.extractfile(info)
    assert handle is not None
    digest = hashlib.sha256()
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as sink:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
            sink.write(chunk)
    if digest.hexdigest() != manifest.payload_sha256:
        raise Tampered("payload.tar is not the payload the signed manifest describes")


def verify_staged(folder: Path, key: Ed25519PublicKey) -> Manifest:
    """Check a staged bundle (manifest.json, manifest.sig, payload.tar in ``folder``) again."""
    try:
        text = (folder / "manifest.json").read_bytes()
        signature = (folder / "manifest.sig").read_bytes()
    except FileNotFoundError:
        raise Malformed("no upgrade is staged") from None
    try:
        key.verify(signature, text)
    except InvalidSignature:
        raise Unsigned("the staged manifest's signature does not match the upgrade key") from None
    manifest = Manifest.model_validate_json(text)
    digest = hashlib.sha256()
    with (folder / "payload.tar").open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    if digest.hexdigest() != manifest.payload_sha256:
        raise Tampered("the staged payload is not the one its manifest describes")
    return manifest
