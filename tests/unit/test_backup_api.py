"""/api/backup and /api/backup/restore through the real app: a configuration made on one appliance comes
back on a fresh one (its own data dir and key); the file holds no secret in any form; a wrong passphrase,
a changed, cut or newer file is refused with a typed error and the restoring appliance is left as it was.

The storage files are the lab's (LIO's saveconfig.json from the ``iscsi`` recording, the zfs module
parameters from ``api_tuning``); the storage tools are a strict replay: a restore of a configuration with
no exports or targets must run no tool at all, and the one with them is test_backup_restore_replay's.
"""

from __future__ import annotations

import base64
import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from fixtures.appliance import api_flows
from fixtures.appliance.replay import ReplayRunner, load, replay
from sqlalchemy import select
from support.api import ADMIN, ADMIN_PASSWORD, client_for, logged_in, make_settings

from api.auth.tables import User
from api.backup import envelope
from api.exports.table import NfsExport, StorageSetting
from api.iscsi import service as iscsi_service
from api.iscsi.table import IscsiTarget
from api.notify.table import NotifyConfig
from api.prometheus import tokens
from api.prometheus.tokens import ScrapeToken
from api.secretbox import SecretBox
from api.state.snapshot import Published, boot_id
from api.tls import ensure_certificate, paths
from api.vcenters.table import VCenter
from appliance.control import iscsi, modparams
from appliance.control.gateway import Gateway
from appliance.control.observed import Observed
from appliance.control.pools import ZfsPoolSpace

PASSPHRASE = "a long and unguessable passphrase"
VC_PASSWORD = "vc-password-Secret-42"
SMTP_PASSWORD = "smtp-password-Secret-7"
OPS_PASSWORD = "ops-password-Secret-9"
CHAP_SECRET = "lab-only-secret-1"  # in the iscsi recording's saveconfig.json
GUID = "18328816075162305721"  # the api_exports recording's pool
TUNED = {"zfs_arc_max": 2 << 30, "l2arc_noprefetch": 0, "zfs_txg_timeout": 5}
NOTIFY = {
    "smtp": {
        "enabled": True,
        "host": "mail.example.com",
        "port": 587,
        "security": "starttls",
        "verify_tls": True,
        "username": "vsa",
        "sender": "vsa@example.com",
        "recipients": ["ops@example.com"],
        "subject_prefix": "[vsa-1]",
    },
    "syslog": {"enabled": True, "host": "192.0.2.20", "port": 514, "transport": "tcp"},
    "smtp_password": SMTP_PASSWORD,
}


class Appliance:
    """A logged-in api on its own data dir and key; its storage files seeded from lab recordings, its tools
    a strict replay that answers nothing (any command fails the test)."""

    def __init__(self, folder: Path) -> None:
        _, self.files, _ = replay("api_tuning", folder / "root")  # /sys/module/zfs/parameters as the lab had
        api_flows.held_at_start(self.files)
        self.files.remove(modparams.MODPROBE)
        self.runner = ReplayRunner({"commands": []})
        self.client = logged_in(client_for(make_settings(folder / "data")))
        self.state: Any = self.client.app.state  # type: ignore[attr-defined]
        self.state.storage_gateway = Gateway(self.runner)
        self.state.storage_files = self.files
        observed = Observed(spaces=[ZfsPoolSpace(name="tank", guid=GUID)], pools=[])
        with self.state.snapshot.writing():  # as the poller publishes it
            self.state.snapshot.write(
                Published(boot_id=boot_id(), taken_at=datetime.now(UTC), observed=observed)
            )

    @property
    def data_dir(self) -> Path:
        return Path(self.state.settings.data_dir)

    def db(self) -> Any:
        return self.state.sessionmaker()


