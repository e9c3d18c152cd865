"""A format 1 backup (as the release before format 2 wrote it in the lab: tests/fixtures/backup) is read
as format 2: every domain's part lands in its section and checks against that section's model, the
pools keep their names with no GUID (a restore imports them by name), and nothing of it is dropped."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from api.app import BACKUP_SECTIONS
from api.backup import envelope, migrate, service
from api.backup.schemas import Payload, RestoreRequest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "backup" / "format1.json"


def _format1() -> tuple[bytes, str]:
    found = json.loads(FIXTURE.read_text())
    return base64.b64decode(found["file_base64"]), found["passphrase"]


def test_the_recorded_file_is_format_1() -> None:
    data, passphrase = _format1()
    assert envelope.header(data)["format_version"] == 1
    assert "users" in envelope.unseal(data, passphrase)  # format 1: domains at the payload's top


def test_a_format_1_file_reads_as_format_2_with_every_part_in_its_section() -> None:
    data, passphrase = _format1()
    body = RestoreRequest(file_base64=base64.b64encode(data).decode(), passphrase=passphrase)
    header, payload = service.read(body)
    assert header["format_version"] == 1
    assert [p.model_dump() for p in payload.pools] == [{"name": "tank", "guid": None}]
    assert payload.datasets == ["tank/ds1", "tank/gone"]
    values = service.values(payload, BACKUP_SECTIONS)
    # notify and tls: null in the file; the firewall's settings came after format 1
    assert set(payload.sections) == {s.key for s in BACKUP_SECTIONS} - {"notify", "tls", "firewall"}
    assert values["notify"] is None and values["tls"] is None and values["firewall"] is None
    nfs: Any = values["nfs"]
    assert nfs.backend == "ganesha" and [e.export_id for e in nfs.exports] == [101, 102]
    assert values["tuning"].parameters == {"l2arc_noprefetch": 0, "zfs_txg_timeout": 7}  # type: ignore[union-attr]
    assert [u.username for u in values["users"].users] == ["admin"]  # type: ignore[union-attr]
    assert values["iscsi"].targets == [] and values["vcenters"].vcenters == []  # type: ignore[union-attr]


def test_format_2_is_read_as_it_is() -> None:
    payload = {"pools": [], "datasets": [], "sections": {"users": {"users": []}}, "skipped": []}
    assert migrate.current(2, payload) is payload


def test_a_format_1_payload_with_notify_and_tls_keeps_them() -> None:
    data, passphrase = _format1()
    raw = envelope.unseal(data, passphrase)
    raw["notify"] = {"settings": {}, "smtp_password": "lab-only-smtp-1"}
    raw["tls"] = {"certificate": "C", "private_key": "K"}
    sections = migrate.current(1, raw)["sections"]
    assert sections["notify"] == raw["notify"] and sections["tls"] == raw["tls"]
    Payload.model_validate(migrate.current(1, raw))


@pytest.mark.parametrize("section", ["users", "nfs", "tuning"])
def test_a_section_that_does_not_match_its_model_is_refused_by_name(section: str) -> None:
    data, passphrase = _format1()
    payload = Payload.model_validate(migrate.current(1, envelope.unseal(data, passphrase)))
    payload.sections[section] = {"not": "this"}
    with pytest.raises(envelope.BackupMalformed, match=f"cannot be read: {section}"):
        service.values(payload, BACKUP_SECTIONS)


def test_every_format_1_list_lands_in_its_section() -> None:
    """The recorded file's lists that were empty there, filled one by one: each reaches its section."""
    data, passphrase = _format1()
    raw = envelope.unseal(data, passphrase)
    vcenter = {"name": "vc", "host": "vc.example.com", "port": 443, "username": "u", "password": "lab-only-1",
               "thumbprint_sha256": None, "created_at": "2026-11-01T00:00:00"}  # fmt: skip
    target = {"iqn": "iqn.2026-11.lab.arcvsa:t", "zvol": "tank/lun0", "initiators": [], "chap": None}
    token = {"name": "prometheus", "token_sha256": "0" * 64, "created_by": "admin",
             "created_at": "2026-11-01T00:00:00", "last_used_at": None}  # fmt: skip
    skipped = {"kind": "iscsi_target", "name": "iqn.2026-11.lab.arcvsa:other", "reason": "not made by arcvsa"}
    raw.update(vcenters=[vcenter], iscsi_targets=[target], scrape_tokens=[token], skipped=[skipped])
    payload = Payload.model_validate(migrate.current(1, raw))
    assert payload.sections["vcenters"] == {"vcenters": [vcenter]}
    assert payload.sections["iscsi"] == {"targets": [target]}
    assert payload.sections["scrape_tokens"] == {"tokens": [token]}
    assert [s.model_dump() for s in payload.skipped] == [skipped]
    service.values(payload, BACKUP_SECTIONS)  # and each still fits its section's model
