"""Lab tier: the real appliance image booted under qemu, LUNs from the lab SAN (DESIGN.md section 5).

Lab tests skip when the image or the host tools are missing, unless ARCVSA_LAB_REQUIRED=1 (set by
``make lab-smoke``): then a missing piece fails the run instead of hiding it. ARCVSA_LAB_IMAGE and
ARCVSA_LAB_KEY test another disk and key than the last build's.

The appliance boots as a vSphere admin would deploy it: its vApp properties on an ovf-env ISO (the lab
key among them), first boot applies them, the api answers health, then SSH works.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest
from fixtures.appliance.remote import SshRunner
from support.lab_api import LabApi
from support.lab_boot import BootedAppliance, boot, running_san

from lab.appliance_vm import OVMF_CODE, OVMF_VARS, ApplianceVm, Firmware
from lab.san import San

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "build" / "image" / "latest.json"
HOST_TOOLS = ("qemu-system-x86_64", "qemu-storage-daemon", "qemu-img", "ssh", "nfs-cp", "genisoimage")
LUN_SIZE = 1 << 30


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "lab: boots the appliance image under qemu (minutes; needs `make image`)"
    )


def missing(reason: str) -> NoReturn:
    """Skip, or fail when the lab was asked for explicitly."""
    if os.environ.get("ARCVSA_LAB_REQUIRED") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def lab_image() -> tuple[Path, Path]:
    """The product disk of the last image build and the lab-only SSH key."""
    absent = [tool for tool in HOST_TOOLS if shutil.which(tool) is None]
    if absent:
        missing(f"host tools missing: {absent} (make setup)")
    override = os.environ.get("ARCVSA_LAB_IMAGE"), os.environ.get("ARCVSA_LAB_KEY")
    if override[0] and override[1]:
        image, key = Path(override[0]), Path(override[1])
    elif MANIFEST.is_file():
        data = json.loads(MANIFEST.read_text(encoding="utf-8"))
        image, key = Path(data.get("image") or ""), Path(data.get("lab_key") or "")
    else:
        missing(f"no image build ({MANIFEST}): run `make image`")
    if not image.is_file() or not key.is_file():
        missing(f"image {image} or lab key {key} missing: run `make image`")
    return image, key


@pytest.fixture(scope="module")
def san(tmp_path_factory: pytest.TempPathFactory) -> Iterator[San]:
    """Two 1 GiB LUNs (filled with data) served by qemu-storage-daemon; stopped afterwards."""
    with running_san(tmp_path_factory.mktemp("san"), LUN_SIZE) as san:
        yield san


@pytest.fixture(scope="module")
def firmware() -> Firmware:
    """What the module's appliance boots under: the lab's default (see lab.appliance_vm); a module that
    tests the boot itself overrides this fixture."""
    return "bios"


@pytest.fixture(scope="module")
def booted(
    lab_image: tuple[Path, Path], san: San, firmware: Firmware, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BootedAppliance]:
    """The appliance booted with valid properties on the SAN's LUNs and two SSDs; powered off afterwards."""
    image, key = lab_image
    if firmware == "efi" and not (OVMF_CODE.is_file() and OVMF_VARS.is_file()):
        missing(f"no OVMF ({OVMF_CODE}, {OVMF_VARS}): install Debian's ovmf (make setup)")
    appliance = boot(image, key, san, tmp_path_factory.mktemp("vm"), firmware=firmware)
    try:
        seconds = appliance.vm.wait_ssh(timeout=300)
        print(f"boot to SSH: {seconds:.1f} s")
        yield appliance
    finally:
        appliance.vm.shutdown(timeout=120)


@pytest.fixture(scope="module")
def appliance(booted: BootedAppliance) -> ApplianceVm:
    """The booted appliance's VM (SSH, QMP, forwards)."""
    return booted.vm


@pytest.fixture(scope="module")
def api(booted: BootedAppliance) -> LabApi:
    """The booted appliance's api, logged in as admin."""
    return LabApi(booted)


@pytest.fixture(scope="module")
def guest(appliance: ApplianceVm) -> SshRunner:
    """SSH into the guest, for what the api has no say in (/proc, journal, the guest's own clients)."""
    return SshRunner(appliance.config.host_ports["ssh"], appliance.config.ssh_key)
