"""The control service holds the tuning plan, and the zfs device wait where the plan sets none, at start on an
appliance (a release installed), and only there: an appliance upgraded in place from an image without
the modprobe.d file gets it from its new release, and one whose plan lived in modprobe.d alone has it
stored as its plan."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fixtures.upgrade_bundles import manifest_for, payload
from sqlalchemy.orm import Session, sessionmaker
from support.api import make_settings

from api import db
from api.metrics.sampler import hold_tuning_plan
from api.settings import Settings
from api.tuning import service as tuning
from appliance.control import modparams
from appliance.control.files import LocalFiles
from appliance.upgrade import release

PARAM = f"{modparams.SYSFS}/zfs_vdev_open_timeout_ms"
# OpenZFS 2.3's own default (module/os/linux/zfs/vdev_disk.c), what a module loaded without the file has.
MODULE_DEFAULT = "1000\n"
DEVICES_TEXT = (
    "# Written by arcvsa (appliance.control.modparams), which holds it: how long a new partition's\n"
    "# link is waited for (pools.py retries what outlasts it). zfs-arcvsa.conf holds the tuning plan's.\n"
    "options zfs zfs_vdev_open_timeout_ms=10000\n"
)


def _factory(settings: Settings) -> sessionmaker[Session]:
    engine = db.make_engine(settings.database_url)
    db.migrate(engine)
    return db.session_factory(engine)


def appliance(tmp_path: Path) -> tuple[Settings, LocalFiles, sessionmaker[Session]]:
    settings = make_settings(tmp_path / "data", install_root=tmp_path / "opt")
    first = payload(tmp_path / "p1.tar")
    release.install(tmp_path / "opt", manifest_for(first, "v1", 10), first)
    release.switch(tmp_path / "opt", "v1")
    files = LocalFiles(tmp_path / "root")
    settings.data_dir.mkdir(parents=True)
    return settings, files, _factory(settings)


def test_an_appliance_gets_the_wait_live_and_at_module_load(tmp_path: Path) -> None:
    settings, files, factory = appliance(tmp_path)
    files.write(PARAM, MODULE_DEFAULT)
    hold_tuning_plan(settings, factory, files)
    assert files.read(PARAM) == "10000\n"
    assert files.read(modparams.DEVICES) == DEVICES_TEXT
    assert files.read(modparams.MODPROBE) is None  # no plan: no plan's file
    with factory() as s:
        assert tuning.reconcile(files, s) == []  # held: nothing more to do


def test_a_dev_host_is_left_alone(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "data", install_root=tmp_path / "opt")  # no release installed
    settings.data_dir.mkdir(parents=True)
    files = LocalFiles(tmp_path / "root")
    files.write(PARAM, MODULE_DEFAULT)
    hold_tuning_plan(settings, _factory(settings), files)
    assert files.read(PARAM) == MODULE_DEFAULT and files.read(modparams.DEVICES) is None


def test_without_zfs_loaded_the_control_service_still_starts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings, files, factory = appliance(tmp_path)
    hold_tuning_plan(settings, factory, files)  # no /sys/module/zfs: NotFound, logged, not raised
    assert "the tuning plan is not held: no such zfs module parameter" in caplog.text
    assert files.read(modparams.DEVICES) is None


def test_a_wait_the_admin_chose_in_the_tuning_plan_stands(tmp_path: Path) -> None:
    settings, files, factory = appliance(tmp_path)
    files.write(PARAM, MODULE_DEFAULT)
    with factory() as s:
        tuning.apply(files, settings, s, {"zfs_vdev_open_timeout_ms": 30000})  # PUT /api/tuning/parameters
    files.write(modparams.DEVICES, DEVICES_TEXT)  # as an older release left it
    hold_tuning_plan(settings, factory, files)
    assert files.read(PARAM) == "30000\n" and files.read(modparams.DEVICES) is None


def test_a_plan_kept_in_modprobe_d_alone_becomes_the_stored_plan(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An upgrade from a release that kept the plan in its file: the file's values are stored, held, and
    what a backup takes; once stored, the file is the plan's rendering, not its source."""
    settings, files, factory = appliance(tmp_path)
    for name, value in {
        "zfs_txg_timeout": "5\n",
        "zfs_arc_max": "0\n",
        "zfs_vdev_open_timeout_ms": "10000\n",
    }.items():
        files.write(f"{modparams.SYSFS}/{name}", value)
    files.write(modparams.MODPROBE, "# by an older release\noptions zfs zfs_txg_timeout=10\n")
    with caplog.at_level(logging.INFO, logger="api.tuning.service"):
        hold_tuning_plan(settings, factory, files)
    with factory() as s:
        assert tuning.plan(s) == {"zfs_txg_timeout": 10}
    assert "the tuning plan in /etc/modprobe.d/zfs-arcvsa.conf is now stored" in caplog.text
    assert files.read(f"{modparams.SYSFS}/zfs_txg_timeout") == "10\n"
    assert files.read(modparams.MODPROBE) == modparams.HEADER + "options zfs zfs_txg_timeout=10\n"
    files.write(modparams.MODPROBE, "options zfs zfs_txg_timeout=99 zfs_arc_max=1\n")  # an edit by hand
    with factory() as s:
        assert tuning.reconcile(files, s) == [
            "/etc/modprobe.d/zfs-arcvsa.conf rewritten from the tuning plan"
        ]
        assert tuning.plan(s) == {"zfs_txg_timeout": 10}
