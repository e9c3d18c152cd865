"""A backup restored onto a fresh appliance that sees the same LUNs, on the ``backup_restore`` recording
(fixtures.appliance.backup_flows): the restore imports the pool by its GUID, stores the export whose
dataset is there and serves it, holds the tuning plan, and reports the export whose dataset was
destroyed after the backup instead of dropping it. The same restore, of the same file, runs the same
commands as it did live in the lab VM, nothing more.

Needs the recording: ``python tests/fixtures/appliance/record.py --lab DIR backup_restore`` (lab only).
"""

from __future__ import annotations

import base64
from pathlib import Path

from fixtures.appliance import api_flows, backup_flows
from fixtures.appliance.replay import load, replay_log

from api.backup import envelope


def test_the_restore_answers_and_runs_what_it_did_live(tmp_path: Path) -> None:
    recording = load("backup_restore")
    gateway, files, runner = replay_log("backup_restore", tmp_path / "root")
    api_flows.held_at_start(files)
    client = api_flows.client(tmp_path / "data", gateway, files)
    answers = backup_flows.restore_flow(client, recording["backup"])
    assert answers == recording["api"]
    assert runner.pending == []  # every command the restore ran live, it ran again, nothing more
    report = answers[0]["body"]
    assert answers[0]["status"] == 200, report
    assert report["pools_imported"] == ["tank"] and report["pools_present"] == []
    guid = load("backup_restore")["backup_guid"]
    assert ["zpool", "import", "-d", "/dev/disk/by-id", guid, "tank"] in runner.calls  # by GUID, not by name
    restored = {s["section"]: s["items"] for s in report["restored"]}
    assert restored["nfs"] == ["101"]
    assert restored["iscsi"] == []  # none in this backup (see fixtures.appliance.backup_flows)
    assert restored["tuning"] == [f"{k}={v}" for k, v in sorted(backup_flows.TUNED.items())]
    converged = {c["section"]: c for c in report["converged"]}
    assert converged["nfs"] == {"section": "nfs", "changes": ["export 101 added to ganesha"], "failure": None}
    assert converged["tuning"]["failure"] is None and converged["tuning"]["changes"]
    lost = {(m["kind"], m["name"]) for m in report["not_restored"]}
    assert lost == {("dataset", "tank/gone"), ("export", "102")}, report["not_restored"]
    exports = answers[1]["body"]
    assert [(e["export_id"], e["path"], e["active"]) for e in exports] == [(101, "/tank/ds1", True)]


def test_the_recorded_file_is_sealed(tmp_path: Path) -> None:
    backup = load("backup_restore")["backup"]
    data = base64.b64decode(backup["file_base64"])
    assert b"tank/ds1" not in data  # sealed: nothing of the configuration readable without the passphrase
    payload = envelope.unseal(data, backup["passphrase"])
    assert payload["sections"]["iscsi"] == {"targets": []}
    assert payload["pools"] == [{"name": "tank", "guid": load("backup_restore")["backup_guid"]}]
    assert payload["datasets"] == ["tank/ds1", "tank/gone"]  # what exports need