def configure(a: Appliance, *, storage: bool) -> str:
    """Users, a vCenter connection, tuning, notifications, TLS, a scrape token (and, with ``storage``,
    NFS exports and LIO's saved iSCSI target with CHAP). Returns the scrape token."""
    c = a.client
    assert c.post("/api/users", json={"username": "ops", "password": OPS_PASSWORD}).status_code == 201
    with a.db() as db:
        box: SecretBox = a.state.secretbox
        db.add(
            VCenter(
                name="vc-lab",
                host="vc.example.com",
                port=443,
                username="administrator@vsphere.local",
                password_sealed=box.seal(VC_PASSWORD),
                thumbprint_sha256="AB:" * 31 + "CD",
                created_at=datetime(2026, 11, 1, tzinfo=UTC),
            )
        )
        db.add(StorageSetting(key="nfs_backend", value="knfsd", updated_at=datetime.now(UTC)))
        if storage:
            for export_id, dataset, protocol, clients in (
                (101, "tank/ds1", "3", ["10.0.2.2"]),
                (102, "tank/ds2", "4.1", ["10.0.2.2", "10.0.2.15"]),
            ):
                db.add(
                    NfsExport(
                        export_id=export_id,
                        dataset=dataset,
                        protocol=protocol,
                        clients_json=json.dumps(clients),
                        insecure_ports=False,
                        created_at=datetime.now(UTC),
                        updated_at=datetime.now(UTC),
                    )
                )
            db.add(  # what creating the recording's target stored
                IscsiTarget(
                    iqn="iqn.2026-01.org.arcvsa:tank-lun0",
                    zvol="tank/lun0",
                    initiators_json=json.dumps(["iqn.1998-01.com.vmware:esxi-01"]),
                    chap_user="esxi",
                    chap_secret=box.seal(CHAP_SECRET),
                    created_at=datetime.now(UTC),
                )
            )
        db.commit()
    if storage:  # and what LIO saved of it
        a.files.write(iscsi.SAVECONFIG, load("iscsi")["reads"][iscsi.SAVECONFIG])
    assert c.put("/api/tuning/parameters", json={"params": TUNED}).status_code == 200
    assert c.put("/api/settings/notifications", json=NOTIFY).status_code == 200
    ensure_certificate(a.data_dir)  # first boot's self-signed pair
    r = c.post("/api/metrics/scrape-tokens", json={"name": "prometheus"})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def backup(a: Appliance, passphrase: str = PASSPHRASE) -> bytes:
    r = a.client.post("/api/backup", json={"passphrase": passphrase})
    assert r.status_code == 200, r.text
    return r.content


def restore(a: Appliance, data: bytes, passphrase: str = PASSPHRASE, **extra: Any) -> Any:
    body = {"file_base64": base64.b64encode(data).decode(), "passphrase": passphrase, **extra}
    return a.client.post("/api/backup/restore", json=body)


def snapshot(a: Appliance) -> dict[str, Any]:
    """Every configuration item of an appliance, secrets opened with its own key."""
    box: SecretBox = a.state.secretbox
    with a.db() as db:
        vcs = [
            (v.name, v.host, v.port, v.username, box.open(v.password_sealed), v.thumbprint_sha256)
            for v in db.scalars(select(VCenter).order_by(VCenter.name))
        ]
        notify = db.get(NotifyConfig, 1)
        backend = db.get(StorageSetting, "nfs_backend")
        return {
            "users": [
                (u.username, u.password_hash) for u in db.scalars(select(User).order_by(User.username))
            ],
            "vcenters": vcs,
            "nfs_backend": backend.value if backend else None,
            "exports": [
                (e.export_id, e.dataset, e.protocol, e.clients_json, e.insecure_ports)
                for e in db.scalars(select(NfsExport).order_by(NfsExport.export_id))
            ],
            "notify": (
                json.loads(notify.settings_json),
                box.open(notify.smtp_password) if notify.smtp_password else None,
            )
            if notify
            else None,
            "tokens": [
                (t.name, t.token_sha256, t.created_by)
                for t in db.scalars(select(ScrapeToken).order_by(ScrapeToken.id))
            ],
            "modprobe": a.files.read(modparams.MODPROBE),
            "tls": tuple(p.read_bytes() if p.exists() else None for p in paths(a.data_dir)),
        }


@pytest.fixture
def source(tmp_path: Path) -> Appliance:
    return Appliance(tmp_path / "a")


@pytest.fixture
def fresh(tmp_path: Path) -> Appliance:
    return Appliance(tmp_path / "b")


def test_the_backup_is_a_download_named_after_the_appliance(source: Appliance) -> None:
    configure(source, storage=False)
    r = source.client.post("/api/backup", json={"passphrase": PASSPHRASE})
    assert r.status_code == 200
    disposition = r.headers["content-disposition"]
    assert disposition.startswith('attachment; filename="arcvsa-config-')
    assert disposition.endswith('Z.arcvsa-backup"')
    head = json.loads(r.content)
    assert head["format"] == "arcvsa-config-backup" and head["format_version"] == 2
    assert head["kdf"] == {"name": "scrypt", "n": 32768, "r": 8, "p": 1, "length": 32}
    assert head["cipher"] == "AES-256-GCM" and len(base64.b64decode(head["nonce"])) == 12
    assert source.runner.calls == []  # a backup reads the database and files, it runs no tool


