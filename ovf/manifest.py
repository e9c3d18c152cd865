"""The OVF manifest (.mf): one `SHA256(name)= hex` line per file of the package.

vSphere checks every file it uploads against these digests, and refuses the OVA on a mismatch, so
an OVA damaged in transfer is caught before it becomes a broken VM.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

from ovf.errors import PackageInvalid

_LINE = re.compile(r"^(SHA1|SHA256|SHA512)\((?P<name>[^)]+)\)= (?P<hex>[0-9a-f]+)$")
CHUNK = 1024 * 1024


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks (disks are large)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def render_manifest(entries: Iterable[tuple[str, str]]) -> str:
    """Manifest text for (file name, hex SHA-256) pairs, in the order given."""
    return "".join(f"SHA256({name})= {digest}\n" for name, digest in entries)


def parse_manifest(text: str) -> dict[str, tuple[str, str]]:
    """{file name: (algorithm, hex digest)}; PackageInvalid on a malformed or duplicate line."""
    entries: dict[str, tuple[str, str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        match = _LINE.match(line.strip())
        if not match:
            raise PackageInvalid(f"manifest line {number} is not 'SHA256(name)= hex': {line!r}")
        name = match["name"]
        if name in entries:
            raise PackageInvalid(f"manifest names {name!r} twice")
        entries[name] = (match.group(1), match["hex"])
    return entries
