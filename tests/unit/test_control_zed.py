"""ZFS events wake the poller (appliance.control.zed): the zedlet run by /bin/sh as ZED runs it, with the
environment ZED gives it; the poller's start putting it in place."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest
from fixtures.appliance.replay import ReplayRunner, UnrecordedCommand

from appliance.control import zed
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway
from process import run


def _zedlet(tmp_path: Path) -> tuple[Path, Path]:
    """The zedlet as written, its event file moved below ``tmp_path``."""
    event = tmp_path / "event"
    script = tmp_path / "all-arcvsa-wake.sh"
    script.write_text(zed.ZEDLET_TEXT.replace(zed.EVENT, str(event)), encoding="utf-8")
    script.chmod(0o755)
    return script, event


@pytest.mark.parametrize(
    ("subclass", "woken"),
    [
        ("statechange", True),
        ("scrub_finish", True),
        ("resilver_finish", True),
        ("io", True),
        ("pool_import", True),
        ("history_event", False),  # every zfs create or set: the api refreshes what it changed itself
        ("config_sync", False),
    ],
)
def test_the_zedlet_leaves_each_event_but_arcvsas_own_commands(
    tmp_path: Path, subclass: str, woken: bool
) -> None:
    script, event = _zedlet(tmp_path)
    env = {"PATH": os.environ["PATH"], "ZEVENT_EID": "41", "ZEVENT_SUBCLASS": subclass}
    run([str(script)], timeout=10, env=env)
    assert (event.read_text(encoding="utf-8") if event.exists() else None) == (
        f"41 {subclass}\n" if woken else None
    )


def test_the_last_event_is_what_the_zedlet_left(tmp_path: Path) -> None:
    files = LocalFiles(tmp_path)
    assert zed.last_event(files) is None  # none yet this boot
    files.write("/run/arcvsa-zfs-event", "41 statechange\n")
    assert zed.last_event(files) == "41 statechange"


def test_the_zedlet_is_put_in_place_once_and_zed_restarted_for_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    files = LocalFiles(tmp_path)
    runner = ReplayRunner({"commands": []})  # no answer: the request itself is what is checked
    with pytest.raises(UnrecordedCommand):
        zed.hold_zedlet(Gateway(runner), files)
    assert runner.calls == [["systemctl", "try-restart", "zfs-zed.service"]]
    written = tmp_path / "etc/zfs/zed.d/all-arcvsa-wake.sh"  # all-*: ZED runs it for every event
    assert written.read_text(encoding="utf-8") == zed.ZEDLET_TEXT
    assert stat.S_IMODE(written.stat().st_mode) == 0o755  # ZED runs no zedlet others may write
    runner = ReplayRunner({"commands": []})
    with caplog.at_level(logging.INFO, logger="appliance.control.zed"):
        zed.hold_zedlet(Gateway(runner), files)
    assert runner.calls == [] and not caplog.records  # in place: ZED left alone, nothing said
