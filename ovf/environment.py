"""Write an OVF environment document (ovf-env.xml) and the ISO that carries it (iso transport).

vSphere writes this document for a deployed VM; we write it for the lab (qemu has no vSphere to do
it) and for the first-boot tests, from plain key/value pairs. Values are not validated here, on
purpose: the lab must be able to hand a bad value to first boot to see it refused.
"""

from __future__ import annotations

import shutil
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path

from ovf.namespaces import ENV, VMW_ENV, q
from ovf.properties import load_catalogue
from process import run

ISO_TIMEOUT = 60.0
ENV_FILE_NAME = "ovf-env.xml"


def render_environment(
    values: Mapping[str, str],
    *,
    kind: str = "arcvsa lab (qemu)",
    version: str = "0",
    esx_id: str = "vm-0",
    strict_keys: bool = True,
) -> bytes:
    """ovf-env.xml bytes with a PlatformSection and one Property per value.

    With `strict_keys`, a key that is not in ovf/properties.yaml raises KeyError (a typo in a lab
    config would otherwise be silently ignored by first boot).
    """
    if strict_keys:
        known = set(load_catalogue().by_key())
        unknown = sorted(set(values) - known)
        if unknown:
            raise KeyError(f"not vApp properties of arcvsa: {unknown}; known: {sorted(known)}")
    root = ET.Element(q(ENV, "Environment"), {q(ENV, "id"): "", q(VMW_ENV, "esxId"): esx_id})
    platform = ET.SubElement(root, q(ENV, "PlatformSection"))
    for tag, text in (("Kind", kind), ("Version", version), ("Vendor", "arcvsa"), ("Locale", "en")):
        ET.SubElement(platform, q(ENV, tag)).text = text
    section = ET.SubElement(root, q(ENV, "PropertySection"))
    for key, value in values.items():
        ET.SubElement(section, q(ENV, "Property"), {q(ENV, "key"): key, q(ENV, "value"): value})
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True) + b"\n"


def make_environment_iso(document: bytes, out: Path, *, timeout: float = ISO_TIMEOUT) -> Path:
    """An ISO 9660 image (Joliet + Rock Ridge) holding ovf-env.xml, as the iso transport attaches it."""
    staging = Path(tempfile.mkdtemp(prefix=".ovfenv-", dir=out.parent))
    try:
        (staging / ENV_FILE_NAME).write_bytes(document)
        partial = out.with_name(out.name + ".partial")
        run(
            ["genisoimage", "-quiet", "-J", "-R", "-V", "OVF ENV", "-o", str(partial), str(staging)],
            timeout=timeout,
        )
        partial.replace(out)
        return out
    finally:
        shutil.rmtree(staging, ignore_errors=True)
