"""The log-forwarding drop-in: rendered from the settings, accepted by the host's real rsyslogd -N1 (and a
broken one refused by it), applied idempotently, put back when rsyslog does not restart."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from appliance.control import rsyslog
from appliance.control.errors import CommandFailed, InvalidName
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway, Result

TCP = rsyslog.Forward(host="10.0.2.2", port=6514, transport="tcp", severity="info")
UDP = rsyslog.Forward(host="syslog.example.com", port=514, transport="udp", severity="warning")

GOLDEN_TCP = """\
# Written by arcvsa (appliance.control.rsyslog) from the api's syslog settings: the appliance's logs
# forwarded to the remote syslog server. Changed or removed when those settings are saved.
if $syslogseverity <= 6 then {  # info and more severe
  action(type="omfwd" name="arcvsa-forward" target="10.0.2.2" port="6514"
         protocol="tcp" TCP_Framing="octet-counted" template="RSYSLOG_SyslogProtocol23Format"
         queue.type="LinkedList" queue.filename="arcvsa-forward" queue.size="100000"
         queue.maxDiskSpace="256m" queue.saveOnShutdown="on"
         action.resumeRetryCount="-1" action.resumeInterval="10")
}
"""


def host_rsyslogd() -> None:
    if shutil.which("rsyslogd") is None and not Path("/usr/sbin/rsyslogd").exists():
        pytest.fail("rsyslogd not installed: make setup installs Debian's rsyslog package (mk/ops.mk)")


def test_the_tcp_drop_in_is_the_golden_one() -> None:
    assert rsyslog.render(TCP) == GOLDEN_TCP


def test_udp_has_no_tcp_framing_and_its_own_severity() -> None:
    text = rsyslog.render(UDP)
    assert 'protocol="udp"' in text and "TCP_Framing" not in text
    assert "if $syslogseverity <= 4 then" in text and 'target="syslog.example.com"' in text


@pytest.mark.parametrize("severity", rsyslog.SEVERITIES)
def test_each_severity_keeps_itself_and_the_more_severe(severity: rsyslog.Severity) -> None:
    level = rsyslog.SEVERITIES.index(severity)
    text = rsyslog.render(TCP.model_copy(update={"severity": severity}))
    assert f"if $syslogseverity <= {level} then" in text  # 0 emerg ... 7 debug, as RFC 5424 numbers them


@pytest.mark.parametrize("host", ['10.0.0.1" protocol="udp', "host\nname", "", "-x", "a b", "h\\"])
def test_a_host_that_could_break_the_config_is_refused(host: str) -> None:
    with pytest.raises(InvalidName):
        rsyslog.render(TCP.model_copy(update={"host": host}))


@pytest.mark.parametrize(
    "forward", [TCP, UDP, TCP.model_copy(update={"host": "fd00::2", "severity": "debug"})]
)
def test_the_host_rsyslogd_accepts_the_drop_in(forward: rsyslog.Forward) -> None:
    host_rsyslogd()
    rsyslog.check(Gateway(), rsyslog.render(forward))  # the real tool, as the appliance runs it


def test_the_host_rsyslogd_refuses_a_broken_drop_in() -> None:
    host_rsyslogd()
    broken = rsyslog.render(TCP).replace('protocol="tcp"', 'protocol="sctp"')
    with pytest.raises(CommandFailed, match="invalid protocol"):
        rsyslog.check(Gateway(), broken)


class Systemd:
    """rsyslogd -N1 and systemctl restart as the appliance answers them; the restart can be made to fail."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.restart_fails = False

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        self.calls.append(list(argv))
        if argv[0] == "rsyslogd":
            return Result(tuple(argv), 0, "", "rsyslogd: End of config validation run. Bye.\n")
        if argv == ["systemctl", "restart", rsyslog.UNIT] and self.restart_fails:
            stderr = "Job for rsyslog.service failed because the control process exited with error code.\n"
            return Result(tuple(argv), 1, "", stderr)
        assert argv == ["systemctl", "restart", rsyslog.UNIT], argv
        return Result(tuple(argv), 0, "", "")


CHECK = ["rsyslogd", "-N1", "-f", "/dev/stdin"]
RESTART = ["systemctl", "restart", rsyslog.UNIT]


def test_apply_is_idempotent_and_off_removes_the_drop_in_and_its_queue(tmp_path: Path) -> None:
    systemd, files = Systemd(), LocalFiles(tmp_path)
    gw = Gateway(systemd)
    assert rsyslog.apply(gw, files, None) is False and systemd.calls == []  # off and nothing there
    assert rsyslog.apply(gw, files, TCP) is True
    assert files.read(rsyslog.DROP_IN) == GOLDEN_TCP and systemd.calls == [CHECK, RESTART]
    assert rsyslog.apply(gw, files, TCP) is False and len(systemd.calls) == 2  # unchanged: no restart
    files.write(f"{rsyslog.SPOOL}/arcvsa-forward.qi", "saved queue")
    files.write(f"{rsyslog.SPOOL}/other.qi", "someone else's")
    assert rsyslog.apply(gw, files, None) is True
    assert files.read(rsyslog.DROP_IN) is None and systemd.calls[-1] == RESTART
    assert files.listdir(rsyslog.SPOOL) == ["other.qi"]


def test_a_failed_restart_puts_the_previous_drop_in_back(tmp_path: Path) -> None:
    systemd, files = Systemd(), LocalFiles(tmp_path)
    gw = Gateway(systemd)
    rsyslog.apply(gw, files, TCP)
    systemd.restart_fails = True
    with pytest.raises(CommandFailed, match=r"rsyslog\.service failed"):
        rsyslog.apply(gw, files, UDP)
    assert files.read(rsyslog.DROP_IN) == GOLDEN_TCP  # the logs go where they went
    assert systemd.calls[-3:] == [CHECK, RESTART, RESTART]  # the failed one, then the one after putting back
    with pytest.raises(CommandFailed):
        rsyslog.apply(gw, files, None)
    assert files.read(rsyslog.DROP_IN) == GOLDEN_TCP
