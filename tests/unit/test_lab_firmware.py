"""The lab VM's firmware (lab.appliance_vm): SeaBIOS by default, OVMF on asking, each UEFI VM with its
own variable store that lives and dies with its OS disk. Real qemu-img; OVMF's files stand-ins."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lab import appliance_vm
from lab.appliance_vm import ApplianceVm, Firmware, VmConfig
from process import run

pytestmark = pytest.mark.skipif(shutil.which("qemu-img") is None, reason="needs qemu-img (make apt)")


@pytest.fixture
def ovmf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """OVMF's code and empty variable store, as files of their own."""
    code, template = tmp_path / "OVMF_CODE_4M.fd", tmp_path / "OVMF_VARS_4M.fd"
    code.write_bytes(b"code")
    template.write_bytes(b"empty variables")
    monkeypatch.setattr(appliance_vm, "OVMF_CODE", code)
    monkeypatch.setattr(appliance_vm, "OVMF_VARS", template)
    return code, template


def vm(tmp_path: Path, firmware: Firmware | None = None, *, fresh: bool = True) -> ApplianceVm:
    """A VM of a 16 MiB image; ``firmware`` None leaves VmConfig's default."""
    image = tmp_path / "arcvsa.qcow2"
    if not image.exists():
        run(["qemu-img", "create", "-q", "-f", "qcow2", str(image), "16M"], timeout=60)
    config = VmConfig(image, tmp_path / "vm", tmp_path / "san.sock", [], tmp_path / "key", fresh=fresh)
    if firmware is not None:
        config.firmware = firmware
    return ApplianceVm(config)


def pflash(argv: list[str]) -> list[str]:
    return [argv[i + 1] for i, word in enumerate(argv) if word == "-drive" and "if=pflash" in argv[i + 1]]


def test_the_default_is_seabios_with_no_firmware_files(tmp_path: Path) -> None:
    machine = vm(tmp_path)
    machine.prepare_disks()
    assert machine.config.firmware == "bios"
    assert pflash(machine.argv()) == []
    assert not machine.efi_vars.exists()


def test_uefi_boots_ovmf_read_only_with_the_vms_own_variables(
    tmp_path: Path, ovmf: tuple[Path, Path]
) -> None:
    code, template = ovmf
    machine = vm(tmp_path, "efi")
    machine.prepare_disks()
    assert pflash(machine.argv()) == [
        f"if=pflash,format=raw,unit=0,readonly=on,file={code}",
        f"if=pflash,format=raw,unit=1,file={machine.efi_vars}",
    ]
    assert machine.efi_vars.parent == machine.directory
    assert machine.efi_vars.read_bytes() == template.read_bytes()
    assert "bootindex=0" in " ".join(machine.argv())  # the OS disk first, as in vSphere's boot order


def test_the_variables_are_kept_with_the_disk_and_made_anew_with_it(
    tmp_path: Path, ovmf: tuple[Path, Path]
) -> None:
    _, template = ovmf
    vm(tmp_path, "efi").prepare_disks()
    machine = vm(tmp_path, "efi", fresh=False)
    machine.efi_vars.write_bytes(b"boot entries the firmware wrote")
    machine.prepare_disks()  # a reboot of the same disk: its NVRAM too
    assert machine.efi_vars.read_bytes() == b"boot entries the firmware wrote"
    vm(tmp_path, "efi", fresh=True).prepare_disks()  # a new disk: an empty NVRAM, as a new VM has
    assert machine.efi_vars.read_bytes() == template.read_bytes()
    assert template.read_bytes() == b"empty variables"  # the package's file is never written


def test_a_host_without_ovmf_says_which_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(appliance_vm, "OVMF_VARS", tmp_path / "absent.fd")
    with pytest.raises(FileNotFoundError, match="ovmf"):
        vm(tmp_path, "efi").prepare_disks()
