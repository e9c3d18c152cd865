"""The rendered OVF descriptor: golden files for the envelope and for each deployment option."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ovf.descriptor import (
    DescriptorInputs,
    DiskImage,
    PackageFile,
    Product,
    build_envelope,
    render_descriptor,
)
from ovf.envelope import deployment_option_ids, parse_envelope, property_keys, resolve_hardware
from ovf.hardware import APPLIANCE_HARDWARE
from ovf.namespaces import OVF, VMW, q
from ovf.properties import load_catalogue
from ovf.validator import validate_descriptor

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "ovf" / "golden"
UPDATE = os.environ.get("ARCVSA_UPDATE_GOLDEN") == "1"

INPUTS = DescriptorInputs(
    product=Product(version="1.2.3", full_version="v1.2.3-4-gabcdef0"),
    disk=DiskImage(
        href="arcvsa-1.2.3-disk1.vmdk", size=390_070_272, capacity=8 * 1024**3, populated_size=1_503_238_144
    ),
    extra_files=(PackageFile(href="build-manifest.json", size=231),),
)


def assert_golden(name: str, actual: bytes) -> None:
    """Compare with tests/fixtures/ovf/golden/<name>; ARCVSA_UPDATE_GOLDEN=1 rewrites it instead."""
    path = GOLDEN / name
    if UPDATE:
        path.write_bytes(actual)
        return
    assert path.exists(), f"{path} missing: run with ARCVSA_UPDATE_GOLDEN=1 and review it"
    assert actual.decode() == path.read_text(), f"{name} differs from its golden file"


def test_descriptor_matches_golden() -> None:
    assert_golden("arcvsa.ovf", render_descriptor(INPUTS))


def test_golden_descriptor_passes_the_validator() -> None:
    validate_descriptor((GOLDEN / "arcvsa.ovf").read_bytes())


@pytest.mark.parametrize("option", [o.id for o in APPLIANCE_HARDWARE.options])
def test_each_deployment_option_resolves_to_its_golden_hardware(option: str) -> None:
    root = validate_descriptor(render_descriptor(INPUTS))
    hardware = resolve_hardware(root, option)
    expected = APPLIANCE_HARDWARE.option(option)
    assert (hardware.vcpus, hardware.memory_mb) == (expected.vcpus, expected.memory_mb)
    assert hardware.hardware_version == "vmx-19"
    assert_golden(f"hardware-{option}.json", (json.dumps(hardware.model_dump(), indent=2) + "\n").encode())


def test_options_are_small_medium_large_with_growing_ram() -> None:
    root = parse_envelope(render_descriptor(INPUTS))
    assert deployment_option_ids(root) == ["small", "medium", "large"]
    ram = [resolve_hardware(root, o).memory_mb for o in ("small", "medium", "large")]
    assert ram == sorted(ram) and len(set(ram)) == 3
    defaults = root.findall(f".//{q(OVF, 'Configuration')}[@{q(OVF, 'default')}='true']")
    assert [d.get(q(OVF, "id")) for d in defaults] == ["small"]


def test_vsphere_boots_it_under_uefi_without_secure_boot() -> None:
    """The disk's GPT boots under either firmware; vSphere is asked for EFI. Secure Boot stays off:
    the image's GRUB and its DKMS-built ZFS module carry no signature the VM would trust."""
    root = parse_envelope(render_descriptor(INPUTS))
    config = {c.get(q(VMW, "key")): c.get(q(VMW, "value")) for c in root.iter(q(VMW, "Config"))}
    assert config["firmware"] == "efi"
    assert config["bootOptions.efiSecureBootEnabled"] == "false"


def test_devices_are_pvscsi_two_vmxnet3_and_the_disk() -> None:
    hw = resolve_hardware(parse_envelope(render_descriptor(INPUTS)), "medium")
    by_type = {i.resource_type: i for i in hw.items}
    assert by_type[6].subtype == "VirtualSCSI"
    # management first: the guest takes the NIC on the lower PCI slot (unit 7) as management
    nics = [(i.subtype, i.connection) for i in hw.items if i.resource_type == 10]
    assert nics == [("VmxNet3", "VM Network"), ("VmxNet3", "Storage Network")]
    assert by_type[17].host_resource == "ovf:/disk/vmdisk1" and by_type[17].parent == by_type[6].instance_id
    assert 15 in by_type, "the iso transport needs a CD-ROM drive"


def test_properties_come_from_the_catalogue_with_transport() -> None:
    root = parse_envelope(render_descriptor(INPUTS))
    assert property_keys(root) == [p.key for p in load_catalogue().properties]
    vhs = root.find(f"{q(OVF, 'VirtualSystem')}/{q(OVF, 'VirtualHardwareSection')}")
    assert vhs is not None and vhs.get(q(OVF, "transport")) == "com.vmware.guestInfo iso"
    password = root.find(f".//{q(OVF, 'Property')}[@{q(OVF, 'key')}='admin_password']")
    assert password is not None
    assert password.get(q(OVF, "password")) == "true" and password.get(q(OVF, "value")) is None


def test_text_is_escaped_by_the_xml_writer() -> None:
    hostile = 'x" /><Item>&injected;</Item><!--'
    inputs = INPUTS.model_copy(
        update={"product": Product(version="1", full_version=hostile, annotation=hostile)}
    )
    root = validate_descriptor(render_descriptor(inputs))
    assert root.findtext(f".//{q(OVF, 'FullVersion')}") == hostile
    assert len(root.findall(f".//{q(OVF, 'Item')}")) == len(
        build_envelope(INPUTS).findall(f".//{q(OVF, 'Item')}")
    )


def test_rendering_is_deterministic() -> None:
    assert render_descriptor(INPUTS) == render_descriptor(INPUTS)
    assert parse_envelope(render_descriptor(INPUTS)).tag == q(OVF, "Envelope")
