"""Check an OVF envelope against the DMTF DSP0243 (OVF 1.x) rules arcvsa relies on.

vcsim has no OvfManager.ParseDescriptor and its CreateImportSpec trusts the descriptor (a dangling
reference can crash it); a real vCenter refuses the same mistakes only at deploy time, in front of
the admin. So every descriptor we build or import goes through validate_envelope() first, which
collects every broken rule and raises one DescriptorInvalid listing them all.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field

from ovf.envelope import configurations_of, parse_envelope, rasd
from ovf.errors import DescriptorInvalid
from ovf.namespaces import OVF, RASD, VSSD, q

PROPERTY_TYPES = frozenset(
    {"string", "boolean", "real32", "real64"}
    | {f"{sign}int{bits}" for sign in ("u", "s") for bits in (8, 16, 32, 64)}
)
INT_RANGES = {
    f"{sign}int{bits}": ((0, 2**bits - 1) if sign == "u" else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1))
    for sign in ("u", "s")
    for bits in (8, 16, 32, 64)
}
TRANSPORTS = frozenset({"iso", "com.vmware.guestInfo"})
# CIM_ResourceAllocationSettingData.ResourceType: DMTF values 1..35, vendor range 0x8000..0xFFFF.
DMTF_RESOURCE_TYPES = range(1, 36)
VENDOR_RESOURCE_TYPES = range(0x8000, 0x10000)
CONTROLLER_TYPES = frozenset({5, 6, 20})  # IDE, SCSI HBA, other storage (SATA/NVMe on vSphere)
CAPACITY_UNITS = re.compile(r"^byte(\s*\*\s*\d+(\^\d+)?)?$")
FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_QUALIFIER_FIELDS = {
    "MinLen": "min_len",
    "MaxLen": "max_len",
    "MinValue": "min_value",
    "MaxValue": "max_value",
}
_QUALIFIER = re.compile(r'(MinLen|MaxLen|MinValue|MaxValue)\((-?\d+)\)|ValueMap\{((?:\s*"[^"]*"\s*,?)*)\}')

SECTION_NAMES = frozenset(
    {
        "AnnotationSection",
        "DeploymentOptionSection",
        "DiskSection",
        "EulaSection",
        "InstallSection",
        "NetworkSection",
        "OperatingSystemSection",
        "ProductSection",
        "ResourceAllocationSection",
        "StartupSection",
        "VirtualHardwareSection",
    }
)


@dataclass
class Qualifiers:
    """Parsed ovf:qualifiers of one property."""

    min_len: int | None = None
    max_len: int | None = None
    min_value: int | None = None
    max_value: int | None = None
    value_map: list[str] | None = None
    errors: list[str] = field(default_factory=list)


def parse_qualifiers(text: str) -> Qualifiers:
    """Parse MinLen(n), MaxLen(n), MinValue(n), MaxValue(n) and ValueMap{"a","b"}, comma separated."""
    result = Qualifiers()
    pos = 0
    for match in _QUALIFIER.finditer(text):
        gap = text[pos : match.start()]
        if gap.strip(" ,"):
            result.errors.append(f"cannot parse qualifier text {gap.strip(' ,')!r}")
        pos = match.end()
        name, number, values = match.groups()
        if values is not None:
            result.value_map = re.findall(r'"([^"]*)"', values)
        else:
            setattr(result, _QUALIFIER_FIELDS[name], int(number))
    if text[pos:].strip(" ,"):
        result.errors.append(f"cannot parse qualifier text {text[pos:].strip(' ,')!r}")
    return result


class _Checker:
    """Collects problems; one instance per validation run."""

    def __init__(self, root: ET.Element) -> None:
        self.root = root
        self.problems: list[str] = []
        self.file_ids: set[str] = set()
        self.disk_ids: set[str] = set()
        self.networks: set[str] = set()
        self.options: set[str] = set()

    def add(self, where: str, problem: str) -> None:
        self.problems.append(f"{where}: {problem}")

    # -- envelope level -------------------------------------------------------------------------

    def envelope(self) -> None:
        root = self.root
        if root.tag != q(OVF, "Envelope"):
            self.add("Envelope", f"root element is {root.tag}, not an OVF 1.x {{{OVF}}}Envelope")
            return
        children = list(root)
        if not children or children[0].tag != q(OVF, "References"):
            self.add("Envelope", "References must be the first child of Envelope")
        if len(root.findall(q(OVF, "References"))) != 1:
            self.add("Envelope", "exactly one References element is required")
        content = [
            c for c in children if c.tag in (q(OVF, "VirtualSystem"), q(OVF, "VirtualSystemCollection"))
        ]
        if len(content) != 1:
            self.add("Envelope", f"exactly one VirtualSystem (content) is required, found {len(content)}")
        elif any(_local(c.tag) in SECTION_NAMES for c in children[children.index(content[0]) + 1 :]):
            self.add("Envelope", "sections must come before the VirtualSystem")
        for section in root.iter():
            if _local(section.tag) in SECTION_NAMES and section.tag.startswith(f"{{{OVF}}}"):
                first = next(iter(section), None)
                if first is None or first.tag != q(OVF, "Info"):
                    self.add(_local(section.tag), "Info must be the first child of every section")
        self.references()
        self.disks()
        self.network_section()
        self.deployment_options()
        for vs in root.findall(q(OVF, "VirtualSystem")):
            self.virtual_system(vs)

    def references(self) -> None:
        ids: list[str] = []
        hrefs: list[str] = []
        for f in self.root.findall(f"{q(OVF, 'References')}/{q(OVF, 'File')}"):
            fid, href, size = f.get(q(OVF, "id")), f.get(q(OVF, "href")), f.get(q(OVF, "size"))
            where = f"References/File[{fid or href or '?'}]"
            if not fid:
                self.add(where, "ovf:id is required")
            if not href:
                self.add(where, "ovf:href is required")
            elif not FILE_NAME.match(href):
                self.add(where, f"ovf:href {href!r} must be a plain file name inside the package")
            if size is not None and not size.isdigit():
                self.add(where, f"ovf:size {size!r} is not a non-negative integer")
            ids.append(fid or "")
            hrefs.append(href or "")
        for dup in _duplicates(ids):
            self.add("References", f"duplicate File ovf:id {dup!r}")
        for dup in _duplicates(hrefs):
            self.add("References", f"duplicate File ovf:href {dup!r}")
        self.file_ids = {i for i in ids if i}

    def disks(self) -> None:
        section = self.root.find(q(OVF, "DiskSection"))
        if section is None:
            self.add("Envelope", "DiskSection is required (the appliance boots from a disk)")
            return
        ids: list[str] = []
        for disk in section.findall(q(OVF, "Disk")):
            did = disk.get(q(OVF, "diskId"))
            where = f"DiskSection/Disk[{did or '?'}]"
            if not did:
                self.add(where, "ovf:diskId is required")
            capacity = disk.get(q(OVF, "capacity"))
            if capacity is None:
                self.add(where, "ovf:capacity is required")
            elif not (capacity.isdigit() or re.fullmatch(r"\$\{[A-Za-z0-9_.]+\}", capacity)):
                self.add(where, f"ovf:capacity {capacity!r} is neither an integer nor ${{property}}")
            units = disk.get(q(OVF, "capacityAllocationUnits"))
            if units is not None and not CAPACITY_UNITS.match(units):
                self.add(where, f"ovf:capacityAllocationUnits {units!r} is not 'byte' or 'byte * 2^n'")
            file_ref = disk.get(q(OVF, "fileRef"))
            if file_ref is not None and file_ref not in self.file_ids:
                self.add(where, f"ovf:fileRef {file_ref!r} names no References/File")
            ids.append(did or "")
        for dup in _duplicates(ids):
            self.add("DiskSection", f"duplicate ovf:diskId {dup!r}")
        self.disk_ids = {i for i in ids if i}

    def network_section(self) -> None:
        names = [
            n.get(q(OVF, "name"), "")
            for n in self.root.findall(f"{q(OVF, 'NetworkSection')}/{q(OVF, 'Network')}")
        ]
        if "" in names:
            self.add("NetworkSection", "every Network needs ovf:name")
        for dup in _duplicates(names):
            self.add("NetworkSection", f"duplicate Network ovf:name {dup!r}")
        self.networks = set(names) - {""}

    def deployment_options(self) -> None:
        section = self.root.find(q(OVF, "DeploymentOptionSection"))
        if section is None:
            return
        confs = section.findall(q(OVF, "Configuration"))
        ids = [c.get(q(OVF, "id"), "") for c in confs]
        if not confs:
            self.add("DeploymentOptionSection", "has no Configuration")
        if "" in ids:
            self.add("DeploymentOptionSection", "every Configuration needs ovf:id")
        for dup in _duplicates(ids):
            self.add("DeploymentOptionSection", f"duplicate Configuration ovf:id {dup!r}")
        defaults = [c for c in confs if c.get(q(OVF, "default")) == "true"]
        if len(defaults) > 1:
            self.add("DeploymentOptionSection", "more than one Configuration has ovf:default=true")
        for conf in confs:
            if conf.find(q(OVF, "Label")) is None:
                self.add(f"Configuration[{conf.get(q(OVF, 'id'))}]", "Label is required")
        self.options = set(ids) - {""}

    # -- virtual system -------------------------------------------------------------------------

    def virtual_system(self, vs: ET.Element) -> None:
        if not vs.get(q(OVF, "id")):
            self.add("VirtualSystem", "ovf:id is required")
        if vs.find(q(OVF, "Info")) is None:
            self.add("VirtualSystem", "Info is required")
        os_section = vs.find(q(OVF, "OperatingSystemSection"))
        if os_section is not None and not (os_section.get(q(OVF, "id")) or "").isdigit():
            self.add("OperatingSystemSection", "ovf:id must be a CIM OS type number")
        hw_sections = vs.findall(q(OVF, "VirtualHardwareSection"))
        if len(hw_sections) != 1:
            self.add(
                "VirtualSystem", f"exactly one VirtualHardwareSection is required, found {len(hw_sections)}"
            )
        for vhs in hw_sections:
            self.hardware(vhs)
        for ps in vs.findall(q(OVF, "ProductSection")):
            self.product(ps)

    def hardware(self, vhs: ET.Element) -> None:
        for transport in (vhs.get(q(OVF, "transport")) or "").split():
            if transport not in TRANSPORTS:
                self.add("VirtualHardwareSection", f"unknown ovf:transport {transport!r}")
        system = vhs.find(q(OVF, "System"))
        if system is None or system.find(q(VSSD, "VirtualSystemType")) is None:
            self.add("VirtualHardwareSection", "System/vssd:VirtualSystemType is required")
        items = vhs.findall(q(OVF, "Item"))
        ids = [rasd(i, "InstanceID") or "" for i in items]
        for dup in _duplicates(ids):
            self.add("VirtualHardwareSection", f"duplicate rasd:InstanceID {dup!r}")
        types: dict[str, int] = {}
        for item, iid in zip(items, ids, strict=True):
            rt = rasd(item, "ResourceType")
            if rt is not None and rt.isdigit():
                types[iid] = int(rt)
        for item, iid in zip(items, ids, strict=True):
            self.item(item, iid, types)
        self.per_option(items)

    def item(self, item: ET.Element, iid: str, types: dict[str, int]) -> None:
        where = f"Item[{iid or '?'}]"
        if not iid:
            self.add(where, "rasd:InstanceID is required")
        names = [_local(c.tag) for c in item if c.tag.startswith(f"{{{RASD}}}")]
        if names != sorted(names):
            self.add(where, "rasd elements must be in alphabetical order (CIM schema sequence)")
        for conf in configurations_of(item):
            if conf not in self.options:
                self.add(where, f"ovf:configuration {conf!r} is not a DeploymentOptionSection Configuration")
        rt_text = rasd(item, "ResourceType")
        if rt_text is None:
            self.add(where, "rasd:ResourceType is required")
            return
        if not rt_text.isdigit() or not (
            int(rt_text) in DMTF_RESOURCE_TYPES or int(rt_text) in VENDOR_RESOURCE_TYPES
        ):
            self.add(where, f"rasd:ResourceType {rt_text!r} is not a CIM ResourceType value")
            return
        rt = int(rt_text)
        parent = rasd(item, "Parent")
        if parent is not None:
            if parent not in types:
                self.add(where, f"rasd:Parent {parent!r} names no Item")
            elif types[parent] not in CONTROLLER_TYPES:
                self.add(where, f"rasd:Parent {parent!r} is not a disk controller")
        if rt in (3, 4):
            quantity = rasd(item, "VirtualQuantity")
            if quantity is None or not quantity.isdigit() or int(quantity) < 1:
                self.add(where, "rasd:VirtualQuantity must be a positive integer for CPU and memory")
        if rt in (15, 16, 17) and parent is None:
            self.add(where, "a drive needs rasd:Parent (its controller)")
        for host in item.findall(q(RASD, "HostResource")):
            self.host_resource(where, (host.text or "").strip())
        if rt == 17 and item.find(q(RASD, "HostResource")) is None:
            self.add(where, "a disk needs rasd:HostResource ovf:/disk/<diskId>")
        if rt == 10:
            connection = rasd(item, "Connection")
            if not connection:
                self.add(where, "a network adapter needs rasd:Connection")
            elif connection not in self.networks:
                self.add(where, f"rasd:Connection {connection!r} names no NetworkSection Network")

    def host_resource(self, where: str, ref: str) -> None:
        if ref.startswith("ovf:/disk/"):
            if ref.removeprefix("ovf:/disk/") not in self.disk_ids:
                self.add(where, f"rasd:HostResource {ref!r} names no DiskSection Disk")
        elif ref.startswith("ovf:/file/"):
            if ref.removeprefix("ovf:/file/") not in self.file_ids:
                self.add(where, f"rasd:HostResource {ref!r} names no References File")
        else:
            self.add(where, f"rasd:HostResource {ref!r} is not ovf:/disk/<id> or ovf:/file/<id>")

    def per_option(self, items: list[ET.Element]) -> None:
        options: list[str | None] = [*sorted(self.options)] or [None]
        for option in options:
            chosen = [i for i in items if not configurations_of(i) or option in configurations_of(i)]
            for rt, what in ((3, "CPU"), (4, "memory")):
                count = sum(1 for i in chosen if rasd(i, "ResourceType") == str(rt))
                if count != 1:
                    label = "the envelope" if option is None else f"deployment option {option!r}"
                    self.add("VirtualHardwareSection", f"{label} gets {count} {what} items; needs exactly 1")

    def product(self, ps: ET.Element) -> None:
        keys: list[str] = []
        for prop in ps.findall(q(OVF, "Property")):
            key = prop.get(q(OVF, "key"))
            where = f"ProductSection/Property[{key or '?'}]"
            if not key:
                self.add(where, "ovf:key is required")
            keys.append(key or "")
            ptype = prop.get(q(OVF, "type"))
            if ptype not in PROPERTY_TYPES:
                self.add(
                    where,
                    f"ovf:type {ptype!r} is not a DSP0243 property type: {', '.join(sorted(PROPERTY_TYPES))}",
                )
                continue
            for flag in ("password", "userConfigurable", "required"):
                value = prop.get(q(OVF, flag))
                if value is not None and value not in ("true", "false"):
                    self.add(where, f"ovf:{flag} must be true or false, not {value!r}")
            for conf in configurations_of(prop):
                if conf not in self.options:
                    self.add(
                        where, f"ovf:configuration {conf!r} is not a DeploymentOptionSection Configuration"
                    )
            quals = parse_qualifiers(prop.get(q(OVF, "qualifiers")) or "")
            for err in quals.errors:
                self.add(where, err)
            is_int = ptype in INT_RANGES
            if ptype != "string" and (quals.min_len is not None or quals.max_len is not None):
                self.add(where, f"MinLen/MaxLen qualifiers apply to strings, not {ptype}")
            if not is_int and (quals.min_value is not None or quals.max_value is not None):
                self.add(where, f"MinValue/MaxValue qualifiers apply to integers, not {ptype}")
            default = prop.get(q(OVF, "value"))
            if default is not None:
                problem = value_problem(ptype, quals, default)
                if problem:
                    self.add(where, f"default ovf:value {default!r}: {problem}")
        for dup in _duplicates(keys):
            self.add("ProductSection", f"duplicate Property ovf:key {dup!r}")


def value_problem(ptype: str, quals: Qualifiers, value: str) -> str | None:
    """Why `value` does not fit the property type and qualifiers; None when it fits.

    An empty string is always accepted for a string property without MinLen: it means "not set".
    """
    if ptype == "boolean":
        return None if value in ("true", "false", "True", "False") else "not a boolean"
    if ptype in INT_RANGES:
        try:
            number = int(value)
        except ValueError:
            return f"not an integer ({ptype})"
        lo, hi = INT_RANGES[ptype]
        lo = max(lo, quals.min_value) if quals.min_value is not None else lo
        hi = min(hi, quals.max_value) if quals.max_value is not None else hi
        return None if lo <= number <= hi else f"outside {lo}..{hi}"
    if ptype in ("real32", "real64"):
        try:
            float(value)
        except ValueError:
            return "not a number"
        return None
    if quals.value_map is not None and value not in quals.value_map:
        return f"not one of {quals.value_map}"
    if quals.min_len is not None and len(value) < quals.min_len:
        return f"shorter than MinLen({quals.min_len})"
    if quals.max_len is not None and len(value) > quals.max_len:
        return f"longer than MaxLen({quals.max_len})"
    return None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _duplicates(values: list[str]) -> list[str]:
    return sorted(v for v, n in Counter(values).items() if n > 1 and v)


def validate_envelope(root: ET.Element) -> None:
    """Raise DescriptorInvalid listing every broken rule; return quietly when the envelope is sound."""
    checker = _Checker(root)
    checker.envelope()
    if checker.problems:
        raise DescriptorInvalid(checker.problems)


def validate_descriptor(data: bytes) -> ET.Element:
    """Parse and validate descriptor bytes; the parsed root on success."""
    root = parse_envelope(data)
    validate_envelope(root)
    return root
