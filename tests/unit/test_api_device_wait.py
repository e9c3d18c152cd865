"""The api holds the zfs device wait at start on an appliance (a release installed), and only there: an
appliance upgraded in place from an image without the modprobe.d file gets it from its new release."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.upgrade_bundles import manifest_for, payload
from support.api import make_settings

from api.__main__ import hold_device_wait
from api.settings import Settings
from appliance.control import modparams
from appliance.control.files import LocalFiles
from appliance.upgrade import release

PARAM = f"{modparams.SYSFS}/zfs_vdev_open_timeout_ms"
# OpenZFS 2.3's own default (module/os/linux/zfs/vdev_disk.c), what a module loaded without the file has.
MODULE_DEFAULT = "1000\n"


def appliance(tmp_path: Path) -> tuple[Settings, LocalFiles]:
    settings = make_settings(tmp_path / "data", install_root=tmp_path / "opt")
    first = payload(tmp_path / "p1.tar")
    release.install(tmp_path / "opt", manifest_for(first, "v1", 10), first)
    release.switch(tmp_path / "opt", "v1")
    files = LocalFiles(tmp_path / "root")
    return settings, files


def test_an_appliance_gets_the_wait_live_and_at_module_load(tmp_path: Path) -> None:
    settings, files = appliance(tmp_path)
    files.write(PARAM, MODULE_DEFAULT)
    hold_device_wait(settings, files)
    assert files.read(PARAM) == "10000\n"
    text = files.read(modparams.DEVICES)
    assert text is not None and text.endswith("options zfs zfs_vdev_open_timeout_ms=10000\n")
    assert files.read(modparams.MODPROBE) is None  # the tuning plan's file is the admin's, left alone
    again = modparams.hold_device_wait(files)
    assert again.changed_live == {} and not again.persisted


def test_a_dev_host_is_left_alone(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "data", install_root=tmp_path / "opt")  # no release installed
    files = LocalFiles(tmp_path / "root")
    files.write(PARAM, MODULE_DEFAULT)
    hold_device_wait(settings, files)
    assert files.read(PARAM) == MODULE_DEFAULT and files.read(modparams.DEVICES) is None


def test_without_zfs_loaded_the_api_still_starts(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings, files = appliance(tmp_path)
    hold_device_wait(settings, files)  # no /sys/module/zfs: NotFound, logged, not raised
    assert "the zfs device wait is not held: no such zfs module parameter" in caplog.text
    assert files.read(modparams.DEVICES) is None


def test_a_wait_the_admin_chose_in_the_tuning_plan_stands(tmp_path: Path) -> None:
    settings, files = appliance(tmp_path)
    files.write(PARAM, MODULE_DEFAULT)
    modparams.apply(files, {"zfs_vdev_open_timeout_ms": 30000})  # PUT /api/tuning/parameters
    files.write(modparams.DEVICES, modparams.render(modparams.DEVICE_WAIT, modparams.DEVICES_HEADER))
    hold_device_wait(settings, files)
    assert files.read(PARAM) == "30000\n" and files.read(modparams.DEVICES) is None
