"""The NFS server's alert on the ``nfs_service`` lab recording (health_flows.nfs_service_flow), replayed
strictly: ganesha running, stopped by hand, killed (crashed), started again; knfsd as the image leaves it."""

from __future__ import annotations

from pathlib import Path

from fixtures.appliance.replay import ReplayRunner, load, replay

from api.alerts.nfs_service import KEY, nfs_alert
from appliance.control.errors import ServiceDown
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway
from appliance.control.nfs import backends
from appliance.control.nfs.backends import Backend
from appliance.control.observed import Failure, Observed, Part, observe


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


def _each_state(tmp_path: Path) -> tuple[list[Observed], list[str]]:
    """The services as four passes observe them (through the JSON they are published in): ganesha in each
    recorded state, knfsd as the image leaves it (its one recorded answer, for every pass: it was never
    started); and what is left of the recording."""
    recording = load("nfs_service")
    knfsd = next(c for c in recording["commands"] if c["argv"][-1] == "nfs-server.service")
    runner = ReplayRunner({"commands": [*recording["commands"], knfsd, knfsd, knfsd]})
    gw = Gateway(runner)
    passes = [
        Observed.model_validate_json(observe(gw, LocalFiles(tmp_path), {Part.services}).model_dump_json())
        for _ in range(4)
    ]
    return passes, [c["argv"][-1] for c in runner.pending]


def test_alert_raised_while_the_chosen_server_is_down_and_cleared_when_it_is_back(tmp_path: Path) -> None:
    passes, left = _each_state(tmp_path)
    assert left == []
    running, stopped, crashed, back = (nfs_alert(p.services, Backend.ganesha, exports=2) for p in passes)
    assert running is None and back is None
    assert stopped is not None and crashed is not None
    assert stopped.key == crashed.key == KEY and stopped.severity == crashed.severity == "critical"
    assert "nfs-ganesha.service is inactive (dead)" in stopped.message and "ended by" not in stopped.message
    assert "nfs-ganesha.service is failed (failed, ended by signal)" in crashed.message
    assert "2 export(s)" in crashed.message
    # the stopped knfsd is what the chosen server's alert looks at once knfsd is chosen ...
    knfsd = nfs_alert(passes[0].services, Backend.knfsd, exports=1)
    assert knfsd is not None and "nfs-server.service is inactive (dead)" in knfsd.message
    # ... but without exports knfsd is never started: no alert
    assert nfs_alert(passes[0].services, Backend.knfsd, exports=0) is None
    assert nfs_alert(passes[1].services, Backend.ganesha, exports=0) is None


def test_an_unread_service_is_critical_and_an_unobserved_one_says_nothing(tmp_path: Path) -> None:
    running = _each_state(tmp_path)[0][0].services
    assert running is not None
    failed = Failure.of(ServiceDown("systemd is not answering on DBus"))
    unread = nfs_alert({**running, Backend.ganesha: failed}, Backend.ganesha, exports=2)
    assert unread is not None and unread.severity == "critical" and unread.key == KEY
    assert unread.message == "the NFS server's state could not be read: systemd is not answering on DBus"
    assert nfs_alert(None, Backend.ganesha, exports=2) is None  # services not observed yet
    # a backend chosen since the last pass: only the other one observed, nothing to say of this one yet
    assert nfs_alert({Backend.ganesha: running[Backend.ganesha]}, Backend.knfsd, exports=2) is None