def test_no_secret_is_in_the_file_in_any_form(source: Appliance) -> None:
    token = configure(source, storage=True)
    data = backup(source)
    key_pem = paths(source.data_dir)[1].read_text()
    key_body = "".join(line for line in key_pem.splitlines() if "-----" not in line)
    with source.db() as db:
        hashes = [u.password_hash for u in db.scalars(select(User))]
    secrets = [
        VC_PASSWORD,
        SMTP_PASSWORD,
        CHAP_SECRET,
        OPS_PASSWORD,
        ADMIN_PASSWORD,
        token,
        key_body,
        *hashes,
    ]
    secrets += [hashlib.sha256(token.encode()).hexdigest()]
    for secret in secrets:
        raw = secret.encode()
        for form in (raw, base64.b64encode(raw), raw.hex().encode(), base64.b64encode(raw)[:-4]):
            assert form not in data
    # ... and they are all inside, for the passphrase only
    sections = envelope.unseal(data, PASSPHRASE)["sections"]
    assert sections["vcenters"]["vcenters"][0]["password"] == VC_PASSWORD
    assert sections["notify"]["smtp_password"] == SMTP_PASSWORD
    assert sections["iscsi"]["targets"][0]["chap"] == {"user": "esxi", "secret": CHAP_SECRET}
    assert sections["tls"]["private_key"] == key_pem


def test_the_backup_names_the_storage_its_exports_and_luns_need(source: Appliance) -> None:
    configure(source, storage=True)
    payload = envelope.unseal(backup(source), PASSPHRASE)
    assert payload["pools"] == [{"name": "tank", "guid": GUID}]  # as the published state has it
    assert payload["datasets"] == ["tank/ds1", "tank/ds2", "tank/lun0"]
    sections = payload["sections"]
    assert [(e["export_id"], e["dataset"], e["protocol"]) for e in sections["nfs"]["exports"]] == [
        (101, "tank/ds1", "3"),
        (102, "tank/ds2", "4.1"),
    ]
    target = sections["iscsi"]["targets"][0]
    assert target["iqn"] == "iqn.2026-01.org.arcvsa:tank-lun0" and target["zvol"] == "tank/lun0"
    assert target["initiators"] == ["iqn.1998-01.com.vmware:esxi-01"]
    assert sections["tuning"] == {"parameters": TUNED} and payload["skipped"] == []
    assert sections["nfs"]["backend"] == "knfsd"
    assert source.runner.calls == []


def test_a_backup_that_needs_pools_waits_for_the_published_state(source: Appliance) -> None:
    configure(source, storage=True)
    source.state.snapshot.path.unlink()  # the state is not published yet (an api just started)
    r = source.client.post("/api/backup", json={"passphrase": PASSPHRASE})
    assert r.status_code == 503 and r.json()["code"] == "state_pending", r.text
    assert source.runner.calls == []


def test_a_backup_without_pools_needs_no_published_state(source: Appliance) -> None:
    configure(source, storage=False)
    source.state.snapshot.path.unlink()
    assert envelope.unseal(backup(source), PASSPHRASE)["pools"] == []


