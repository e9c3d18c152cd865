"""Reading an OVF envelope: parse it safely, and resolve what a deployment option gets.

vSphere picks the hardware Items of a deployment option the same way resolve_hardware() does
(items without ovf:configuration, plus those that list the option), so the per-option golden
files show exactly what an admin gets for each size.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from pydantic import BaseModel, ConfigDict, Field

from ovf.errors import DescriptorInvalid
from ovf.namespaces import OVF, RASD, VSSD, q

MAX_DESCRIPTOR_BYTES = 4 * 1024 * 1024


def parse_envelope(data: bytes) -> ET.Element:
    """Parse descriptor bytes; refuses DTDs (OVF needs none, and they carry entity expansion)."""
    if len(data) > MAX_DESCRIPTOR_BYTES:
        raise DescriptorInvalid([f"descriptor is {len(data)} bytes; more than {MAX_DESCRIPTOR_BYTES}"])
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise DescriptorInvalid(["descriptor has a DOCTYPE/ENTITY declaration; OVF allows none"])
    try:
        # No DTD gets here (refused above) and expat never fetches external entities.
        return ET.fromstring(data)  # noqa: S314
    except ET.ParseError as exc:
        raise DescriptorInvalid([f"not well-formed XML: {exc}"]) from exc


def configurations_of(element: ET.Element) -> list[str]:
    """The ids in an element's ovf:configuration attribute (a space-separated list)."""
    return (element.get(q(OVF, "configuration")) or "").split()


def applies_to(element: ET.Element, option: str | None) -> bool:
    """Whether an Item (or Property) is part of deployment option `option`."""
    confs = configurations_of(element)
    return not confs or option in confs


def rasd(item: ET.Element, name: str) -> str | None:
    """Text of one rasd child of an Item, stripped; None when absent."""
    child = item.find(q(RASD, name))
    return None if child is None or child.text is None else child.text.strip()


class HardwareItem(BaseModel):
    """One device of the resolved hardware, as vSphere would create it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    instance_id: str = Field(description="rasd:InstanceID")
    resource_type: int = Field(description="CIM ResourceType (3 CPU, 4 memory, 6 SCSI, 10 NIC, 17 disk)")
    subtype: str | None = Field(description="rasd:ResourceSubType (VirtualSCSI, VmxNet3)")
    name: str | None = Field(description="rasd:ElementName")
    quantity: int | None = Field(description="rasd:VirtualQuantity")
    parent: str | None = Field(description="rasd:Parent")
    host_resource: str | None = Field(description="rasd:HostResource")
    connection: str | None = Field(description="rasd:Connection")


class ResolvedHardware(BaseModel):
    """The hardware one deployment option gets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    option: str | None = Field(description="Deployment option id; None for an envelope without options")
    hardware_version: str | None = Field(description="vssd:VirtualSystemType")
    vcpus: int = Field(description="VirtualQuantity of the CPU item")
    memory_mb: int = Field(description="VirtualQuantity of the memory item, MiB")
    items: tuple[HardwareItem, ...] = Field(description="Every device item, in descriptor order")


def virtual_hardware_section(root: ET.Element) -> ET.Element | None:
    """The first VirtualSystem's VirtualHardwareSection."""
    return root.find(f"{q(OVF, 'VirtualSystem')}/{q(OVF, 'VirtualHardwareSection')}")


def _int(text: str | None) -> int | None:
    try:
        return None if text is None else int(text)
    except ValueError:
        return None


def resolve_hardware(root: ET.Element, option: str | None) -> ResolvedHardware:
    """What deployment option `option` gets; the envelope must have passed validate_envelope()."""
    vhs = virtual_hardware_section(root)
    if vhs is None:
        raise DescriptorInvalid(["no VirtualSystem/VirtualHardwareSection"])
    items = []
    for item in vhs.findall(q(OVF, "Item")):
        if not applies_to(item, option):
            continue
        items.append(
            HardwareItem(
                instance_id=rasd(item, "InstanceID") or "",
                resource_type=_int(rasd(item, "ResourceType")) or 0,
                subtype=rasd(item, "ResourceSubType"),
                name=rasd(item, "ElementName"),
                quantity=_int(rasd(item, "VirtualQuantity")),
                parent=rasd(item, "Parent"),
                host_resource=rasd(item, "HostResource"),
                connection=rasd(item, "Connection"),
            )
        )
    cpus = [i.quantity for i in items if i.resource_type == 3]
    memory = [i.quantity for i in items if i.resource_type == 4]
    if len(cpus) != 1 or len(memory) != 1 or cpus[0] is None or memory[0] is None:
        raise DescriptorInvalid([f"option {option!r}: needs exactly one CPU and one memory item"])
    system_type = vhs.find(f"{q(OVF, 'System')}/{q(VSSD, 'VirtualSystemType')}")
    return ResolvedHardware(
        option=option,
        hardware_version=None if system_type is None else (system_type.text or "").strip(),
        vcpus=cpus[0],
        memory_mb=memory[0],
        items=tuple(items),
    )


def deployment_option_ids(root: ET.Element) -> list[str]:
    """Ids of the DeploymentOptionSection's configurations, in order."""
    section = root.find(q(OVF, "DeploymentOptionSection"))
    if section is None:
        return []
    return [c.get(q(OVF, "id"), "") for c in section.findall(q(OVF, "Configuration"))]


def property_keys(root: ET.Element) -> list[str]:
    """Keys of every ProductSection property as the OVF environment names them (class.key.instance)."""
    keys = []
    for section in root.iter(q(OVF, "ProductSection")):
        cls = section.get(q(OVF, "class"))
        inst = section.get(q(OVF, "instance"))
        for prop in section.findall(q(OVF, "Property")):
            key = prop.get(q(OVF, "key"), "")
            keys.append(".".join(part for part in (cls, key, inst) if part))
    return keys
