"""The published state: one file, this boot's only, replaced whole; parts merged; a stale state alerted."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path

import pytest
from support.api import client_for, make_settings

from api import errors as api_errors
from api.alerts import service as alerts
from api.alerts.schemas import Alert
from api.state import poll, snapshot
from api.state.snapshot import Published, Store
from appliance.control.errors import CommandFailed, CommandTimeout, NotFound, ServiceDown, SystemFault
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway
from appliance.control.observed import Failure, Observed, Part
from appliance.control.pools import ZfsPoolHealth, ZfsPoolSpace

T0 = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.UTC)
ALERT = Alert(key="pool/tank/degraded", severity="warning", subject="pool tank", message="degraded")


def _pool(name: str, state: str = "ONLINE") -> ZfsPoolHealth:
    return ZfsPoolHealth.model_validate(
        {
            "name": name,
            "state": state,
            "status": None,
            "action": None,
            "scan": None,
            "error_count": 0,
            "vdevs": [],
        }
    )


def _published(observed: Observed | None = None, *, boot: str | None = None, **fields: object) -> Published:
    return Published(
        boot_id=boot if boot is not None else snapshot.boot_id(),
        taken_at=fields.pop("taken_at", T0),  # type: ignore[arg-type]
        observed=observed or Observed(),
        **fields,  # type: ignore[arg-type]
    )


def test_a_written_snapshot_is_read_back_and_parsed_once_per_version(tmp_path: Path) -> None:
    store = Store(tmp_path / "state.json")
    assert store.read() is None  # nothing published yet
    with store.writing():
        store.write(_published(Observed(pools=[_pool("tank")])))
    first = store.read()
    assert first is not None and [p.name for p in first.observed.pools or []] == ["tank"]
    assert store.read() is first  # the same file: not parsed again
    with store.writing():
        store.write(_published(Observed(pools=[_pool("tank"), _pool("tank2")])))
    second = store.read()
    assert second is not first and [p.name for p in second.observed.pools or []] == ["tank", "tank2"]


def test_another_boots_or_a_torn_snapshot_is_not_served(tmp_path: Path) -> None:
    store = Store(tmp_path / "state.json")
    with store.writing():
        store.write(_published(boot="an-earlier-boot"))
    assert store.read() is None
    (tmp_path / "state.json").write_text('{"version": 1, "boot_id": "')  # cut by a power cut
    assert store.read() is None
    with store.writing():
        store.write(_published(version=2))
    assert store.read() is None  # another release's format


def test_writers_hold_one_lock_between_threads(tmp_path: Path) -> None:
    """A pass that started first publishes first: the second writer waits for the lock."""
    store, order = Store(tmp_path / "state.json"), []
    inside = threading.Event()

    def first() -> None:
        with store.writing():
            inside.set()
            order.append("first in")
            threading.Event().wait(0.3)
            order.append("first out")

    thread = threading.Thread(target=first)
    thread.start()
    inside.wait(5)
    with store.writing():
        order.append("second in")
    thread.join()
    assert order == ["first in", "first out", "second in"]


def test_a_refresh_replaces_only_its_parts() -> None:
    before = Observed(
        pools=[_pool("tank")],
        spaces=[ZfsPoolSpace(name="tank")],
        failures={Part.nfs: Failure(error="ServiceDown", message="ganesha is not running")},
    )
    newer = Observed(pools=[_pool("tank", "DEGRADED")], spaces=[ZfsPoolSpace(name="tank")], disks=[])
    merged = before.merged(newer, [Part.pools])
    assert merged.pools == newer.pools and merged.disks is None  # disks not asked for: not taken
    assert Part.nfs in merged.failures  # another part's failure stays
    cleared = merged.merged(Observed(), [Part.nfs])
    assert Part.nfs not in cleared.failures and cleared.nfs is None


def test_a_failed_part_raises_its_own_error_again() -> None:
    observed = Observed(
        failures={Part.disks: Failure.of(ServiceDown("lsblk hung"))},
        pools=[_pool("tank")],
        pool_failures={"tank2": Failure.of(SystemFault("zpool status hung"))},
    )
    with pytest.raises(ServiceDown, match="lsblk hung"):
        observed.part(Part.disks, observed.disks)
    with pytest.raises(SystemFault, match="not been read yet"):
        observed.part(Part.imports, observed.imports)  # never observed
    assert observed.pool("tank").name == "tank"
    with pytest.raises(SystemFault, match="zpool status hung"):
        observed.pool("tank2")
    with pytest.raises(NotFound):
        observed.pool("tank3")


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (CommandTimeout(["zpool", "status", "-j"], 30.0, ""), (504, "command_timeout")),
        (CommandFailed(["zpool", "status", "-j"], 1, "no such pool"), (502, "system_fault")),
    ],
)
def test_a_published_command_error_keeps_its_class_and_words(
    error: SystemFault, status: tuple[int, str]
) -> None:
    failure = Failure.of(error)
    with pytest.raises(type(error)) as raised:
        failure.raise_()
    assert str(raised.value) == str(error) and api_errors.lookup(raised.value) == status


@pytest.mark.parametrize(
    ("age", "stale"),
    [(59, False), (60, False), (61, True), (3600, True)],
)
def test_a_state_older_than_a_minute_of_passes_is_a_critical_alert(
    tmp_path: Path, age: int, stale: bool
) -> None:
    published = _published(alerts=[ALERT], polled_at=T0)
    now = T0 + dt.timedelta(seconds=age)
    found = alerts.served(published, tmp_path, interval=10.0, now=now)
    keys = [a.key for a in found]
    assert ("state/stale" in keys) is stale and ALERT.key in keys
    if stale:
        assert found[0].key == "state/stale" and f"{age} s ago" in found[0].message


def test_the_stale_limit_grows_with_the_interval_and_a_change_does_not_hide_it(tmp_path: Path) -> None:
    slow = _published(polled_at=T0, taken_at=T0 + dt.timedelta(seconds=170))  # a change refreshed a part
    keys = [a.key for a in alerts.served(slow, tmp_path, interval=30.0, now=T0 + dt.timedelta(seconds=179))]
    assert keys == []  # 6 passes of 30 s: 180 s
    keys = [a.key for a in alerts.served(slow, tmp_path, interval=30.0, now=T0 + dt.timedelta(seconds=181))]
    assert keys == ["state/stale"]
    assert alerts.served(None, tmp_path, interval=10.0, now=T0) == []


def test_only_a_full_pass_counts_as_polled(tmp_path: Path) -> None:
    """A change's refresh of its own parts keeps the poller's time: it never hides a poller that stopped."""
    client = client_for(make_settings(tmp_path / "data"))
    state = client.app.state  # type: ignore[attr-defined]
    files = LocalFiles(tmp_path / "empty")  # no /proc/uptime: the clock part runs no tool
    with state.snapshot.writing():
        state.snapshot.write(_published(polled_at=T0))
    gw = Gateway(NoTool())
    partial = poll.refresh(state.snapshot, gw, files, state.sessionmaker, state.settings, [Part.clock])
    assert partial.polled_at == T0 and partial.taken_at > T0


class NoTool:
    """A runner for parts that must start no tool."""

    def execute(self, argv: object, *, timeout: float, input_text: str | None = None) -> object:
        raise AssertionError(f"ran {argv}")
