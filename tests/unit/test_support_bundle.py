"""POST /api/support/bundle on the real app: the archive's members and manifest, redaction of every secret
the appliance knows, and a bundle that still comes back when tools are missing, fail or hang.

The appliance under the api is every lab recording at once (tests/support/any_recording.py): the files
they read (arcstats, LIO's saveconfig.json with a CHAP secret, ganesha and knfsd exports) and the
commands' answers (the ``support_bundle`` recording's uname, journalctl, zpool events...) are real. The
``support_bundle`` recording (``record.py support_bundle`` in the lab) is also replayed strictly, alone.
Missing, failing and hanging tools are real processes (a missing binary, ``false``, ``sleep``).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import re
import tarfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fixtures.appliance import api_flows, support_flows
from fixtures.appliance.replay import load, replay
from support.any_recording import AnyRecordingRunner, any_recording
from support.api import ADMIN_PASSWORD, client_for, logged_in, make_settings

from api import VERSION, tls
from api.auth.service import now
from api.deployments.table import Deployment
from api.deps import SESSION_COOKIE
from api.support import redact
from api.support.schemas import Manifest
from api.vcenters.table import VCenter
from appliance.control import iscsi, modparams, support
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway, Result, SubprocessRunner
from appliance.control.nfs import ganesha

URL = "/api/support/bundle"
VC_USER, VC_PASSWORD = "administrator@vsphere.local", "Vc-Pa55word-for-the-bundle-test!"
FLEET_PASSWORD, HORIZON_PASSWORD = "fleet-admin-pw-9271", "horizon-svc-pw-5521"
SMTP_USER, SMTP_PASSWORD = "alerts@example.com", "smtp-secret-8812-xyz"
RECORDED_CHAP = "lab-only-secret-1"  # in iscsi.json's saveconfig.json
FILENAME = re.compile(r'attachment; filename="(arcvsa-support-[A-Za-z0-9._-]+-\d{8}T\d{6}Z)\.tar\.gz"')
COMMANDS = {i.name: i for i in support.items() if isinstance(i, support.Command)}


def _state(client: TestClient) -> Any:
    return client.app.state  # type: ignore[attr-defined]


def _tools(client: TestClient, gw: Gateway, files: LocalFiles) -> None:
    _state(client).storage_gateway, _state(client).storage_files = gw, files


def _admin(tmp_path: Path) -> TestClient:
    return logged_in(client_for(make_settings(tmp_path / "data")))


def _store_secrets(client: TestClient) -> dict[str, str]:
    """Every kind of secret the appliance keeps, made the way the api makes them; name -> value."""
    state = _state(client)
    box = state.secretbox
    with state.sessionmaker() as db:
        vc = VCenter(
            name="vc",
            host="vc.example",
            port=443,
            username=VC_USER,
            password_sealed=box.seal(VC_PASSWORD),
            created_at=now(),
        )
        db.add(vc)
        db.flush()
        sealed = box.seal(
            json.dumps({"admin_password": FLEET_PASSWORD, "horizon_password": HORIZON_PASSWORD})
        )
        db.add(
            Deployment(
                name="dep",
                vcenter_id=vc.id,
                plan_json="{}",
                secrets_sealed=sealed,
                created_at=now(),
                updated_at=now(),
            )
        )
        db.commit()
    smtp = {"username": SMTP_USER, "recipients": ["ops@example.com"], "host": "mail.example.com"}
    r = client.put(
        "/api/settings/notifications", json={"smtp": smtp, "syslog": {}, "smtp_password": SMTP_PASSWORD}
    )
    assert r.status_code == 200, r.text
    r = client.post("/api/metrics/scrape-tokens", json={"name": "prometheus-dc1"})
    assert r.status_code == 201, r.text
    scrape = r.json()["token"]
    settings = state.settings
    _, key = tls.ensure_certificate(settings.data_dir)
    session = client.cookies[SESSION_COOKIE]
    return {
        "vcenter password": VC_PASSWORD,
        "fleet admin password": FLEET_PASSWORD,
        "horizon password": HORIZON_PASSWORD,
        "smtp password": SMTP_PASSWORD,
        "admin password": ADMIN_PASSWORD,
        "scrape token": scrape,
        "scrape token hash": hashlib.sha256(scrape.encode()).hexdigest(),
        "session token": session,
        "session token hash": hashlib.sha256(session.encode()).hexdigest(),
        "csrf token": client.headers["X-CSRF-Token"],
        "secrets key": settings.key_file.read_text().strip(),
        "tls private key": key.read_text().strip(),
        "chap secret": RECORDED_CHAP,
    }


def _seed_appliance(client: TestClient, root: Path) -> AnyRecordingRunner:
    """Every recording's tools and files, LIO's config the iscsi recording read (a target with CHAP),
    ganesha's main config and an export as arcvsa writes them, the main config with an admin's note that holds secrets in free text
    (no key name gives them away: only the by-value layer can catch them)."""
    gw, files, runner = any_recording(root)
    saveconfig = load("iscsi")["reads"][iscsi.SAVECONFIG]
    assert RECORDED_CHAP in saveconfig
    files.write(iscsi.SAVECONFIG, saveconfig)
    basic = base64.b64encode(f"{VC_USER}:{VC_PASSWORD}".encode()).decode()
    plain = base64.b64encode(f"\0{SMTP_USER}\0{SMTP_PASSWORD}".encode()).decode()
    note = (
        f"# vCenter login for the NFS mount script: {VC_USER} {VC_PASSWORD}\n"
        f"# curl -H 'Authorization: Basic {basic}' (old notes)\n"
        f"# relay test: AUTH PLAIN {plain} / {SMTP_PASSWORD}\n"
    )
    files.write(ganesha.MAIN_CONF, ganesha.render_main() + note)
    files.write(ganesha.export_file(101), ganesha.render_export(support_flows.EXPORT))
    _tools(client, gw, files)
    return runner


def _open(r: Any) -> tuple[str, dict[str, bytes], bytes]:
    """(top folder, {member name below it: bytes}, the whole uncompressed tar stream)."""
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/gzip"
    found = FILENAME.fullmatch(r.headers["content-disposition"])
    assert found, r.headers["content-disposition"]
    top = found.group(1)
    raw = gzip.decompress(r.content)
    members: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(r.content), mode="r:gz") as tar:
        for info in tar.getmembers():
            assert info.isfile() and info.name.startswith(f"{top}/"), info.name
            handle = tar.extractfile(info)
            assert handle is not None
            members[info.name[len(top) + 1 :]] = handle.read()
    return top, members, raw


def _manifest(members: dict[str, bytes]) -> Manifest:
    return Manifest.model_validate_json(members["MANIFEST.json"])


def _encodings(secret: str) -> list[str]:
    """How a secret can show inside base64 text at any alignment (both alphabets), computed here on
    its own rather than with the code under test."""
    data = secret.encode()
    out = []
    for pad, skip in ((b"", 0), (b"\0", 2), (b"\0\0", 3)):
        for enc in (base64.b64encode, base64.urlsafe_b64encode):
            text = enc(pad + data).decode()
            out.append(text[skip : (len(pad) + len(data)) // 3 * 4])
    return out


def test_the_bundle_holds_every_item_and_a_manifest_of_them(tmp_path: Path) -> None:
    client = _admin(tmp_path)
    _seed_appliance(client, tmp_path / "root")
    r = client.post(URL)
    top, members, _ = _open(r)
    manifest = _manifest(members)
    assert manifest.version == VERSION and manifest.product == "arcvsa" and manifest.created_by == "admin"
    assert top.endswith(manifest.created_at.strftime("%Y%m%dT%H%M%SZ"))
    items = {i.name: i for i in manifest.items}
    # every file is listed with its size; every listed ok item is a file
    assert set(members) - {"MANIFEST.json"} == {n for n, i in items.items() if i.status == "ok"}
    for name, data in members.items():
        if name != "MANIFEST.json":
            assert items[name].size == len(data) > 0, name
    # every command is listed, and the support_bundle recording answers each
    assert set(COMMANDS) <= set(items)
    for name in (
        "zfs/zpool-status.txt",
        "zfs/zpool-events.txt",
        "zfs/zpool-history.txt",
        "logs/arcvsa-api.journal.txt",
        "logs/arcvsa-upgrade.journal.txt",
        "logs/chrony.journal.txt",
        "logs/rsyslog.journal.txt",
    ):
        assert items[name].status == "ok" and members[name], items[name]
    # the files the recordings hold, copied
    seeded = LocalFiles(tmp_path / "root").read("/proc/spl/kstat/zfs/arcstats")  # a recording's arcstats
    assert seeded and members["zfs/arcstats.txt"].decode() == seeded
    ganesha_exports = [n for n in members if n.startswith("nfs/ganesha/exports.d/arcvsa-")]
    knfsd_exports = [n for n in members if n.startswith("nfs/knfsd/exports.d/arcvsa-")]
    assert ganesha_exports and knfsd_exports
    assert items["nfs/ganesha/ganesha.conf"].status == "ok"
    assert items["zfs/dbgmsg.txt"].status == "ok"  # read by the support_bundle recording
    # the api's own
    assert json.loads(members["versions/arcvsa.json"])["version"] == VERSION
    assert items["versions/build-manifest.json"].status == "missing"  # not an appliance
    settings = json.loads(members["api/settings.json"])
    assert "admin_password" not in settings and settings["data_dir"] == str(tmp_path / "data")
    assert isinstance(json.loads(members["api/alerts.json"]), list)
    # never in a bundle
    for name in members:
        assert not name.endswith((".db", ".key", ".argon2")), name


def test_a_link_in_the_api_s_folder_brings_no_file_of_root_s_into_the_bundle(tmp_path: Path) -> None:
    """The bundle is made as root and reads first boot's outcome from the api's folder: a link there in
    its place is not followed."""
    client = _admin(tmp_path)
    _seed_appliance(client, tmp_path / "root")
    shadow = tmp_path / "shadow"
    shadow.write_text('{"root": "$y$j9T$not-for-the-api"}\n')
    (tmp_path / "data" / "firstboot.json").symlink_to(shadow)
    _, members, _ = _open(client.post(URL))
    items = {i.name: i for i in _manifest(members).items}
    assert items["api/firstboot.json"].status == "missing"
    assert not any(b"not-for-the-api" in data for data in members.values())


def test_no_secret_the_appliance_knows_is_in_any_byte_of_the_bundle(tmp_path: Path) -> None:
    client = _admin(tmp_path)
    secrets = _store_secrets(client)
    _seed_appliance(client, tmp_path / "root")
    _, members, raw = _open(client.post(URL))
    for what, secret in secrets.items():
        assert secret.encode() not in raw, what
        for encoded in _encodings(secret):
            assert encoded.encode() not in raw, f"{what} in base64"
    for compound in (f"{VC_USER}:{VC_PASSWORD}", f"\0{SMTP_USER}\0{SMTP_PASSWORD}"):
        for encoded in _encodings(compound):
            assert encoded.encode() not in raw, f"{compound!r} in base64"
    pem_lines = [ln for ln in secrets["tls private key"].splitlines() if not ln.startswith("-----")]
    assert pem_lines and not any(ln.encode() in raw for ln in pem_lines)

    # layer 1 kept the structure: LIO's CHAP values masked, the rest of its config intact
    lio = json.loads(members["iscsi/saveconfig.json"])
    acl = lio["targets"][0]["tpgs"][0]["node_acls"][0]
    assert acl["chap_password"] == redact.REDACTED
    recorded = json.loads(load("iscsi")["reads"][iscsi.SAVECONFIG])
    assert lio["storage_objects"] == recorded["storage_objects"]
    # layer 2 caught what no key name gives away, and the real config around it survived
    conf = members["nfs/ganesha/ganesha.conf"].decode()
    assert conf.startswith(ganesha.render_main()) and conf.count(redact.REDACTED) >= 4
    counts = _manifest(members).redaction
    assert counts.structural >= 1 and counts.by_value >= 4 and counts.secrets_known >= len(secrets)


def test_missing_failing_and_hanging_tools_are_in_the_manifest_and_the_bundle_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """zpool hangs (a real process killed at the timeout, as on a pool stalled on a LUN), zfs fails (a
    real process exiting 1), every other tool is missing and no file exists."""

    class Host:
        """Real processes stand in for the tools: ``sleep`` for zpool, ``false`` for zfs."""

        def __init__(self) -> None:
            self.calls: list[list[str]] = []
            self.missing = AnyRecordingRunner([])

        def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
            self.calls.append(list(argv))
            stand_in = {"zpool": ["sleep", "30"], "zfs": ["false"]}.get(argv[0])
            if stand_in is None:
                return self.missing.execute(argv, timeout=timeout)
            return SubprocessRunner().execute(stand_in, timeout=timeout)

    monkeypatch.setattr(support, "COMMAND_TIMEOUT", 0.5)
    client = _admin(tmp_path)
    host = Host()
    _tools(client, Gateway(host), LocalFiles(tmp_path / "empty"))
    started = time.monotonic()
    _, members, _ = _open(client.post(URL))
    assert time.monotonic() - started < 10  # one timeout, not one per pool command
    items = {i.name: i for i in _manifest(members).items}
    assert items["zfs/zpool-status.txt"].status == "timeout"
    assert items["zfs/zpool-status.txt"].error_type == "CommandTimeout"
    for name in ("zfs/zpool-list.txt", "zfs/zpool-events.txt", "zfs/zpool-history.txt", "zfs/zfs-list.txt"):
        assert items[name].status == "skipped", name
    assert items["api/alerts.json"].status == "ok"  # from the published state: no pool command behind it
    assert [c for c in host.calls if c[0] == "zpool"] == [["zpool", "status", "-v"]]
    version = items["versions/zfs-version.txt"]
    assert (version.status, version.error_type, version.exit_code) == ("failed", "CommandFailed", 1)
    assert items["logs/arcvsa-api.journal.txt"].status == "missing"
    assert items["iscsi/saveconfig.json"].status == "missing"
    assert items["nfs/ganesha/exports.d/"].status == "missing"
    assert items["zfs/module-parameters.txt"].status == "missing"  # zfs not loaded
    assert items["zfs/modprobe.d/"].status == "missing"
    assert set(members) == {"MANIFEST.json", *(n for n, i in items.items() if i.status == "ok")}
    assert {"versions/arcvsa.json", "api/settings.json"} <= set(members)


def test_a_parameter_that_cannot_be_read_is_named_and_the_others_listed(tmp_path: Path) -> None:
    """A module parameter whose read fails (here a folder where a value should be: a real EISDIR) is
    listed as unreadable; the others keep their values; a file gone between listing and reading says so."""

    class Vanishing(LocalFiles):
        def read(self, path: str) -> str | None:
            return None if path.endswith("/zil_slog_bulk") else super().read(path)

    files = Vanishing(tmp_path)
    for name, value in (("zfs_txg_timeout", "5\n"), ("zil_slog_bulk", "786432\n"), ("zfs_arc_max", "0\n")):
        files.write(f"{modparams.SYSFS}/{name}", value)
    (tmp_path / modparams.SYSFS.lstrip("/") / "spa_config_path").mkdir()
    piece = support._listing(files, support.Listing("zfs/module-parameters.txt", modparams.SYSFS))
    assert (piece.status, piece.source) == ("ok", f"folder: {modparams.SYSFS}")
    assert piece.text == (
        "spa_config_path <unreadable: IsADirectoryError>\n"
        "zfs_arc_max 0\n"
        "zfs_txg_timeout 5\n"
        "zil_slog_bulk <gone>\n"
    )


def test_the_bundle_needs_a_login(tmp_path: Path) -> None:
    client = client_for(make_settings(tmp_path / "data"))
    runner = AnyRecordingRunner([])
    _tools(client, Gateway(runner), LocalFiles(tmp_path / "empty"))
    r = client.post(URL)
    assert r.status_code == 401 and r.json()["code"] == "not_authenticated"
    assert runner.calls == []  # refused before any tool ran


def test_structural_redaction_of_configs_and_log_lines() -> None:
    counts = redact.Counts()
    line = (
        '2026-11-23T01:02:03+0000 vsa arcvsa-api[7]: login token=abc123 chap_mutual_password = "p w" '
        'ok {"password": "x1", "name": "tank"} pool=tank'
    )
    out = redact.redact_text(line, counts)
    assert "abc123" not in out and "p w" not in out and '"x1"' not in out
    assert '"name": "tank"' in out and "pool=tank" in out and counts.structural == 3
    export = ganesha.render_export(support_flows.EXPORT)
    assert redact.redact_text(export, counts) == export  # nothing secret in an export block
    nested = {"a": [{"Secret_Key": "k", "key": "pool/tank/degraded", "auth": {"password": None}}]}
    assert redact.redact_json(nested, counts) == {
        "a": [{"Secret_Key": redact.REDACTED, "key": "pool/tank/degraded", "auth": {"password": None}}]
    }


def test_a_secret_inside_base64_is_masked_at_any_alignment() -> None:
    secret = "s3cr3t-value-42"
    masker = redact.Masker.of([secret, "ab"])
    assert (masker.known, masker.too_short) == (1, 1)
    for prefix in (b"", b"x", b"xy", b"user:"):
        text = base64.b64encode(prefix + secret.encode() + b" trailing").decode()
        masked = masker.mask(f"Authorization: Basic {text}", redact.Counts())
        assert not any(e in masked for e in _encodings(secret)), prefix
    escaped = masker.mask(json.dumps({"note": f"pw {secret}"}), redact.Counts())
    assert secret not in escaped and json.loads(escaped)["note"] == f"pw {redact.REDACTED}"


def test_lio_secrets_are_read_from_the_recorded_config() -> None:
    assert support.lio_secrets(load("iscsi")["reads"][iscsi.SAVECONFIG]) == [RECORDED_CHAP]
    assert support.lio_secrets(None) == [] and support.lio_secrets("not json") == []


def test_the_recorded_appliance_bundle_has_every_item(tmp_path: Path) -> None:
    """Strict replay of the lab: every command the bundle runs was recorded, and each answered."""
    gw, files, runner = replay("support_bundle", tmp_path / "root")
    client = api_flows.client(tmp_path / "data", gw, files)
    _, members, raw = _open(client.post(URL))
    assert runner.pending == []  # exactly the recorded commands, each once
    items = {i.name: i for i in _manifest(members).items}
    for name in COMMANDS:
        assert items[name].status == "ok", items[name]
    for name in ("zfs/arcstats.txt", "iscsi/saveconfig.json", "nfs/ganesha/ganesha.conf", "api/alerts.json"):
        assert items[name].status == "ok", items[name]
    assert b"tank" in members["zfs/zpool-status.txt"] and b"tank" in members["zfs/zpool-history.txt"]
    # the zfs module's parameters in effect, one line each, and what modprobe sets at load: the lab
    # VM's api held the device wait at its start (appliance.control.modparams.hold)
    params = dict(line.split(" ", 1) for line in members["zfs/module-parameters.txt"].decode().splitlines())
    assert len(params) > 200 and params["zfs_vdev_open_timeout_ms"] == "10000", len(params)
    assert params["zfs_txg_timeout"].isdigit() and params["zfs_arc_max"].isdigit()
    devices = members["zfs/modprobe.d/zfs-arcvsa-devices.conf"].decode()
    assert devices == modparams.render(modparams.DEVICE_WAIT, modparams.DEVICES_HEADER)
    assert b"zfs-2.3" in members["versions/zfs-version.txt"]
    assert any(n.startswith("nfs/ganesha/exports.d/arcvsa-") for n in members)
    chap = support_flows.CHAP.secret
    assert chap.encode() not in raw and not any(e.encode() in raw for e in _encodings(chap))
    lio = json.loads(members["iscsi/saveconfig.json"])
    acls = [a for t in lio["targets"] for tpg in t["tpgs"] for a in tpg["node_acls"]]
    assert acls and all(a["chap_password"] == redact.REDACTED for a in acls)
