"""Render the appliance's OVF descriptor from the property catalogue and the hardware model.

Built with ElementTree, never by pasting strings, so any text (labels, descriptions, versions)
is escaped by the XML writer. The output is deterministic (same inputs, same bytes): the golden
tests and the OVA's SHA-256 manifest rely on that.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from pydantic import BaseModel, ConfigDict, Field

from ovf.hardware import APPLIANCE_HARDWARE, VirtualHardware
from ovf.namespaces import OVF, RASD, VMW, VSSD, XML, q
from ovf.properties import PropertyCatalogue, load_catalogue

STREAM_OPTIMIZED = "http://www.vmware.com/interfaces/specifications/vmdk.html#streamOptimized"
DISK_ID = "vmdisk1"
DISK_FILE_ID = "file1"
TRANSPORT = "com.vmware.guestInfo iso"
"""guestInfo for vSphere (read with vmtoolsd), iso for the lab and for hosts without VMware Tools."""


class PackageFile(BaseModel):
    """A file of the OVF package other than the descriptor and the manifest."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    href: str = Field(description="File name inside the OVA (ovf:href)")
    size: int = Field(ge=0, description="Size in bytes (ovf:size)")


class DiskImage(PackageFile):
    """The boot disk: a streamOptimized VMDK."""

    capacity: int = Field(gt=0, description="Virtual size in bytes, what the guest sees")
    populated_size: int | None = Field(default=None, ge=0, description="Bytes actually allocated")


class Product(BaseModel):
    """ProductSection text and the annotation the vSphere client shows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(default="arcvsa", description="<Product>")
    vendor: str = Field(default="arcvsa project", description="<Vendor>")
    version: str = Field(description="<Version>: the release, e.g. 0.1.0")
    full_version: str = Field(description="<FullVersion>: the git version the image was built from")
    annotation: str = Field(
        default=(
            "arcvsa: a virtual storage appliance that caches and compresses VDI desktop storage "
            "(OpenZFS ARC/L2ARC/SLOG) in front of SAN LUNs and exports it to ESXi over NFS."
        ),
        description="AnnotationSection text",
    )


class DescriptorInputs(BaseModel):
    """What varies between builds; everything else comes from the catalogue and hardware model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    product: Product = Field(description="Product text and versions")
    disk: DiskImage = Field(description="The boot disk")
    extra_files: tuple[PackageFile, ...] = Field(
        default=(), description="Files referenced but not attached to the VM (the build manifest)"
    )


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrib: str) -> ET.Element:
    el = ET.SubElement(parent, tag, attrib)
    if text is not None:
        el.text = text
    return el


def _section(parent: ET.Element, name: str, info: str, **attrib: str) -> ET.Element:
    section = _sub(parent, q(OVF, name), **attrib)
    _sub(section, q(OVF, "Info"), info)
    return section


def _item(parent: ET.Element, rasd: dict[str, str], *, configuration: str | None = None) -> ET.Element:
    """An <Item>; CIM's schema is an xs:sequence in alphabetical order, so the rasd children are sorted."""
    attrib = {q(OVF, "configuration"): configuration} if configuration else {}
    item = _sub(parent, q(OVF, "Item"), **attrib)
    for name in sorted(rasd):
        _sub(item, q(RASD, name), rasd[name])
    return item


def _references(env: ET.Element, inputs: DescriptorInputs) -> None:
    refs = _sub(env, q(OVF, "References"))
    _sub(
        refs,
        q(OVF, "File"),
        **{
            q(OVF, "href"): inputs.disk.href,
            q(OVF, "id"): DISK_FILE_ID,
            q(OVF, "size"): str(inputs.disk.size),
        },
    )
    for n, extra in enumerate(inputs.extra_files, start=2):
        _sub(
            refs,
            q(OVF, "File"),
            **{q(OVF, "href"): extra.href, q(OVF, "id"): f"file{n}", q(OVF, "size"): str(extra.size)},
        )


def _disk_section(env: ET.Element, disk: DiskImage) -> None:
    section = _section(env, "DiskSection", "Virtual disk information")
    attrib = {
        q(OVF, "capacity"): str(disk.capacity),
        q(OVF, "capacityAllocationUnits"): "byte",
        q(OVF, "diskId"): DISK_ID,
        q(OVF, "fileRef"): DISK_FILE_ID,
        q(OVF, "format"): STREAM_OPTIMIZED,
    }
    if disk.populated_size is not None:
        attrib[q(OVF, "populatedSize")] = str(disk.populated_size)
    _sub(section, q(OVF, "Disk"), **attrib)


