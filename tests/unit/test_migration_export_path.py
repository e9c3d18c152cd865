"""Migration 0011 on a database an older release wrote: its exports are kept, their path column goes
(the path is the dataset's mount point, derived), and a downgrade writes it back as that release read it."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import Engine, inspect, text

from api import db


def _at(engine: Engine, revision: str, down: bool = False) -> None:
    cfg = db._config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(cfg, revision)


def test_stored_exports_survive_the_path_column_going_and_coming_back(tmp_path: Path) -> None:
    engine = db.make_engine(f"sqlite:///{tmp_path / 'arcvsa.db'}")
    _at(engine, "0010")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO nfs_exports VALUES (101, 'tank/vdi', '/tank/vdi', '3', '[\"10.0.2.2\"]', 0,"
                " '2026-11-30 00:00:00', '2026-11-30 00:00:00')"
            )
        )
    _at(engine, "head")
    assert "path" not in {c["name"] for c in inspect(engine).get_columns("nfs_exports")}
    with engine.connect() as conn:
        assert conn.execute(text("SELECT export_id, dataset, protocol FROM nfs_exports")).all() == [
            (101, "tank/vdi", "3")
        ]
    _at(engine, "0010", down=True)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT export_id, path FROM nfs_exports")).all() == [(101, "/tank/vdi")]
