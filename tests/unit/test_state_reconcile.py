"""The poller's reconcile (api.state.reconcile): the stored exports brought back into the running server on
real recorded ganesha answers, nothing else touched; a noun that cannot converge kept and alerted.

The answers are the ganesha recording's (ShowExports before and after export 101 was added, its AddExport)
and api_exports' (ShowExports while ganesha was stopped), each replayed strictly.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance import api_flows
from fixtures.appliance.replay import FirewallAnswers, ReplayRunner, load, replay_log
from sqlalchemy.orm import Session, sessionmaker
from support.any_recording import AnyRecordingRunner, every_recording
from support.api import client_for, make_settings
from support.nfs_exports import export

from api.alerts.drift import drift_alerts
from api.exports import service as exports
from api.metrics import sampler
from api.settings import Settings
from api.state import reconcile
from api.tuning import service as tuning
from api.tuning.table import ZfsParameter
from appliance.control import modparams
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway
from appliance.control.nfs import ganesha
from appliance.control.observed import Failure
from appliance.control.reconciled import Noun, Reconciled

T0 = dt.datetime(2026, 11, 29, 1, 0, tzinfo=dt.UTC)


def _answers(scenario: str, *indexes: int) -> ReplayRunner:
    """A strict replay of some of a recording's answers, in their order."""
    commands = load(scenario)["commands"]
    return ReplayRunner({"commands": [commands[i] for i in indexes]})


def _listed(stdout: str) -> list[int]:
    """The export ids of a recorded ShowExports reply (busctl's JSON: timestamp, then the exports)."""
    return [row[0] for row in json.loads(stdout)["data"][1]]


def _show(scenario: str, *, served: bool, failed: bool = False) -> int:
    """The index of the first ShowExports answer of ``scenario`` that lists export 101 (or not)."""
    for i, entry in enumerate(load(scenario)["commands"]):
        listing = entry["argv"][-1].endswith("ShowExports") and (entry["exit_code"] != 0) is failed
        if listing and (failed or (101 in _listed(entry["stdout"])) is served):
            return i
    raise AssertionError(f"{scenario}: no such ShowExports answer")


def _add_101() -> int:
    return next(
        i
        for i, e in enumerate(load("ganesha")["commands"])
        if e["argv"][-4:-1] == ["AddExport", "ss", EXPORT_FILE]
    )


EXPORT_FILE = ganesha.export_file(101)
REMOVE = ["org.ganesha.nfsd.exportmgr", "RemoveExport", "q", "101"]


def appliance_root(tmp_path: Path) -> LocalFiles:
    """An appliance's files: the zfs module loaded, the device wait its api held at start."""
    files = LocalFiles(tmp_path / "root")
    api_flows.held_at_start(files)
    return files


@pytest.fixture
def stored(tmp_path: Path) -> tuple[sessionmaker[Session], Settings]:
    """The api's database (made and migrated by its start) holding export 101, ganesha chosen."""
    settings = make_settings(tmp_path / "data")
    factory = client_for(settings).app.state.sessionmaker  # type: ignore[attr-defined]
    with factory() as db:
        exports.store(db, export())
        db.commit()
    return factory, settings


def test_an_export_the_server_lost_is_added_back_and_the_config_is_left(
    tmp_path: Path, stored: tuple[sessionmaker[Session], Settings]
) -> None:
    factory, settings = stored
    runner = _answers("ganesha", _show("ganesha", served=False), _add_101())
    files = appliance_root(tmp_path)
    files.write(ganesha.MAIN_CONF, "# an admin's own ganesha.conf\n")
    outcome = _nfs(reconcile.everything(Gateway(FirewallAnswers(runner)), files, factory, settings))
    assert outcome.noun is Noun.nfs_exports and outcome.failure is None
    assert outcome.changes == ["export 101 added to ganesha"]
    assert runner.pending == []  # the listing, then the one AddExport
    assert files.read(EXPORT_FILE) == ganesha.render_export(export())
    assert files.read(ganesha.MAIN_CONF) == "# an admin's own ganesha.conf\n"  # a restart's business


