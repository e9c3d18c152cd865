"""The clock's alert on the ``timesync`` lab recording (health_flows.timesync_flow), replayed strictly:
chrony following no source past the grace period after boot, following the host's lab NTP server
(lab.ntp), then chronyd stopped. Each state is /proc/uptime then ``chronyc -c tracking``: the clock is
observed (appliance.control.observed) and published as JSON, and the alert is derived from that state
as published, with the uptime of the moment (the grace after boot)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance.replay import ReplayRunner, load, replay_log

from api.alerts.timesync import GRACE_SECONDS, KEY, MAX_OFFSET_SECONDS, timesync_alert
from appliance.control import chrony
from appliance.control.errors import BadOutput, ServiceDown
from appliance.control.files import Files, LocalFiles
from appliance.control.gateway import Gateway
from appliance.control.observed import Observed, Part, observe
from lab import ntp


def _recorded_tracking() -> list[dict[str, Any]]:
    return [c for c in load("timesync")["commands"] if c["argv"] == chrony.TRACKING]


def _published(gw: Gateway, files: Files) -> Observed:
    """The clock as a pass observes it, through the JSON the state is published in."""
    return Observed.model_validate_json(observe(gw, files, {Part.clock}).model_dump_json())


def _recorded_uptimes() -> list[str]:
    return [e["text"] for e in load("timesync")["read_log"] if e["path"] == chrony.UPTIME]


def test_tracking_reads_chronyc_csv_and_a_stopped_chronyd(tmp_path: Path) -> None:
    gw, files, runner = replay_log("timesync", tmp_path)
    uptimes = []
    states = []
    for _ in range(2):
        uptimes.append(chrony.uptime(files))
        states.append(chrony.tracking(gw))
    unsynced, synced = states
    assert not unsynced.synchronised and unsynced.stratum == 0 and unsynced.reference_time == 0
    assert unsynced.leap_status == "Not synchronised"
    assert synced.synchronised and synced.leap_status == "Normal"
    assert synced.reference == ntp.GUEST_HOST and synced.stratum == ntp.STRATUM + 1
    assert synced.reference_time > 0 and abs(synced.offset) < MAX_OFFSET_SECONDS
    uptimes.append(chrony.uptime(files))
    with pytest.raises(ServiceDown, match="chronyd is not running"):
        chrony.tracking(gw)
    assert all(u is not None and u >= GRACE_SECONDS for u in uptimes) and uptimes == sorted(uptimes)
    assert runner.pending == []


def test_alert_raised_without_a_source_cleared_when_synchronised_raised_when_chronyd_stops(
    tmp_path: Path,
) -> None:
    gw, _, runner = replay_log("timesync", tmp_path / "replay")
    found = []
    for i, uptime in enumerate(_recorded_uptimes()):  # each state with the uptime recorded with it
        files = LocalFiles(tmp_path / str(i))
        files.write(chrony.UPTIME, uptime)
        found.append(timesync_alert(_published(gw, files), files))
    no_source, synced, stopped = found
    assert synced is None
    assert no_source is not None and stopped is not None
    assert no_source.key == stopped.key == KEY and no_source.severity == stopped.severity == "warning"
    assert "follows no NTP source (none answered since it started)" in no_source.message
    assert "ntp_servers" in no_source.message
    assert "chronyd is not running" in stopped.message  # the stop's ServiceDown kept through the JSON
    assert runner.pending == []


def test_no_alert_within_the_grace_period_nor_without_proc_uptime(tmp_path: Path) -> None:
    gw, _, runner = replay_log("timesync", tmp_path / "replay")
    booting = LocalFiles(tmp_path / "booting")
    booting.write(chrony.UPTIME, "42.17 80.03\n")
    unsynced = _published(gw, booting)
    assert unsynced.clock is not None and not unsynced.clock.synchronised
    assert timesync_alert(unsynced, booting) is None  # the recorded "Not synchronised", 42 s after boot
    later = _uptime(tmp_path / "later", GRACE_SECONDS + 1)
    assert timesync_alert(unsynced, later) is not None  # the same state past the grace: warned of
    empty = LocalFiles(tmp_path / "empty")
    assert _published(gw, empty) == Observed()  # not an appliance: chronyc not even asked
    assert timesync_alert(unsynced, empty) is None
    assert timesync_alert(Observed(), later) is None  # the clock not observed yet: nothing to say
    assert len(runner.calls) == 1


def _answering(stdout: str, exit_code: int = 0) -> Gateway:
    return Gateway(
        ReplayRunner(
            {"commands": [{"argv": chrony.TRACKING, "exit_code": exit_code, "stdout": stdout, "stderr": ""}]}
        )
    )


def _uptime(tmp_path: Path, seconds: float = 3600.0) -> LocalFiles:
    files = LocalFiles(tmp_path)
    files.write(chrony.UPTIME, f"{seconds:.2f} 1.00\n")
    return files


def test_a_clock_off_by_more_than_a_second_is_warned_of(tmp_path: Path) -> None:
    """The recorded synchronised line with its System time field set 2.5 s off (the lab's clock is the
    host's, a few microseconds apart: no clock that far off was recorded)."""
    synced = next(c["stdout"] for c in _recorded_tracking() if c["stdout"].rstrip().endswith(",Normal"))
    fields = synced.strip().split(",")
    fields[4] = "-2.500000000"
    files = _uptime(tmp_path)
    alert = timesync_alert(_published(_answering(",".join(fields) + "\n"), files), files)
    assert alert is not None and alert.key == KEY
    assert f"2.500 s off NTP time (source {ntp.GUEST_HOST})" in alert.message
    fields[4] = "-1.000000000"  # a second off at most: chronyd slews that away unremarked
    assert timesync_alert(_published(_answering(",".join(fields) + "\n"), files), files) is None


@pytest.mark.parametrize(
    "stdout",
    [
        "",
        "Reference ID    : 00000000 ()\nStratum         : 0\n",  # the human format, not -c
        "00000000,,zero,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1.0,1.0,0.0,Not synchronised\n",
        "00000000,,0,0.0,0.0,0.0\n",
    ],
)
def test_unparseable_tracking_is_bad_output_and_alerts_as_unreadable(tmp_path: Path, stdout: str) -> None:
    with pytest.raises(BadOutput):
        chrony.parse_tracking(stdout)
    files = _uptime(tmp_path)
    alert = timesync_alert(_published(_answering(stdout), files), files)
    assert alert is not None and alert.message.startswith(
        "chronyd's state could not be read: chronyc tracking"
    )


def test_another_chronyc_failure_is_not_taken_for_a_stopped_chronyd(tmp_path: Path) -> None:
    files = _uptime(tmp_path)
    alert = timesync_alert(_published(_answering("501 Not authorised\n", exit_code=1), files), files)
    assert (
        alert is not None and "could not be read" in alert.message and "501 Not authorised" in alert.message
    )


def test_an_unreadable_uptime_is_bad_output(tmp_path: Path) -> None:
    files = LocalFiles(tmp_path)
    files.write(chrony.UPTIME, "soon\n")
    with pytest.raises(BadOutput):
        chrony.uptime(files)