def test_a_fresh_appliance_gets_every_setting_back(source: Appliance, fresh: Appliance) -> None:
    token = configure(source, storage=False)
    before = snapshot(source)
    r = restore(fresh, backup(source))
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["not_restored"] == [] and report["pools_imported"] == [] and report["format_version"] == 2
    restored = {s["section"]: s["items"] for s in report["restored"]}
    assert restored == {
        "users": [ADMIN, "ops"],
        "vcenters": ["vc-lab"],
        "scrape_tokens": ["prometheus"],
        "nfs": [],
        "iscsi": [],
        "tuning": [f"{name}={value}" for name, value in sorted(TUNED.items())],
        "notify": ["email", "syslog"],
        "firewall": [],  # never saved on the source: the fresh appliance adopts the defaults
        "tls": [
            x509.load_pem_x509_certificate(paths(source.data_dir)[0].read_bytes()).subject.rfc4514_string()
        ],
    }
    converged = {c["section"]: c for c in report["converged"]}
    # what runs outside SQLite; no NFS server or LIO touched for a backup with no exports or targets
    assert set(converged) == {"tuning", "notify", "tls"}
    assert all(c["failure"] is None for c in converged.values()), report["converged"]
    assert converged["tuning"]["changes"] == [  # zfs_txg_timeout is 5 already
        "l2arc_noprefetch set to 0 (was 1)",
        "zfs_arc_max set to 2147483648 (was 0)",
        f"{modparams.MODPROBE} rewritten from the tuning plan",
    ]
    assert converged["tls"]["changes"] == ["certificate installed: served after the api restarts"]
    assert report["sessions_ended"] is True
    assert fresh.runner.calls == []  # nothing to import or export: no tool ran
    after = snapshot(fresh)
    assert after == before
    # the vCenter password is sealed under the fresh appliance's own key, not the source's
    with fresh.db() as db, source.db() as old:
        sealed = db.scalars(select(VCenter.password_sealed)).one()
        assert sealed != old.scalars(select(VCenter.password_sealed)).one()
        with pytest.raises(RuntimeError):
            source.state.secretbox.open(sealed)
        assert tokens.resolve(db, token) is not None  # Prometheus' token works here too
    # the module parameters went live (sysfs) too, and the certificate waits for a restart
    assert int(fresh.files.read(f"{modparams.SYSFS}/zfs_txg_timeout") or 0) == TUNED["zfs_txg_timeout"]
    assert fresh.client.get("/api/users").status_code == 401  # every login ended with the old users
    again = logged_in(fresh.client)
    assert again.get("/api/settings/tls").json()["restart_needed"] is True
    ops = again.post("/api/auth/login", json={"username": "ops", "password": OPS_PASSWORD})
    assert ops.status_code == 200


def _subject(a: Appliance) -> str:
    return x509.load_pem_x509_certificate(paths(a.data_dir)[0].read_bytes()).subject.rfc4514_string()


def _unchanged(fresh: Appliance, r: Any, status: int, field: str, before: dict[str, Any]) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["field"] == field and body["code"], body
    assert snapshot(fresh) == before
    assert fresh.runner.calls == []
    return dict(body)


def _reseal(data: bytes, **changes: Any) -> bytes:
    head = json.loads(data)
    head.update(changes)
    return json.dumps(head).encode()


