"""The lab's NTP server (lab.ntp): its chronyd config, the guest's source line, and the VM option that
lets the guest's NTP requests out (restricted user networking drops them)."""

from __future__ import annotations

from pathlib import Path

from lab import ntp
from lab.appliance_vm import ApplianceVm, VmConfig


def test_the_server_serves_loopback_and_never_sets_the_host_clock(tmp_path: Path) -> None:
    conf = ntp.config(tmp_path, 123)
    lines = conf.splitlines()
    for line in ("port 123", "bindaddress 127.0.0.1", "allow 127.0.0.1", "local stratum 8", "cmdport 0"):
        assert line in lines
    assert f"pidfile {tmp_path}/chronyd.pid" in lines and f"driftfile {tmp_path}/chronyd.drift" in lines
    directives = [line.split()[0] for line in lines if line and not line.startswith("#")]
    assert not {"makestep", "rtcsync", "server", "pool", "peer"} & set(directives)  # follows nothing


def test_guest_source_names_the_port_only_when_not_123() -> None:
    assert ntp.guest_sources() == "server 10.0.2.2 iburst\n"
    assert ntp.guest_sources(12300) == "server 10.0.2.2 port 12300 iburst\n"


def test_the_vm_is_restricted_unless_it_must_reach_the_host(tmp_path: Path) -> None:
    def netdev(**extra: bool) -> str:
        config = VmConfig(
            tmp_path / "os.qcow2", tmp_path, tmp_path / "san.sock", [], tmp_path / "key", **extra
        )
        argv = ApplianceVm(config).argv()
        return argv[argv.index("-netdev") + 1]

    assert ",restrict=on," in netdev()
    assert ",restrict=off," in netdev(reach_host=True)