def test_a_server_that_serves_the_stored_set_is_left_alone(
    tmp_path: Path, stored: tuple[sessionmaker[Session], Settings]
) -> None:
    factory, settings = stored
    runner = _answers("ganesha", _show("ganesha", served=True))
    files = appliance_root(tmp_path)
    files.write(EXPORT_FILE, ganesha.render_export(export()))
    outcome = _nfs(reconcile.everything(Gateway(FirewallAnswers(runner)), files, factory, settings))
    assert outcome.changes == [] and outcome.failure is None
    assert runner.calls == [load("ganesha")["commands"][_show("ganesha", served=True)]["argv"]]


def test_an_export_removed_from_the_database_leaves_the_server(
    tmp_path: Path, stored: tuple[sessionmaker[Session], Settings]
) -> None:
    factory, settings = stored
    with factory() as db:
        db.delete(exports._get(db, 101))
        db.commit()
    remove = next(i for i, e in enumerate(load("ganesha")["commands"]) if e["argv"][-4:] == REMOVE)
    runner = _answers("ganesha", _show("ganesha", served=True), remove)
    files = appliance_root(tmp_path)
    files.write(EXPORT_FILE, ganesha.render_export(export()))
    outcome = _nfs(reconcile.everything(Gateway(FirewallAnswers(runner)), files, factory, settings))
    assert outcome.changes == ["export 101 removed from ganesha"] and runner.pending == []
    assert files.read(EXPORT_FILE) is None


def test_a_stopped_server_is_kept_as_the_outcome_and_left_to_its_own_alert(
    tmp_path: Path, stored: tuple[sessionmaker[Session], Settings]
) -> None:
    factory, settings = stored
    runner = _answers("api_exports", _show("api_exports", served=False, failed=True))
    outcome = _nfs(
        reconcile.everything(Gateway(FirewallAnswers(runner)), appliance_root(tmp_path), factory, settings)
    )
    assert outcome.failure is not None and outcome.failure.error == "ServiceDown"
    assert "not provided by any .service files" in outcome.failure.message
    assert drift_alerts([outcome]) == []  # nfs/service says the server is down


def _nfs(outcomes: list[Reconciled]) -> Reconciled:
    """The exports' outcome; the module parameters' (no plan stored, the device wait held) and the iSCSI
    targets' (none stored) did nothing; the firewall's rule set (the defaults, adopted) is loaded."""
    nouns = [Noun.nfs_exports, Noun.zfs_parameters, Noun.iscsi_targets, Noun.firewall, Noun.api_folder]
    assert [o.noun for o in outcomes] == nouns
    assert all(o.changes == [] and o.failure is None for o in outcomes[1:3])  # nothing else stored
    assert outcomes[3].failure is None and outcomes[3].changes == ["rule set loaded"]
    assert outcomes[4].changes == [] and outcomes[4].failure is None  # a test's folder: root's own
    return outcomes[0]


def _outcome(**fields: Any) -> Reconciled:
    return Reconciled(noun=Noun.nfs_exports, at=T0, **fields)


@pytest.mark.parametrize(
    ("outcome", "alerted"),
    [
        (_outcome(), False),
        (_outcome(changes=["export 101 added to ganesha"]), False),  # converged: logged, not alerted
        (_outcome(failure=Failure(error="ServiceDown", message="ganesha is not running")), False),
        (
            _outcome(failure=Failure(error="CommandFailed", message="busctl failed (exit 1): no path")),
            True,
        ),
        (_outcome(failure=Failure(error="NotFound", message="tank/ds1 is gone")), True),
    ],
)
def test_only_a_noun_that_could_not_converge_is_alerted(outcome: Reconciled, alerted: bool) -> None:
    found = drift_alerts([outcome])
    assert bool(found) is alerted
    if alerted:
        [alert] = found
        assert alert.key == "reconcile/nfs_exports" and alert.severity == "critical"
        assert alert.subject == "NFS exports" and outcome.failure is not None
        assert outcome.failure.message in alert.message and "2026-11-29 01:00:00 UTC" in alert.message


