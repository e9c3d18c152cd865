"""The NFS server's alert on the ``nfs_service`` lab recording (health_flows.nfs_service_flow), replayed
strictly: ganesha running, stopped by hand, killed (crashed), started again; knfsd as the image leaves it."""

from __future__ import annotations

from pathlib import Path

from fixtures.appliance.replay import replay

from api.alerts.nfs_service import KEY, nfs_alert
from appliance.control.nfs import backends
from appliance.control.nfs.backends import Backend


def test_service_state_reads_systemctl_show(tmp_path: Path) -> None:
    gw, _, runner = replay("nfs_service", tmp_path)
    states = [backends.service_state(gw, Backend.ganesha) for _ in range(4)]
    assert [(s.active_state, s.sub_state, s.result) for s in states] == [
        ("active", "running", "success"),
        ("inactive", "dead", "success"),
        ("failed", "failed", "signal"),
        ("active", "running", "success"),
    ]
    knfsd = backends.service_state(gw, Backend.knfsd)
    assert knfsd.unit == "nfs-server.service" and knfsd.active_state == "inactive"
    assert runner.pending == []


def test_alert_raised_while_the_chosen_server_is_down_and_cleared_when_it_is_back(tmp_path: Path) -> None:
    gw, _, runner = replay("nfs_service", tmp_path)
    running = nfs_alert(gw, Backend.ganesha, exports=2)
    stopped = nfs_alert(gw, Backend.ganesha, exports=2)
    crashed = nfs_alert(gw, Backend.ganesha, exports=2)
    back = nfs_alert(gw, Backend.ganesha, exports=2)
    assert running is None and back is None
    assert stopped is not None and crashed is not None
    assert stopped.key == crashed.key == KEY and stopped.severity == crashed.severity == "critical"
    assert "nfs-ganesha.service is inactive (dead)" in stopped.message and "ended by" not in stopped.message
    assert "nfs-ganesha.service is failed (failed, ended by signal)" in crashed.message
    assert "2 export(s)" in crashed.message
    # knfsd without exports is never started: no alert, and systemd is not even asked
    assert nfs_alert(gw, Backend.knfsd, exports=0) is None
    assert [c["argv"][-1] for c in runner.pending] == ["nfs-server.service"]
