"""The firewall's section of a configuration backup: carried as saved, restored without ever cutting off
the administrator who restores (nothing here runs a tool: converge is the reconcile, tested in
tests/integration/test_api_firewall.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.appliance.replay import ReplayRunner
from sqlalchemy.orm import Session
from support.api import client_for, make_settings

from api.backup.section import Context, Restoring
from api.firewall import backup, service
from api.firewall.schemas import FirewallSettings
from api.firewall.table import FirewallConfig
from api.secretbox import SecretBox
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway

SAVED = FirewallSettings(management=["10.0.2.0/24"], iscsi=["10.0.9.0/24"], ssh=True)


@pytest.fixture
def db(tmp_path: Path) -> Session:
    settings = make_settings(tmp_path / "data")
    factory = client_for(settings).app.state.sessionmaker  # type: ignore[attr-defined]
    return factory()


def context(db: Session, tmp_path: Path, address: str) -> Context:
    settings = make_settings(tmp_path / "data")
    gw = Gateway(ReplayRunner({"commands": []}))  # store runs no tool
    return Context(
        db, SecretBox(settings.key_file), LocalFiles(tmp_path / "root"), settings, gw, "admin", address
    )


def save(db: Session, settings: FirewallSettings | None, trial: bool = False) -> None:
    row = FirewallConfig(id=1, settings_json=settings.model_dump_json() if settings else None)
    if trial:
        row.trial_json, row.trial_until = SAVED.model_dump_json(), 4102444800.0
    db.add(row)
    db.commit()


def test_collect_carries_the_saved_settings_and_none_before_any(db: Session, tmp_path: Path) -> None:
    ctx = context(db, tmp_path, "10.0.2.2")
    assert backup.SECTION.collect(ctx, []) is None
    save(db, SAVED)
    assert backup.SECTION.collect(ctx, []) == SAVED


def test_restored_as_saved_when_the_restorer_stays_in(db: Session, tmp_path: Path) -> None:
    restoring = Restoring()
    items = backup.SECTION.store(context(db, tmp_path, "10.0.2.255"), SAVED, restoring)
    assert items == ["management networks", "iSCSI networks", "SSH"]
    assert service.stored(db) == SAVED and restoring.missing == []
    assert restoring.to_converge == {"firewall"}


def test_management_networks_that_leave_the_restorer_out_are_not_restored(
    db: Session, tmp_path: Path
) -> None:
    mine = FirewallSettings(management=["192.0.2.0/24"], iscsi=[], ssh=False)
    save(db, mine)
    restoring = Restoring()
    backup.SECTION.store(context(db, tmp_path, "192.0.2.7"), SAVED, restoring)
    kept = service.stored(db)
    assert kept is not None and kept.management == ["192.0.2.0/24"]  # this appliance's
    assert kept.iscsi == SAVED.iscsi and kept.ssh  # the rest as the backup says
    assert [(m.kind, m.name) for m in restoring.missing] == [("firewall", "management networks")]
    assert "192.0.2.7" in restoring.missing[0].reason


def test_without_saved_ones_here_the_defaults_are_kept_for_the_restorer(db: Session, tmp_path: Path) -> None:
    restoring = Restoring()
    backup.SECTION.store(context(db, tmp_path, "192.0.2.7"), SAVED, restoring)
    kept = service.stored(db)
    assert kept is not None and kept.management == ["0.0.0.0/0", "::/0"]


def test_a_backup_without_the_section_leaves_the_defaults_to_the_next_reconcile(
    db: Session, tmp_path: Path
) -> None:
    save(db, SAVED, trial=True)
    restoring = Restoring()
    assert backup.SECTION.store(context(db, tmp_path, "10.0.2.2"), None, restoring) == []
    row = db.get(FirewallConfig, 1)
    assert row is not None and row.settings_json is None and row.trial_json is None
    assert restoring.to_converge == set()
