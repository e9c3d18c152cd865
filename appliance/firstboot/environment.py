"""The OVF environment document (ovf-env.xml, DSP0243 section 11) as a typed value.

vSphere writes it into guestinfo.ovfEnv (com.vmware.guestInfo transport) or onto a CD-ROM (iso
transport); both carry the same XML: a PropertySection of key/value pairs, plus platform details.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from pydantic import BaseModel, ConfigDict, Field

from appliance.firstboot.errors import EnvironmentMalformed
from ovf.namespaces import ENV, VMW_ENV

MAX_ENV_BYTES = 1024 * 1024


def _attr(element: ET.Element, name: str) -> str | None:
    """An oe: attribute; also accepted without namespace, as some hand-made environments write it."""
    value = element.get(f"{{{ENV}}}{name}")
    return element.get(name) if value is None else value


class OvfEnvironment(BaseModel):
    """What first boot needs from ovf-env.xml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    properties: dict[str, str] = Field(description="PropertySection key -> value (values as given)")
    platform_kind: str | None = Field(default=None, description="PlatformSection Kind (VMware ESXi)")
    platform_version: str | None = Field(default=None, description="PlatformSection Version")
    esx_id: str | None = Field(default=None, description="ve:esxId, the VM's moref on the ESXi host")


def parse_environment(data: bytes) -> OvfEnvironment:
    """Parse ovf-env.xml bytes; EnvironmentMalformed says what is wrong (never echoing values)."""
    if not data.strip():
        raise EnvironmentMalformed("the OVF environment is empty")
    if len(data) > MAX_ENV_BYTES:
        raise EnvironmentMalformed(f"the OVF environment is {len(data)} bytes; more than {MAX_ENV_BYTES}")
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise EnvironmentMalformed("the OVF environment has a DOCTYPE/ENTITY declaration")
    try:
        # DTDs are refused above and expat never fetches external entities.
        root = ET.fromstring(data)  # noqa: S314
    except ET.ParseError as exc:
        raise EnvironmentMalformed(f"the OVF environment is not well-formed XML: {exc}") from exc
    if root.tag != f"{{{ENV}}}Environment":
        raise EnvironmentMalformed(f"root element is {root.tag}, not {{{ENV}}}Environment")
    properties: dict[str, str] = {}
    for prop in root.iter(f"{{{ENV}}}Property"):
        key, value = _attr(prop, "key"), _attr(prop, "value")
        if not key:
            raise EnvironmentMalformed("a PropertySection Property has no oe:key")
        if key in properties:
            raise EnvironmentMalformed(f"property {key!r} appears twice")
        properties[key] = value or ""
    platform = root.find(f"{{{ENV}}}PlatformSection")
    return OvfEnvironment(
        properties=properties,
        platform_kind=None if platform is None else platform.findtext(f"{{{ENV}}}Kind"),
        platform_version=None if platform is None else platform.findtext(f"{{{ENV}}}Version"),
        esx_id=root.get(f"{{{VMW_ENV}}}esxId"),
    )