def test_the_poller_reconciles_at_its_first_pass_and_every_sixth_and_publishes_the_outcome(
    tmp_path: Path, stored: tuple[sessionmaker[Session], Settings]
) -> None:
    factory, settings = stored
    _, files, _ = replay_log("metrics_series", tmp_path / "root")
    api_flows.held_at_start(files)
    runner = AnyRecordingRunner(every_recording(), first=load("metrics_series"))
    poller = sampler.Sampler(Gateway(runner), files, factory, settings, interval=10.0, keep=10)
    seen = []
    for _ in range(7):
        published = poller.publish()
        assert published is not None
        seen.append(_nfs(published.reconciled).at)
    assert len(set(seen[:6])) == 1  # passes 1-5 publish the first one again: a minute at 10 s a pass
    assert seen[6] > seen[0]
    assert published.reconciled[0].noun is Noun.nfs_exports


def test_module_parameters_converge_beside_the_exports_and_one_missing_is_alerted(
    tmp_path: Path, stored: tuple[sessionmaker[Session], Settings]
) -> None:
    factory, settings = stored
    files = appliance_root(tmp_path)
    files.write(EXPORT_FILE, ganesha.render_export(export()))
    files.write(f"{modparams.SYSFS}/zfs_txg_timeout", "5\n")
    with factory() as db:
        tuning.apply(files, settings, db, {"zfs_txg_timeout": 10})  # PUT /api/tuning/parameters
    files.write(f"{modparams.SYSFS}/zfs_txg_timeout", "5\n")  # set by hand
    files.remove(modparams.MODPROBE)  # removed by hand
    runner = _answers("ganesha", _show("ganesha", served=True))
    exported, tuned, *_ = reconcile.everything(Gateway(FirewallAnswers(runner)), files, factory, settings)
    assert exported.changes == [] and tuned.changes == [
        "zfs_txg_timeout set to 10 (was 5)",
        "/etc/modprobe.d/zfs-arcvsa.conf rewritten from the tuning plan",
    ]
    assert files.read(modparams.MODPROBE) == modparams.render({"zfs_txg_timeout": 10})
    assert drift_alerts([exported, tuned]) == []

    with factory() as db:  # a plan stored under a zfs release that had this parameter
        db.add(ZfsParameter(name="zfs_gone", value=1))
        db.commit()
    runner = _answers("ganesha", _show("ganesha", served=True))
    exported, tuned, *_ = reconcile.everything(Gateway(FirewallAnswers(runner)), files, factory, settings)
    assert exported.failure is None  # one noun's failure keeps no other from converging
    assert tuned.failure is not None and tuned.failure.error == "NotFound"
    [alert] = drift_alerts([exported, tuned])
    assert alert.key == "reconcile/zfs_parameters" and alert.subject == "ZFS module parameters"
    assert "no such zfs module parameter: zfs_gone" in alert.message


def test_a_stored_row_the_models_refuse_fails_its_noun_alone(
    tmp_path: Path, stored: tuple[sessionmaker[Session], Settings]
) -> None:
    """The api's database is the api's user's to write: a row it wrote past its own checks (or an older
    release's) is refused by the control service's models, alerted, and keeps no other noun back."""
    factory, settings = stored
    with factory() as db:
        exports._get(db, 101).protocol = "9"
        db.commit()
    files = appliance_root(tmp_path)
    files.write(f"{modparams.SYSFS}/zfs_txg_timeout", "5\n")
    with factory() as db:
        tuning.apply(files, settings, db, {"zfs_txg_timeout": 10})
    files.write(f"{modparams.SYSFS}/zfs_txg_timeout", "5\n")  # set by hand
    runner = _answers("ganesha")  # nothing may be asked of ganesha
    exported, tuned, *_ = reconcile.everything(Gateway(FirewallAnswers(runner)), files, factory, settings)
    assert exported.failure is not None and exported.failure.error == "InvalidRequest"
    assert "the stored nfs_exports are not valid" in exported.failure.message
    assert tuned.failure is None and tuned.changes[0] == "zfs_txg_timeout set to 10 (was 5)"
    assert runner.calls == []
    [alert, *_] = drift_alerts([exported, tuned])
    assert alert.key == "reconcile/nfs_exports"
