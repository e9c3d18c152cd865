"""First boot's two NICs: which is management, which is storage, and what each one's file says.

The guest's NICs are read from ``sys/class/net`` under first boot's root; here a temp root holds NICs
as sysfs shows them (a ``device`` link to the PCI device, beside links without one).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_firstboot_apply import ENV, NOW, ApplianceRunner, seeded_root

from appliance.firstboot import console, network
from appliance.firstboot.model import validate_properties
from appliance.firstboot.service import run_firstboot

MGMT_FILE = "etc/systemd/network/10-arcvsa.network"
STORAGE_FILE = "etc/systemd/network/20-arcvsa-storage.network"
# vSphere's slots for NIC 1 and NIC 2 of a vmx-19 VM: ens192 and ens224, behind their own bridges
VSPHERE = {"ens192": "0000:00:16.0/0000:0b:00.0", "ens224": "0000:00:17.0/0000:13:00.0"}
STORAGE = {"storage_mode": "static", "storage_address": "198.51.100.10", "storage_mtu": "9000"}


def with_nics(root: Path, nics: dict[str, str | None]) -> Path:
    """sys/class/net under ``root``: each name with its PCI device path (None: a virtual link)."""
    net = root / "sys/class/net"
    for name, pci in nics.items():
        (net / name).mkdir(parents=True)
        if pci is not None:
            device = root / "sys/devices/pci0000:00" / pci
            device.mkdir(parents=True)
            (net / name / "device").symlink_to(device)
    return root


def environment(**values: str) -> str:
    text = (ENV / "valid-static.xml").read_text()
    extra = "".join(f'         <Property oe:key="{k}" oe:value="{v}"/>\n' for k, v in values.items())
    return text.replace("   </PropertySection>", extra + "   </PropertySection>")


def first_boot(tmp_path: Path, nics: dict[str, str | None], **values: str) -> tuple[Path, tuple[str, ...]]:
    root = with_nics(seeded_root(tmp_path), nics)
    outcome = run_firstboot(root, ApplianceRunner(environment(**values)), cdroms=[], now=NOW)
    assert outcome.status == "applied"
    return root, outcome.warnings


def test_nics_are_ordered_by_pci_path_not_by_name(tmp_path: Path) -> None:
    root = with_nics(tmp_path, {"eth0": "0000:13:00.0", "eth1": "0000:0b:00.0", "lo": None, "ens9": None})
    assert network.nics(root) == ["eth1", "eth0"]


def test_only_ethernet_names_count(tmp_path: Path) -> None:
    root = with_nics(tmp_path, {"ens192": "0000:0b:00.0", "wlan0": "0000:0c:00.0", "ib0": "0000:0d:00.0"})
    assert network.nics(root) == ["ens192"]


def test_no_sysfs_means_no_nics(tmp_path: Path) -> None:
    assert network.nics(tmp_path) == []


def test_a_static_storage_network_gets_the_second_nic(tmp_path: Path) -> None:
    root, warnings = first_boot(tmp_path, VSPHERE, **STORAGE)
    assert warnings == ()
    assert "Name=ens192\n" in (root / MGMT_FILE).read_text()
    assert (root / STORAGE_FILE).read_text() == (
        "# Written once by arcvsa first boot from the OVF properties (storage_mode).\n"
        "[Match]\nName=ens224\n\n"
        "[Link]\nRequiredForOnline=no\nMTUBytes=9000\n\n"
        "[Network]\nAddress=198.51.100.10/24\nLinkLocalAddressing=no\nIPv6AcceptRA=no\n"
    )
    config = json.loads((root / "etc/arcvsa/appliance.json").read_text())
    assert config["storage_network"] == {"interface": "ens224", "address": "198.51.100.10/24", "mtu": 9000}
    assert config["management_interface"] == "ens192"
    console.refresh(root, ApplianceRunner(None), version="1", live=False)  # as the cli does after applying
    issue = (root / "etc/issue.d/arcvsa.issue").read_text()
    assert "https://\\4{ens192}/" in issue and "198.51.100.10/24" in issue


def test_without_a_storage_network_the_second_nic_is_kept_down(tmp_path: Path) -> None:
    root, warnings = first_boot(tmp_path, VSPHERE)
    assert warnings == ()
    text = (root / STORAGE_FILE).read_text()
    assert "Name=ens224\n" in text and "ActivationPolicy=down\n" in text and "Address=" not in text
    assert "Name=ens192\n" in (root / MGMT_FILE).read_text()
    assert json.loads((root / "etc/arcvsa/appliance.json").read_text())["storage_network"] is None


def test_one_nic_keeps_the_match_on_any_ethernet_name_and_says_why_storage_is_off(tmp_path: Path) -> None:
    root, warnings = first_boot(tmp_path, {"ens192": VSPHERE["ens192"]}, **STORAGE)
    assert warnings == (
        "storage network not usable (the appliance has 1 NIC(s), the storage network needs a second): "
        "NFS and iSCSI stay on the management network",
    )
    assert f"Name={network.MATCH_NAMES}\n" in (root / MGMT_FILE).read_text()
    assert not (root / STORAGE_FILE).exists()
    config = json.loads((root / "etc/arcvsa/appliance.json").read_text())
    assert config["storage_network"] is None and config["management_interface"] == ""


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        # the management network of valid-static.xml is 192.0.2.0/24
        ({"storage_address": "192.0.2.200"}, "192.0.2.0/24 overlaps the management network 192.0.2.0/24"),
        ({"storage_address": "192.0.0.1", "storage_prefix": "16"}, "192.0.0.0/16 overlaps the management"),
        ({"storage_address": "198.51.100.0"}, "198.51.100.0 is the network address of 198.51.100.0/24"),
        ({"storage_address": "198.51.100.255"}, "198.51.100.255 is the broadcast address of 198.51.100.0/24"),
    ],
)
def test_an_unusable_storage_address_keeps_the_nic_down_and_says_why(
    tmp_path: Path, values: dict[str, str], problem: str
) -> None:
    root, warnings = first_boot(tmp_path, VSPHERE, **(STORAGE | values))
    (warning,) = warnings
    assert warning.startswith("storage network not usable (") and problem in warning
    assert "ActivationPolicy=down\n" in (root / STORAGE_FILE).read_text()


@pytest.mark.parametrize(
    ("address", "prefix"),
    [("192.0.3.1", "24"), ("198.51.100.7", "32")],  # beside 192.0.2.0/24; a /32 has no network address
)
def test_a_storage_network_beside_the_management_one_is_taken(
    tmp_path: Path, address: str, prefix: str
) -> None:
    root, warnings = first_boot(
        tmp_path, VSPHERE, **(STORAGE | {"storage_address": address, "storage_prefix": prefix})
    )
    assert warnings == ()
    assert f"Address={address}/{prefix}\n" in (root / STORAGE_FILE).read_text()


def test_a_dhcp_management_network_overlaps_nothing_first_boot_can_see(tmp_path: Path) -> None:
    props = validate_properties({"admin_password": "x" * 8, **STORAGE, "storage_address": "10.0.2.15"})
    intent, _ = network.network_intent(props)
    storage, warnings = network.storage_intent(props, intent, network.nics(with_nics(tmp_path, VSPHERE)))
    assert warnings == [] and storage is not None and str(storage.address) == "10.0.2.15/24"
