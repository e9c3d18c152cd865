"""The build manifest: which sources and which key component versions an image was built from.

It is written into the image by the packer provisioning (/etc/arcvsa/build-manifest.json) and
into the OVA next to the disk, so a support case can tell from either what exactly is running.
The versions are inputs (read in the guest at build time), never guessed here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1
FILE_NAME = "build-manifest.json"


class BuildManifest(BaseModel):
    """Versions of what went into one build."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = Field(default=SCHEMA_VERSION, description="Version of this JSON layout")
    product: str = Field(default="arcvsa", description="Product name")
    version: str = Field(min_length=1, description="Release version (file names, ProductSection)")
    git_version: str = Field(min_length=1, description="`git describe` of the tree the image was built from")
    kernel: str = Field(min_length=1, description="Kernel release of the image, e.g. 6.12.41+deb13-amd64")
    openzfs: str = Field(min_length=1, description="OpenZFS version the module was built from")
    nfs_ganesha: str = Field(min_length=1, description="nfs-ganesha package version")
    source_date_epoch: int | None = Field(
        default=None, description="SOURCE_DATE_EPOCH of the build, when set (reproducible timestamps)"
    )

    def to_json(self) -> bytes:
        """Stable, indented JSON with a trailing newline."""
        return (self.model_dump_json(indent=2) + "\n").encode()


def read_build_manifest(path: Path) -> dict[str, Any]:
    """Build-manifest fields from either record a build leaves next to the disk.

    Two shapes are read: our own manifest (what packer downloads from /etc/arcvsa), and the image
    build's record build/image/arcvsa-<version>.json (kernel, zfs_module, packages{...}).
    Missing fields are simply absent; the caller adds or overrides them and BuildManifest checks.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object")
    if "schema_version" in data:
        return BuildManifest.model_validate(data).model_dump()
    fields: dict[str, Any] = {}
    raw_packages = data.get("packages")
    packages: dict[str, Any] = raw_packages if isinstance(raw_packages, dict) else {}
    for key, value in (
        ("version", data.get("version")),
        ("git_version", data.get("version")),
        ("kernel", data.get("kernel")),
        ("openzfs", data.get("zfs_module")),
        ("nfs_ganesha", packages.get("nfs-ganesha")),
    ):
        if isinstance(value, str) and value:
            fields[key] = value
    return fields