def test_a_wrong_passphrase_or_a_changed_file_is_one_error_and_changes_nothing(
    source: Appliance, fresh: Appliance
) -> None:
    configure(source, storage=False)
    data = backup(source)
    before = snapshot(fresh)
    wrong = _unchanged(fresh, restore(fresh, data, "not the passphrase at all"), 422, "passphrase", before)
    cipher = bytearray(base64.b64decode(json.loads(data)["ciphertext"]))
    cipher[len(cipher) // 2] ^= 0x01
    flipped = _reseal(data, ciphertext=base64.b64encode(bytes(cipher)).decode())
    changed = _unchanged(fresh, restore(fresh, flipped), 422, "passphrase", before)
    renamed = _unchanged(
        fresh, restore(fresh, _reseal(data, hostname="elsewhere")), 422, "passphrase", before
    )
    assert wrong == changed == renamed  # the answer does not say which
    assert "passphrase is wrong or the file was changed" in wrong["detail"]


@pytest.mark.parametrize(
    ("damage", "field", "words"),
    [
        (lambda d: d[: len(d) // 2], "file", "not JSON"),
        (lambda d: b"{]" + d, "file", "not JSON"),
        (lambda d: _reseal(d, format_version=3), "file", "newer than this appliance reads"),
        (lambda d: _reseal(d, format="something-else"), "file", "Not an arcvsa configuration backup"),
        (lambda d: _reseal(d, kdf={"name": "scrypt", "n": 1 << 30, "r": 8, "p": 1, "length": 32}), "file", "key derivation"),
        (lambda d: _reseal(d, nonce="AAAA"), "file", "nonce"),
        (lambda d: _reseal(d, ciphertext="not base64!"), "file", "not base64"),
        (lambda d: b"[1, 2, 3]", "file", "Not an arcvsa configuration backup"),
    ],
)  # fmt: skip
def test_a_cut_newer_or_foreign_file_is_refused_with_its_reason(
    source: Appliance, fresh: Appliance, damage: Any, field: str, words: str
) -> None:
    data = backup(source)
    before = snapshot(fresh)
    body = _unchanged(fresh, restore(fresh, damage(data)), 422, field, before)
    assert words in body["detail"]


def test_bad_requests_are_refused_by_the_schema(source: Appliance, fresh: Appliance) -> None:
    weak = source.client.post("/api/backup", json={"passphrase": "short"})
    assert weak.status_code == 422 and weak.json()["field"] == "passphrase"
    before = snapshot(fresh)
    not_b64 = fresh.client.post("/api/backup/restore", json={"file_base64": "@@@", "passphrase": "x"})
    assert not_b64.status_code == 422 and not_b64.json()["field"] == "file"
    assert fresh.client.post("/api/backup/restore", json={"passphrase": "x"}).status_code == 422
    assert snapshot(fresh) == before


def test_a_configured_appliance_refuses_unless_replace_is_asked(source: Appliance, fresh: Appliance) -> None:
    configure(source, storage=False)
    data = backup(source)
    fresh.files.write(iscsi.SAVECONFIG, load("iscsi")["reads"][iscsi.SAVECONFIG])  # LIO has a target
    before = snapshot(fresh)
    body = _unchanged(fresh, restore(fresh, data), 409, "replace", before)
    assert "1 iSCSI target(s)" in body["detail"]
    with fresh.db() as db:  # refused before anything is written: LIO's target not even adopted
        assert db.get(StorageSetting, iscsi_service.ADOPTED_KEY) is None
    r = restore(fresh, data, replace=True)  # the target is kept (the backup has none), the rest replaced
    assert r.status_code == 200, r.text
    assert snapshot(fresh)["vcenters"] == snapshot(source)["vcenters"]
    assert fresh.runner.calls == []


def test_backup_and_restore_need_a_login(tmp_path: Path) -> None:
    anon = client_for(make_settings(tmp_path))
    assert anon.post("/api/backup", json={"passphrase": PASSPHRASE}).status_code == 401
    body = {"file_base64": "e30=", "passphrase": PASSPHRASE}
    assert anon.post("/api/backup/restore", json=body).status_code == 401


def _sealed(payload: dict[str, Any], version: int, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """``payload`` in a file of format ``version`` (as the release that wrote that format sealed it)."""
    with monkeypatch.context() as m:
        m.setattr(envelope, "FORMAT_VERSION", version)
        return envelope.seal(payload, PASSPHRASE, arcvsa_version="0.1.0", hostname="older")


def test_a_format_1_file_is_restored_section_by_section(
    fresh: Appliance, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = json.loads((Path(__file__).resolve().parents[1] / "fixtures/backup/format1.json").read_text())
    raw = envelope.unseal(base64.b64decode(found["file_base64"]), found["passphrase"])
    raw.update(exports=[], storage={"pools": [], "datasets": []})  # what a fresh test appliance can meet
    r = restore(fresh, _sealed(raw, 1, monkeypatch))
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["format_version"] == 1 and report["not_restored"] == []
    restored = {s["section"]: s["items"] for s in report["restored"]}
    assert restored["users"] == ["admin"] and restored["tuning"] == [
        "l2arc_noprefetch=0",
        "zfs_txg_timeout=7",
    ]
    assert snapshot(fresh)["users"] == [(u["username"], u["password_hash"]) for u in raw["users"]]
    assert fresh.runner.calls == []


def test_a_pool_of_the_same_name_but_another_guid_is_never_taken_for_the_backups(
    fresh: Appliance, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = load("api_exports")["commands"]
    listing = next(c for c in commands if c["argv"][:2] == ["zpool", "list"] and "tank" in c["stdout"])
    fresh.runner.pending = [listing]  # this appliance has its own "tank" imported (GUID 1832...)
    export = {"export_id": 101, "dataset": "tank/ds1", "path": "/tank/ds1", "protocol": "3",
              "clients": ["10.0.2.2"], "insecure_ports": False}  # fmt: skip
    payload = {
        "pools": [{"name": "tank", "guid": "42"}],
        "datasets": ["tank/ds1"],
        "sections": {"nfs": {"backend": "ganesha", "exports": [export]}},
        "skipped": [],
    }
    r = restore(fresh, _sealed(payload, 2, monkeypatch))
    assert r.status_code == 200, r.text
    lost = {(m["kind"], m["name"]): m["reason"] for m in r.json()["not_restored"]}
    assert "another pool of this name is imported here (GUID 18328816075162305721" in lost[("pool", "tank")]
    assert lost[("export", "101")] == "its dataset tank/ds1 is missing"
    assert fresh.runner.calls == [listing["argv"]]  # no import, no zfs get on the other pool, no NFS server
    assert snapshot(fresh)["exports"] == []
