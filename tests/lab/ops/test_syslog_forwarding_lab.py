"""Issue 9, log forwarding: the booted appliance's own logs reach a real rsyslogd on the host.

Debian's rsyslogd runs on the host in the foreground with a temporary config (imtcp and imudp on free
loopback ports, every message to a file). The appliance is told through its api to forward its logs to
10.0.2.2 (the host's loopback as qemu user networking shows it to the guest; the VM boots with
restrict=off, or nothing of the guest's would leave it). Then: the api's journal line about that request
arrives, a marker written with ``logger`` in the guest arrives (the time from logger to the
host's file is printed), one written while the host's rsyslogd is down arrives once it is back (TCP,
the action's queue retries), the same over UDP; after forwarding is turned off a last marker does not.
"""

from __future__ import annotations

import shutil
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance.remote import SshRunner
from support import polling
from support.lab_api import LabApi, in_guest
from support.lab_boot import BootedAppliance, boot
from support.notify_servers import free_port

from appliance.control import rsyslog
from lab.daemon import Daemon, spawn
from lab.san import San

pytestmark = [pytest.mark.lab, pytest.mark.timeout(1800)]

HOST = "10.0.2.2"  # the host as qemu user networking shows it to the guest
NOTIFY = "/api/settings/notifications"
QUIET_SECONDS = 20  # how long a marker that must not arrive is waited for
# One field per part of the message, the host's receive time first (split on "|", the message last).
TEMPLATE = (
    "%timegenerated:::date-rfc3339%|%timereported:::date-rfc3339%|%syslogfacility-text%|"
    "%syslogseverity-text%|%hostname%|%app-name%|%msg%\\n"
)