def _network_section(env: ET.Element, hw: VirtualHardware) -> None:
    section = _section(env, "NetworkSection", "The list of logical networks")
    for name, text in (
        (hw.network_name, "Management: the web interface, its API and SSH (and NFS and iSCSI without a storage network)"),
        (hw.storage_network_name, "Storage: NFS and iSCSI to the ESXi hosts' storage VMkernel ports (storage_mode static)"),
    ):  # fmt: skip
        net = _sub(section, q(OVF, "Network"), **{q(OVF, "name"): name})
        _sub(net, q(OVF, "Description"), text)


def _deployment_options(env: ET.Element, hw: VirtualHardware) -> None:
    section = _section(env, "DeploymentOptionSection", "Appliance sizes: vCPUs and RAM for the ZFS ARC")
    for option in hw.options:
        attrib = {q(OVF, "id"): option.id}
        if option.default:
            attrib[q(OVF, "default")] = "true"
        conf = _sub(section, q(OVF, "Configuration"), **attrib)
        _sub(conf, q(OVF, "Label"), option.label)
        _sub(conf, q(OVF, "Description"), option.description)


def _product_section(vs: ET.Element, product: Product, catalogue: PropertyCatalogue) -> None:
    section = _section(vs, "ProductSection", "Appliance settings applied at first boot")
    _sub(section, q(OVF, "Product"), product.name)
    _sub(section, q(OVF, "Vendor"), product.vendor)
    _sub(section, q(OVF, "Version"), product.version)
    _sub(section, q(OVF, "FullVersion"), product.full_version)
    category: str | None = None
    for spec in catalogue.properties:
        if spec.category != category:
            category = spec.category
            _sub(section, q(OVF, "Category"), category)
        attrib = {q(OVF, "key"): spec.key, q(OVF, "type"): spec.type}
        qualifiers = spec.qualifiers()
        if qualifiers:
            attrib[q(OVF, "qualifiers")] = qualifiers
        attrib[q(OVF, "userConfigurable")] = "true" if spec.user_configurable else "false"
        if spec.default is not None:
            attrib[q(OVF, "value")] = spec.default
        if spec.password:
            attrib[q(OVF, "password")] = "true"
        prop = _sub(section, q(OVF, "Property"), **attrib)
        _sub(prop, q(OVF, "Label"), spec.label)
        _sub(prop, q(OVF, "Description"), spec.description)


