"""The OVF validator refuses each broken DMTF rule with a message that names it."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from ovf.descriptor import DescriptorInputs, DiskImage, PackageFile, Product, build_envelope, serialize
from ovf.errors import DescriptorInvalid
from ovf.namespaces import OVF, RASD, q
from ovf.validator import parse_qualifiers, validate_descriptor, validate_envelope, value_problem

INPUTS = DescriptorInputs(
    product=Product(version="1.2.3", full_version="v1.2.3"),
    disk=DiskImage(href="arcvsa-disk1.vmdk", size=1000, capacity=8 * 1024**3),
    extra_files=(PackageFile(href="build-manifest.json", size=10),),
)
GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "ovf" / "golden" / "arcvsa.ovf"


def _vs(root: ET.Element) -> ET.Element:
    vs = root.find(q(OVF, "VirtualSystem"))
    assert vs is not None
    return vs


def _vhs(root: ET.Element) -> ET.Element:
    vhs = _vs(root).find(q(OVF, "VirtualHardwareSection"))
    assert vhs is not None
    return vhs


def _item(root: ET.Element, resource_type: int) -> ET.Element:
    for item in _vhs(root).findall(q(OVF, "Item")):
        if item.findtext(q(RASD, "ResourceType")) == str(resource_type):
            return item
    raise AssertionError(f"no item of type {resource_type}")


def _prop(root: ET.Element, key: str) -> ET.Element:
    prop = root.find(f".//{q(OVF, 'Property')}[@{q(OVF, 'key')}='{key}']")
    assert prop is not None
    return prop


def _set_rasd(item: ET.Element, name: str, value: str) -> None:
    child = item.find(q(RASD, name))
    assert child is not None
    child.text = value


def drop_disk_section(root: ET.Element) -> None:
    section = root.find(q(OVF, "DiskSection"))
    assert section is not None
    root.remove(section)


def dangle_file_ref(root: ET.Element) -> None:
    disk = root.find(f"{q(OVF, 'DiskSection')}/{q(OVF, 'Disk')}")
    assert disk is not None
    disk.set(q(OVF, "fileRef"), "file-that-is-not-there")


def duplicate_instance_id(root: ET.Element) -> None:
    _set_rasd(_item(root, 10), "InstanceID", "1")


def bad_property_type(root: ET.Element) -> None:
    _prop(root, "ipv4_prefix").set(q(OVF, "type"), "int42")


def dangle_parent(root: ET.Element) -> None:
    _set_rasd(_item(root, 17), "Parent", "99")


def unknown_resource_type(root: ET.Element) -> None:
    _set_rasd(_item(root, 10), "ResourceType", "4242")


def dangle_host_resource(root: ET.Element) -> None:
    _set_rasd(_item(root, 17), "HostResource", "ovf:/disk/vmdisk9")


def unknown_configuration(root: ET.Element) -> None:
    _item(root, 3).set(q(OVF, "configuration"), "huge")


def default_outside_value_map(root: ET.Element) -> None:
    _prop(root, "nfs_backend").set(q(OVF, "value"), "nfsd")


def default_over_max_value(root: ET.Element) -> None:
    _prop(root, "ipv4_prefix").set(q(OVF, "value"), "33")


def unparseable_qualifier(root: ET.Element) -> None:
    _prop(root, "hostname").set(q(OVF, "qualifiers"), "MinLen(1),Length<63")


def references_not_first(root: ET.Element) -> None:
    refs = root.find(q(OVF, "References"))
    assert refs is not None
    root.remove(refs)
    root.insert(2, refs)


def section_without_info(root: ET.Element) -> None:
    section = root.find(q(OVF, "NetworkSection"))
    assert section is not None
    info = section.find(q(OVF, "Info"))
    assert info is not None
    section.remove(info)


def nic_on_unknown_network(root: ET.Element) -> None:
    _set_rasd(_item(root, 10), "Connection", "Backup Network")


def rasd_out_of_order(root: ET.Element) -> None:
    item = _item(root, 6)
    first = item[0]
    item.remove(first)
    item.append(first)


def second_cpu_for_small(root: ET.Element) -> None:
    cpu = _item(root, 3)
    clone = copy.deepcopy(cpu)
    _set_rasd(clone, "InstanceID", "77")
    _vhs(root).append(clone)


def unknown_transport(root: ET.Element) -> None:
    _vhs(root).set(q(OVF, "transport"), "com.vmware.guestInfo floppy")


def href_with_path(root: ET.Element) -> None:
    ref = root.find(f"{q(OVF, 'References')}/{q(OVF, 'File')}")
    assert ref is not None
    ref.set(q(OVF, "href"), "../../etc/passwd")


MUTATIONS: list[tuple[Callable[[ET.Element], None], str]] = [
    (drop_disk_section, "DiskSection is required"),
    (dangle_file_ref, "ovf:fileRef 'file-that-is-not-there' names no References/File"),
    (duplicate_instance_id, "duplicate rasd:InstanceID '1'"),
    (bad_property_type, "ovf:type 'int42' is not a DSP0243 property type"),
    (dangle_parent, "rasd:Parent '99' names no Item"),
    (unknown_resource_type, "rasd:ResourceType '4242' is not a CIM ResourceType value"),
    (dangle_host_resource, "rasd:HostResource 'ovf:/disk/vmdisk9' names no DiskSection Disk"),
    (unknown_configuration, "ovf:configuration 'huge' is not a DeploymentOptionSection Configuration"),
    (default_outside_value_map, "default ovf:value 'nfsd': not one of ['ganesha', 'knfsd']"),
    (default_over_max_value, "default ovf:value '33': outside 1..32"),
    (unparseable_qualifier, "cannot parse qualifier text 'Length<63'"),
    (references_not_first, "References must be the first child of Envelope"),
    (section_without_info, "NetworkSection: Info must be the first child of every section"),
    (nic_on_unknown_network, "rasd:Connection 'Backup Network' names no NetworkSection Network"),
    (rasd_out_of_order, "rasd elements must be in alphabetical order"),
    (second_cpu_for_small, "deployment option 'small' gets 2 CPU items; needs exactly 1"),
    (unknown_transport, "unknown ovf:transport 'floppy'"),
    (href_with_path, "must be a plain file name inside the package"),
]


@pytest.mark.parametrize(("mutate", "message"), MUTATIONS, ids=[m.__name__ for m, _ in MUTATIONS])
def test_malformed_descriptor_is_refused_with_a_clear_message(
    mutate: Callable[[ET.Element], None], message: str
) -> None:
    root = build_envelope(INPUTS)
    validate_envelope(root)  # sound before the mutation
    mutate(root)
    with pytest.raises(DescriptorInvalid) as caught:
        validate_descriptor(serialize(root))
    assert any(message in problem for problem in caught.value.problems), caught.value.problems
    assert message in str(caught.value)


def test_every_problem_is_listed_at_once() -> None:
    root = build_envelope(INPUTS)
    drop_disk_section(root)
    duplicate_instance_id(root)
    bad_property_type(root)
    with pytest.raises(DescriptorInvalid) as caught:
        validate_envelope(root)
    text = str(caught.value)
    for message in ("DiskSection is required", "duplicate rasd:InstanceID", "ovf:type 'int42'"):
        assert message in text
    assert f"{len(caught.value.problems)} problem(s)" in text


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"<ovf:Envelope", "not well-formed XML"),
        (b'<!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>', "DOCTYPE/ENTITY"),
        (b'<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/2"/>', "not an OVF 1.x"),
    ],
)
def test_unreadable_documents_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(DescriptorInvalid, match=message):
        validate_descriptor(data)


def test_golden_descriptor_is_valid() -> None:
    validate_descriptor(GOLDEN.read_bytes())


def test_qualifier_parsing() -> None:
    quals = parse_qualifiers('ValueMap{"a", "b,c"},MinLen(1) MaxLen(8)')
    assert quals.value_map == ["a", "b,c"] and quals.min_len == 1 and quals.max_len == 8 and not quals.errors
    assert value_problem("string", quals, "b,c") is None
    assert value_problem("uint8", parse_qualifiers("MaxValue(32)"), "300") == "outside 0..32"
    assert value_problem("boolean", parse_qualifiers(""), "yes") == "not a boolean"