class Receiver:
    """The host's rsyslogd: imtcp and imudp on free loopback ports, what it receives in one file."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.tcp_port, self.udp_port = free_port(), free_port(socket.SOCK_DGRAM)
        self.out = folder / "received.log"
        self.conf = folder / "rsyslog.conf"
        self.conf.write_text(
            f'global(workDirectory="{folder}")\n'
            'module(load="imtcp")\nmodule(load="imudp")\n'
            f'input(type="imtcp" address="127.0.0.1" port="{self.tcp_port}")\n'
            f'input(type="imudp" address="127.0.0.1" port="{self.udp_port}")\n'
            f'template(name="fields" type="string" string="{TEMPLATE}")\n'
            f'*.* action(type="omfile" file="{self.out}" template="fields")\n',
            encoding="utf-8",
        )
        self.daemon: Daemon | None = None

    def start(self) -> None:
        binary = shutil.which("rsyslogd") or "/usr/sbin/rsyslogd"
        if not Path(binary).exists():
            pytest.fail("rsyslogd not installed: make setup installs Debian's rsyslog package (mk/ops.mk)")
        argv = [binary, "-n", "-f", str(self.conf), "-i", str(self.folder / "rsyslogd.pid")]
        self.daemon = spawn(argv, log=self.folder / "rsyslogd.log", marker=str(self.conf), tied=True)

        def listening() -> bool | None:
            assert self.daemon is not None and self.daemon.alive(), self.log()
            try:
                socket.create_connection(("127.0.0.1", self.tcp_port), timeout=0.5).close()
                return True
            except OSError:
                return None

        polling.wait("host rsyslogd listening", listening, timeout=15, every=0.1)

    def stop(self) -> None:
        if self.daemon is not None:
            self.daemon.stop()
            self.daemon = None

    def lines(self) -> list[list[str]]:
        text = self.out.read_text(encoding="utf-8", errors="replace") if self.out.exists() else ""
        return [line.split("|", 6) for line in text.splitlines()]

    def find(self, text: str) -> list[str] | None:
        """The first received message whose text holds ``text``."""
        return next((f for f in self.lines() if len(f) == 7 and text in f[6]), None)

    def log(self) -> str:
        path = self.folder / "rsyslogd.log"
        return path.read_text(encoding="utf-8", errors="replace")[-3000:] if path.exists() else ""


@pytest.fixture(scope="module")
def booted(
    lab_image: tuple[Path, Path], san: San, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BootedAppliance]:
    """The appliance able to reach the host (restrict=off: the lab's default VM reaches nothing outside)."""
    image, key = lab_image
    appliance = boot(image, key, san, tmp_path_factory.mktemp("vm"), reach_host=True)
    try:
        print(f"boot to SSH: {appliance.vm.wait_ssh(timeout=300):.1f} s")
        yield appliance
    finally:
        appliance.vm.shutdown(timeout=120)


@pytest.fixture(scope="module")
def receiver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Receiver]:
    server = Receiver(tmp_path_factory.mktemp("rsyslog"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def settings(**syslog: Any) -> dict[str, Any]:
    return {"smtp": {}, "syslog": {"enabled": False, "host": HOST, **syslog}}


@pytest.fixture(scope="module")
def forwarding(api: LabApi) -> Iterator[LabApi]:
    """The api, with forwarding turned off again whatever the test left."""
    yield api
    api.raw("PUT", NOTIFY, settings(forward_logs=False))


def logger(guest: SshRunner, text: str, *, priority: str = "user.notice") -> float:
    """Write ``text`` to the guest's journal with logger; the host's monotonic time just before."""
    started = time.monotonic()
    in_guest(guest, ["logger", "-t", "arcvsa-lab", "-p", priority, text], timeout=60)
    return started


def test_the_appliance_runs_rsyslog(guest: SshRunner) -> None:
    assert in_guest(guest, ["systemctl", "is-active", rsyslog.UNIT]).stdout.strip() == "active"
    print(in_guest(guest, ["rsyslogd", "-v"]).stdout.splitlines()[0])


def test_the_appliance_logs_arrive_and_stop_when_turned_off(
    forwarding: LabApi, guest: SshRunner, receiver: Receiver
) -> None:
    api = forwarding
    started = time.monotonic()
    saved = api.call("PUT", NOTIFY, settings(port=receiver.tcp_port, transport="tcp", forward_logs=True))
    print(f"\nsettings saved (drop-in checked, rsyslog restarted) in {time.monotonic() - started:.2f} s")
    assert saved["syslog"]["forward_logs"] is True and saved["syslog"]["forward_severity"] == "info"
    drop_in = in_guest(guest, ["cat", rsyslog.DROP_IN]).stdout
    assert f'target="{HOST}" port="{receiver.tcp_port}"' in drop_in

    # the api's own journal line about the request (uvicorn's access line, logged after rsyslog restarted)
    api_line = polling.wait(
        "the api's journal line",
        lambda: receiver.find("PUT /api/settings/notifications"),
        timeout=60,
        every=0.2,
    )
    print(f"api line: host {api_line[4]} app {api_line[5]} {api_line[2]}.{api_line[3]}: {api_line[6]}")

    marker = f"arcvsa-lab-marker-{uuid.uuid4()}"
    sent = logger(guest, marker)
    got = polling.wait("the logger marker (tcp)", lambda: receiver.find(marker), timeout=60, every=0.05)
    print(f"logger -> host file over tcp: {time.monotonic() - sent:.2f} s (ssh included); fields {got[:6]}")
    assert got[5] == "arcvsa-lab" and got[2] == "user" and got[3] == "notice"

    # a kernel line (imklog): userspace writes to /dev/kmsg carry the user facility and imklog drops them,
    # so the kernel is made to log itself: sysrq's help, printed at info by the kernel
    before = len(receiver.lines())
    wrote = guest.execute(["dd", "of=/proc/sysrq-trigger", "status=none"], timeout=60, input_text="h")
    assert wrote.exit_code == 0, wrote.stderr

    def kernel_line() -> list[str] | None:
        return next((f for f in receiver.lines()[before:] if len(f) == 7 and "sysrq" in f[6]), None)

    found = polling.wait("a kernel line", kernel_line, timeout=60, every=0.2)
    print(f"kernel line: {found[2]}.{found[3]} app {found[5]}: {found[6][:60]}")
    assert found[2] == "kern"

    # the host's server goes away for a while: what is logged meanwhile arrives once it is back
    receiver.stop()
    time.sleep(2)
    outage = [f"arcvsa-lab-outage-{i}-{uuid.uuid4()}" for i in range(5)]
    for text in outage:
        logger(guest, text)
        time.sleep(1)
    receiver.start()
    back = time.monotonic()

    def missing() -> list[str]:
        return [t for t in outage if receiver.find(t) is None]

    try:
        polling.wait(
            "every marker logged during the outage",
            lambda: True if not missing() else None,
            timeout=120,
            every=0.2,
        )
        print(f"outage of ~7 s: all {len(outage)} markers arrived {time.monotonic() - back:.1f} s after")
    except AssertionError:
        lost = missing()
        print(f"outage: {len(lost)} of {len(outage)} markers lost: {lost}")
        assert not lost, "a marker logged while the server was down never arrived"

    # UDP, warning and more severe: a notice is filtered out, a warning arrives
    api.call(
        "PUT",
        NOTIFY,
        settings(port=receiver.udp_port, transport="udp", forward_logs=True, forward_severity="warning"),
    )
    quiet, loud = f"arcvsa-lab-notice-{uuid.uuid4()}", f"arcvsa-lab-warning-{uuid.uuid4()}"
    logger(guest, quiet)
    sent = logger(guest, loud, priority="user.warning")
    polling.wait("the warning marker (udp)", lambda: receiver.find(loud), timeout=60, every=0.05)
    print(f"logger -> host file over udp: {time.monotonic() - sent:.2f} s (ssh included)")
    assert receiver.find(quiet) is None  # below the minimum severity

    # off: the drop-in goes, nothing more arrives
    off = api.call("PUT", NOTIFY, settings(port=receiver.udp_port, transport="udp", forward_logs=False))
    assert off["syslog"]["forward_logs"] is False
    assert guest.execute(["test", "-e", rsyslog.DROP_IN], timeout=60).exit_code == 1
    after = f"arcvsa-lab-after-{uuid.uuid4()}"
    logger(guest, after, priority="user.err")
    time.sleep(QUIET_SECONDS)
    assert receiver.find(after) is None, "a marker arrived after forwarding was turned off"
    print(f"after off: nothing in {QUIET_SECONDS} s; {len(receiver.lines())} messages received in all")