def _virtual_hardware(vs: ET.Element, hw: VirtualHardware) -> None:
    section = _section(
        vs, "VirtualHardwareSection", "Virtual hardware requirements", **{q(OVF, "transport"): TRANSPORT}
    )
    system = _sub(section, q(OVF, "System"))
    for name, value in (
        ("ElementName", "Virtual Hardware Family"),
        ("InstanceID", "0"),
        ("VirtualSystemIdentifier", hw.vm_name),
        ("VirtualSystemType", hw.hardware_version),
    ):
        _sub(system, q(VSSD, name), value)

    instance = 0

    def next_id() -> str:
        nonlocal instance
        instance += 1
        return str(instance)

    for option in hw.options:
        _item(
            section,
            {
                "AllocationUnits": "hertz * 10^6",
                "Description": "Number of Virtual CPUs",
                "ElementName": f"{option.vcpus} virtual CPU(s)",
                "InstanceID": next_id(),
                "ResourceType": "3",
                "VirtualQuantity": str(option.vcpus),
            },
            configuration=option.id,
        )
        _item(
            section,
            {
                "AllocationUnits": "byte * 2^20",
                "Description": "Memory Size",
                "ElementName": f"{option.memory_mb}MB of memory",
                "InstanceID": next_id(),
                "ResourceType": "4",
                "VirtualQuantity": str(option.memory_mb),
            },
            configuration=option.id,
        )
    scsi = next_id()
    _item(
        section,
        {
            "Address": "0",
            "Description": "SCSI Controller",
            "ElementName": "SCSI controller 0",
            "InstanceID": scsi,
            "ResourceSubType": hw.scsi_type,
            "ResourceType": "6",
        },
    )
    ide = next_id()
    _item(
        section,
        {
            "Address": "0",
            "Description": "IDE Controller",
            "ElementName": "IDE 0",
            "InstanceID": ide,
            "ResourceType": "5",
        },
    )
    _item(
        section,
        {
            "AddressOnParent": "0",
            "ElementName": "Hard disk 1",
            "HostResource": f"ovf:/disk/{DISK_ID}",
            "InstanceID": next_id(),
            "Parent": scsi,
            "ResourceType": "17",
        },
    )
    # The iso transport attaches the OVF environment to the first CD-ROM drive: the VM needs one.
    _item(
        section,
        {
            "AddressOnParent": "0",
            "AutomaticAllocation": "false",
            "Description": "CD-ROM for the OVF environment (iso transport)",
            "ElementName": "CD/DVD drive 1",
            "InstanceID": next_id(),
            "Parent": ide,
            "ResourceType": "15",
        },
    )
    # Unit numbers 7 and 8: vSphere gives the NICs PCI slots in that order, so the guest sees the
    # management NIC first (first boot tells them apart by that order).
    for n, (unit, network) in enumerate(((7, hw.network_name), (8, hw.storage_network_name)), start=1):
        _item(
            section,
            {
                "AddressOnParent": str(unit),
                "AutomaticAllocation": "true",
                "Connection": network,
                "Description": f"{hw.nic_type} ethernet adapter on {network}",
                "ElementName": f"Network adapter {n}",
                "InstanceID": next_id(),
                "ResourceSubType": hw.nic_type,
                "ResourceType": "10",
            },
        )
    config = (
        ("firmware", hw.firmware),
        ("bootOptions.efiSecureBootEnabled", "true" if hw.secure_boot else "false"),
        ("tools.syncTimeWithHost", "false"),
    )
    for key, value in config:
        _sub(
            section,
            q(VMW, "Config"),
            **{q(OVF, "required"): "false", q(VMW, "key"): key, q(VMW, "value"): value},
        )


def build_envelope(
    inputs: DescriptorInputs,
    *,
    hardware: VirtualHardware = APPLIANCE_HARDWARE,
    catalogue: PropertyCatalogue | None = None,
) -> ET.Element:
    """The descriptor as an element tree (tests mutate it to make malformed descriptors)."""
    catalogue = catalogue or load_catalogue()
    env = ET.Element(q(OVF, "Envelope"), {q(XML, "lang"): "en-US"})
    _references(env, inputs)
    _disk_section(env, inputs.disk)
    _network_section(env, hardware)
    _deployment_options(env, hardware)
    vs = _sub(env, q(OVF, "VirtualSystem"), **{q(OVF, "id"): hardware.vm_name})
    _sub(vs, q(OVF, "Info"), "The arcvsa virtual storage appliance")
    _sub(vs, q(OVF, "Name"), hardware.vm_name)
    annotation = _section(vs, "AnnotationSection", "A human-readable annotation")
    _sub(annotation, q(OVF, "Annotation"), inputs.product.annotation)
    _product_section(vs, inputs.product, catalogue)
    os_section = _section(
        vs,
        "OperatingSystemSection",
        "The kind of installed guest operating system",
        **{q(OVF, "id"): str(hardware.guest_os_cim_id), q(VMW, "osType"): hardware.guest_os_vmw},
    )
    _sub(os_section, q(OVF, "Description"), "Debian GNU/Linux 13 (64-bit)")
    _virtual_hardware(vs, hardware)
    return env


def serialize(envelope: ET.Element) -> bytes:
    """UTF-8 XML with a declaration, two-space indented, ending in a newline."""
    tree = ET.ElementTree(envelope)
    ET.indent(tree, space="  ")
    return ET.tostring(envelope, encoding="UTF-8", xml_declaration=True) + b"\n"


def render_descriptor(
    inputs: DescriptorInputs,
    *,
    hardware: VirtualHardware = APPLIANCE_HARDWARE,
    catalogue: PropertyCatalogue | None = None,
) -> bytes:
    """The .ovf file's bytes."""
    return serialize(build_envelope(inputs, hardware=hardware, catalogue=catalogue))
