"""Turn the built disk image into the streamOptimized VMDK that an OVA carries.

streamOptimized is the only VMDK subformat vSphere accepts inside an OVF package: it is
compressed, and written front to back so it can be uploaded through an HttpNfcLease as a stream.
qemu-img only reads here (image info, any format to a sparse raw file); the VMDK itself comes from
our own writer (ovf.vmdk_writer), laid out as the VMDK 5.0 specification and VMware's open-vmdk
write it, and is checked (ovf.vmdk_check) before anything is packed.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ovf.errors import ImageInvalid
from ovf.vmdk_check import StreamLayout, check_stream_vmdk
from ovf.vmdk_writer import write_stream_vmdk
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


def convert_to_raw(source: Path, target: Path, *, timeout: float) -> None:
    """Any qemu-readable image as a sparse raw file (qemu-img leaves zeros as holes)."""
    run([QEMU_IMG, "convert", "-O", "raw", str(source), str(target)], timeout=timeout)


def convert_to_stream_vmdk(source: Path, target: Path, *, timeout: float) -> StreamLayout:
    """Convert any qemu-readable image to a streamOptimized VMDK at `target`; returns its checked layout.

    A raw source is read in place; any other format goes through a sparse raw copy in a scratch folder
    beside `target`. `target` is replaced only once the written file passes the check.
    """
    scratch = Path(tempfile.mkdtemp(prefix=".vmdk-", dir=target.parent))
    try:
        raw = source
        if image_info(source).format != "raw":
            raw = scratch / "disk.raw"
            convert_to_raw(source, raw, timeout=timeout)
        partial = scratch / target.name
        write_stream_vmdk(raw, partial)
        layout = check_stream_vmdk(partial)
        partial.replace(target)
        return layout
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
