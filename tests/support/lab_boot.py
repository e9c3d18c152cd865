"""Boot the appliance image in the lab as a vSphere admin would deploy it: properties on an ovf-env ISO."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lab import appliance_env, console
from lab.appliance_api import ApplianceApi
from lab.appliance_vm import ApplianceVm, Firmware, StorageNic, VmConfig
from lab.boot_slot import boot_slot
from lab.san import San, make_luns

# What the guest kernel prints on the console when UEFI firmware started it ("efi: EFI v2.7 by EDK II").
UEFI_BOOT_LINE = re.compile(r"efi: EFI v\d")


class BootedAppliance:
    """A VM booted with an ovf-env, its api client and the properties it was given."""

    def __init__(self, vm: ApplianceVm, api: ApplianceApi, properties: dict[str, str]) -> None:
        self.vm = vm
        self.api = api
        self.properties = properties
        self.api_seconds = 0.0
        self.health: dict[str, object] = {}


EARLY_PANIC_RETRIES = console.EARLY_PANIC_RETRIES


def boot(
    image: Path,
    key: Path,
    san: San,
    directory: Path,
    overrides: dict[str, str] | None = None,
    *,
    reach_host: bool = False,
    firmware: Firmware = "bios",
    storage_nic: StorageNic | None = None,
) -> BootedAppliance:
    """Boot the image with the lab's properties (plus ``overrides``) and wait for the api's health;
    ``reach_host``: the guest may send out through the host, ``firmware``: bios or efi (both: see
    lab.appliance_vm), ``storage_nic``: a second NIC from the first boot on.

    A boot that hangs or whose kernel panics before the api answers (the emulator's: see lab.console)
    is booted once more from a fresh disk, and says so; nothing has been tested on it yet. A panic in
    early boot (console.panicked_early) gets two more boots, as the power-cut harness gives it. Any
    other failure fails; the VM is stopped either way."""
    iso, properties = appliance_env.prepare(directory / "env", key, overrides or {})
    config = VmConfig(
        image,
        directory,
        san.socket,
        san.luns,
        key,
        cdrom=iso,
        tied=True,
        reach_host=reach_host,
        firmware=firmware,
        storage_nic=storage_nic,
    )
    retried = early_panics = 0
    while True:
        failed = config.directory / f"console-failed-{retried + early_panics + 1}.log"
        try:
            with boot_slot():
                return _boot_once(config, properties, failed.name)
        except (console.BootStalled, console.GuestPanicked) as err:
            if early_panics < EARLY_PANIC_RETRIES and failed.is_file() and console.panicked_early(failed):
                early_panics += 1
            elif retried < 1:
                retried += 1
            else:
                raise
            print(f"\nbooting once more from a fresh disk: {err}")


def _boot_once(config: VmConfig, properties: dict[str, str], failed: str) -> BootedAppliance:
    """One boot up to the api's health; the VM is killed (its console kept as ``failed``) if it fails."""
    vm = ApplianceVm(config)
    booted = BootedAppliance(
        vm, ApplianceApi(config.host_ports["https"], config.directory / "api.crt"), properties
    )
    booted.api.cert_file.unlink(missing_ok=True)  # a fresh disk makes its own certificate: pin anew
    vm.start()
    try:
        assert vm.daemon is not None
        console.wait_login(vm.console, vm.daemon.alive, vm.started_at, 600, 240)
        booted.api_seconds, booted.health = booted.api.wait_health(vm.started_at, 600, vm.check, vm.console)
    except BaseException:
        vm.kill()
        if vm.console.is_file():
            vm.console.rename(config.directory / failed)
        raise
    print(f"\nboot to api health: {booted.api_seconds:.1f} s; first boot: {booted.health['firstboot']}")
    return booted


@contextmanager
def running_san(directory: Path, lun_size: int, count: int = 2) -> Iterator[San]:
    """``count`` LUNs of lun_size (filled with data, throttled, one QSD) for one test module; stopped and
    their files removed afterwards (pytest keeps three runs' folders: GBs of LUNs on a small disk)."""
    san = San(directory, make_luns(directory / "luns", count, lun_size), tied=True)
    try:
        yield san.start()
    finally:
        san.stop()
        for lun in san.luns:
            lun.path.unlink(missing_ok=True)
