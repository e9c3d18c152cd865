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
    """The zedlet as written, its events' folder moved below ``tmp_path``."""
    events = tmp_path / "run/arcvsa-zfs-events"
    script = tmp_path / "all-arcvsa-wake.sh"
    script.write_text(zed.ZEDLET_TEXT.replace(zed.EVENTS, str(events)), encoding="utf-8")
    script.chmod(0o755)
    return script, events


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
    script, events = _zedlet(tmp_path)
    env = {"PATH": os.environ["PATH"], "ZEVENT_EID": "41", "ZEVENT_SUBCLASS": subclass}
    run([str(script)], timeout=10, env=env)
    left = {p.name: p.read_text(encoding="utf-8") for p in events.iterdir()} if events.exists() else {}
    assert left == ({"41": f"{subclass}\n"} if woken else {})


def test_zedlets_finishing_out_of_order_lose_no_event(tmp_path: Path) -> None:
    """A short scrub's end can be written before its start: both stay, each in its own file."""
    script, _ = _zedlet(tmp_path)
    for eid, subclass in (("60", "scrub_finish"), ("59", "scrub_start")):
        env = {"PATH": os.environ["PATH"], "ZEVENT_EID": eid, "ZEVENT_SUBCLASS": subclass}
        run([str(script)], timeout=10, env=env)
    assert zed.take_events(LocalFiles(tmp_path)) == ["59 scrub_start", "60 scrub_finish"]


def test_events_are_taken_in_id_order_once(tmp_path: Path) -> None:
    files = LocalFiles(tmp_path)
    assert zed.take_events(files) == []  # none yet this boot: the folder is not there
    files.write("/run/arcvsa-zfs-events/10", "statechange\n")
    files.write("/run/arcvsa-zfs-events/9", "vdev_remove\n")
    files.write("/run/arcvsa-zfs-events/100", "")  # read while its zedlet was still writing it
    assert zed.take_events(files) == ["9 vdev_remove", "10 statechange", "100"]  # numbers, not text
    assert zed.take_events(files) == []  # taken: the files are gone
    files.write("/run/arcvsa-zfs-events/101", "scrub_finish\n")
    assert zed.take_events(files) == ["101 scrub_finish"]


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
