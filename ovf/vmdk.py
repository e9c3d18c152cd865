"""Turn the built disk image into the streamOptimized VMDK that an OVA carries.

streamOptimized is the only VMDK subformat vSphere accepts inside an OVF package: it is
compressed, and written front to back so it can be uploaded through an HttpNfcLease as a stream.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ovf.errors import ImageInvalid
from process import run

QEMU_IMG = "qemu-img"
INFO_TIMEOUT = 60.0


class ImageInfo(BaseModel):
    """The parts of `qemu-img info --output=json` we use."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    format: str = Field(description="Image format (qcow2, raw, vmdk)")
    virtual_size: int = Field(alias="virtual-size", description="Size the guest sees, bytes")
    actual_size: int | None = Field(default=None, alias="actual-size", description="Bytes on the host")
    format_specific: dict[str, object] | None = Field(
        default=None, alias="format-specific", description="Per-format details (vmdk create-type)"
    )

    def vmdk_create_type(self) -> str | None:
        """The VMDK createType (streamOptimized for ours); None for other formats."""
        data = (self.format_specific or {}).get("data")
        if isinstance(data, dict):
            value = data.get("create-type")
            return value if isinstance(value, str) else None
        return None


def image_info(path: Path, *, timeout: float = INFO_TIMEOUT) -> ImageInfo:
    """qemu-img's machine-readable description of an image."""
    done = run([QEMU_IMG, "info", "--output=json", str(path)], timeout=timeout)
    try:
        return ImageInfo.model_validate(json.loads(done.stdout))
    except ValueError as exc:
        raise ImageInvalid(f"unparseable {QEMU_IMG} info output for {path}: {exc}") from exc


def convert_to_stream_vmdk(source: Path, target: Path, *, timeout: float) -> ImageInfo:
    """Convert any qemu-readable image to a streamOptimized VMDK; returns the result's info.

    The input format is probed from the file. qemu-img writes the extent's file name into the
    VMDK header, so it converts under the final name in a scratch folder beside `target`, which is
    replaced only when the result checks out.
    """
    scratch = Path(tempfile.mkdtemp(prefix=".vmdk-", dir=target.parent))
    partial = scratch / target.name
    try:
        run(
            [
                QEMU_IMG,
                "convert",
                "-O",
                "vmdk",
                "-o",
                # lsilogic in the VMDK header: ESXi reads the SCSI type from the OVF (pvscsi), but a
                # header saying ide (qemu's default) confuses tools that only look at the disk.
                "subformat=streamOptimized,adapter_type=lsilogic",
                str(source),
                str(partial),
            ],
            timeout=timeout,
        )
        info = image_info(partial)
        if info.format != "vmdk" or info.vmdk_create_type() != "streamOptimized":
            raise ImageInvalid(f"expected a streamOptimized vmdk from {QEMU_IMG} convert, got {info}")
        partial.replace(target)
        return info
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
