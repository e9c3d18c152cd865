"""Issue 9 part 1's acceptance in the lab: an in-place upgrade of a running appliance that serves a pool
and an NFS export while a host writes to it (FILE_SYNC, every acknowledged write logged).

The appliance boots the image of the previous commit (``lab.previous``: built the way `make image`
builds it, from a worktree, with this tree's keys) and is upgraded to this tree's own bundle
(``build/image/arcvsa-<version>.upgrade``). When the previous commit predates upgrades or has another
package set (its appliances take a new OVA, not a bundle: ``lab.previous.check_base``), it boots this
tree's image instead and the next release is made the way the pipeline makes one (this tree's payload
with one migration added, signed with the build's key); the test says which it did.

1. a bundle signed with another key, and the next bundle with one payload byte changed: refused (422),
   nothing staged;
2. a release whose migration fails: applied, it does not come up, the upgrader puts the database copy
   and the previous release back, and the appliance serves again as before;
3. the good release: applied, the api comes back as that release, its migrations ran, pools,
   datasets, export, users, TLS certificate and settings are as before.

The writer runs through all of it; at the end its file is read back over NFS and every acknowledged
write must be there (reliability/ledger.py's rule), and nfs-ganesha is the process it was (never restarted).
"""

from __future__ import annotations

import http.client
import json
import os
import ssl
import tarfile
import time
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding
from fixtures.appliance.remote import SshRunner, nfs_cp, wait_writable
from support.lab_api import LabApi, in_guest
from support.lab_boot import BootedAppliance
from support.next_release import BUILD, head_revision, migration, next_bundle

from appliance.control import modparams
from appliance.upgrade import bundle
from reliability.ledger import read_ledger, verify
from reliability.writer import Writer, WriterSpec

pytestmark = [pytest.mark.lab, pytest.mark.timeout(3600)]

LUN0 = "/dev/disk/by-id/virtio-lun0"
HOST = "10.0.2.2"  # the host as qemu user networking shows it to the guest
DATASET = "tank/vdi"
OPS_PASSWORD = "lab-only-ops-" + os.urandom(6).hex()
UPGRADE_TIMEOUT = 1200


def put_bundle(booted: BootedAppliance, token: str, path: Path) -> tuple[int, Any]:
    """PUT /api/upgrades/bundle with the file as the body, over the pinned certificate."""
    pinned = x509.load_pem_x509_certificate(booted.api.cert_file.read_bytes()).public_bytes(Encoding.DER)
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # pinned below instead
    conn = http.client.HTTPSConnection("127.0.0.1", booted.api.port, context=context, timeout=900)
    try:
        conn.connect()
        assert conn.sock is not None and conn.sock.getpeercert(binary_form=True) == pinned
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"}
        with path.open("rb") as body:
            conn.request("PUT", "/api/upgrades/bundle", body=body, headers=headers)
            answer = conn.getresponse()
            return answer.status, json.loads(answer.read() or b"null")
    finally:
        conn.close()


def wait_run(api: LabApi, to_version: str) -> dict[str, Any]:
    """Poll GET /api/upgrades (the api restarts under us) until the run to ``to_version`` has ended."""
    deadline = time.monotonic() + UPGRADE_TIMEOUT
    seen = []
    while time.monotonic() < deadline:
        try:
            status, body = api.raw("GET", "/api/upgrades")
        except Exception as exc:  # the api is restarting: refused or reset connections
            seen.append(type(exc).__name__)
            time.sleep(3)
            continue
        last = body.get("last") if status == 200 else None
        if (
            last
            and last["to_version"] == to_version
            and last["state"] not in {"queued", "verifying", "installing", "switching", "rolling_back"}
        ):
            print(
                f"  run to {to_version}: {[s['state'] for s in last['steps']]} (api away: {len(seen)} polls)"
            )
            return dict(body)
        time.sleep(3)
    raise AssertionError(f"the upgrade to {to_version} did not end within {UPGRADE_TIMEOUT} s")


def ganesha_process(guest: SshRunner) -> str:
    """nfs-ganesha's main PID and start time: what an upgrade must leave as it is."""
    argv = ["systemctl", "show", "--property=MainPID,ExecMainStartTimestampMonotonic", "nfs-ganesha"]
    shown = in_guest(guest, argv).stdout.strip()
    assert "MainPID=0" not in shown.splitlines(), shown
    return shown


def configuration(api: LabApi) -> dict[str, Any]:
    """What must survive an upgrade, as the api reports it."""
    pools = {p["name"]: p["state"] for p in api.call("GET", "/api/storage/pools")}
    datasets = sorted(d["name"] for p in pools for d in api.call("GET", f"/api/storage/pools/{p}/datasets"))
    exports = [
        (e["export_id"], e["path"], e["clients"], e["active"])
        for e in api.call("GET", "/api/storage/exports")
    ]
    users = sorted(u["username"] for u in api.call("GET", "/api/users"))
    notify = api.call("GET", "/api/settings/notifications")
    return {"pools": pools, "datasets": datasets, "exports": exports, "users": users, "notify": notify}


def target(mode: str, work: Path, running: str, number: int, key: Ed25519PrivateKey) -> tuple[Path, str, str]:
    """(the good bundle, its version, the migration head it brings)."""
    if mode == "previous":
        record = json.loads((BUILD / "latest.json").read_text(encoding="utf-8"))
        return Path(record["upgrade_bundle"]), record["version"], head_revision()
    probe = 'op.create_table("upgrade_probe", sa.Column("id", sa.Integer, primary_key=True))'
    files = {"lib/api/migrations/versions/9001_upgrade_probe.py": migration("9001", probe)}
    return (
        next_bundle(work / "good.upgrade", f"{running}.next", number + 1, files, key),
        f"{running}.next",
        "9001",
    )


def test_an_in_place_upgrade_keeps_data_and_configuration_and_rolls_back_a_failed_one(
    booted: BootedAppliance,
    api: LabApi,
    guest: SshRunner,
    upgrade_from: dict[str, Any],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    work = tmp_path_factory.mktemp("upgrade")
    key = bundle.load_private_key(BUILD / "keys" / "upgrade")
    start = api.call("GET", "/api/upgrades")
    current = start["current"]
    assert current is not None, start
    version, number = current["version"], current["release"]
    assert api.client.health()["version"] == version == upgrade_from["record"]["version"]
    good, new_version, new_head = target(upgrade_from["mode"], work, version, number, key)
    print(f"\nrunning release {version} ({number}); upgrading to {new_version} ({upgrade_from['mode']})")

    # --- what the upgrade must keep: a pool, a datastore, an export, a user, settings, the certificate -
    api.call("POST", "/api/storage/pools", {"name": "tank", "data": [LUN0]}, expect=201)
    api.call("POST", "/api/storage/datasets", {"name": DATASET, "profile": "stateless-linked"}, expect=201)
    body = {"dataset": DATASET, "protocol": "3", "clients": [HOST], "insecure_ports": True}
    api.call("POST", "/api/storage/exports", body, expect=201)
    api.call("POST", "/api/users", {"username": "ops", "password": OPS_PASSWORD}, expect=201)
    notify = api.call("GET", "/api/settings/notifications")
    notify["syslog"] = {**notify["syslog"], "host": "192.0.2.20", "port": 1514}
    api.call("PUT", "/api/settings/notifications", {k: notify[k] for k in ("smtp", "syslog")})
    before = configuration(api)
    cert = booted.api.cert_file.read_bytes()
    nfs_server = ganesha_process(guest)

    # --- a host writes FILE_SYNC through the export the whole time ----------------------------------
    ports = booted.vm.config.host_ports
    url = f"nfs://127.0.0.1/tank/vdi?nfsport={ports['nfs']}&mountport={ports['mountd']}"
    wait_writable(lambda path: f"nfs://127.0.0.1{path}?nfsport={ports['nfs']}&mountport={ports['mountd']}",
                  "/tank/vdi", work / "probe")  # fmt: skip
    spec = WriterSpec(
        "upgrade",
        url,
        "upgrade.dat",
        "sync",
        work / "writer.log",
        seed=int.from_bytes(os.urandom(3)),
        rate=20,
    )
    writer = Writer(spec, 1, work / "writer.stderr")
    try:
        # --- refused bundles ------------------------------------------------------------------------
        foreign = next_bundle(
            work / "foreign.upgrade", f"{version}.x", number + 1, {}, Ed25519PrivateKey.generate()
        )
        status, answer = put_bundle(booted, api.token, foreign)
        assert (status, answer["code"]) == (422, "bundle_unsigned"), answer
        tampered = work / "tampered.upgrade"
        data = bytearray(good.read_bytes())
        with tarfile.open(good) as tar:
            data[tar.getmember("payload.tar").offset_data + 4096] ^= 0x20
        tampered.write_bytes(bytes(data))
        status, answer = put_bundle(booted, api.token, tampered)
        assert (status, answer["code"]) == (422, "bundle_tampered"), answer
        assert api.call("GET", "/api/upgrades")["staged"] is None

        # --- a release that fails its migration: rolled back ----------------------------------------
        failing = {
            "lib/api/migrations/versions/9001_fails.py": migration(
                "9001", 'raise RuntimeError("lab: this migration fails")'
            )
        }
        bad = next_bundle(work / "bad.upgrade", f"{version}.bad", number + 2, failing, key)
        status, answer = put_bundle(booted, api.token, bad)
        assert status == 201, answer
        t0 = time.monotonic()
        api.call("POST", "/api/upgrades/apply", expect=202)
        ended = wait_run(api, f"{version}.bad")
        print(f"  failed release rolled back in {time.monotonic() - t0:.0f} s: {ended['last']['error']}")
        assert ended["last"]["state"] == "rolled_back", ended["last"]
        assert ended["current"]["version"] == version
        assert api.client.health()["version"] == version
        assert configuration(api) == before
        assert writer.alive(), "the writer stopped during the rollback"
        assert ganesha_process(guest) == nfs_server

        # --- the good release ---------------------------------------------------------------------
        status, answer = put_bundle(booted, api.token, good)
        assert status == 201, answer
        t0 = time.monotonic()
        api.call("POST", "/api/upgrades/apply", expect=202)
        ended = wait_run(api, new_version)
        print(f"  upgrade done in {time.monotonic() - t0:.0f} s")
        assert ended["last"]["state"] == "done", ended["last"]
        assert ended["current"]["version"] == new_version
        assert [r["version"] for r in ended["installed"]] == [new_version, version]
        assert api.client.health()["version"] == new_version
        assert configuration(api) == before
        assert booted.api.cert_file.read_bytes() == cert
        assert api.client.token("ops", OPS_PASSWORD)
        probe = in_guest(guest, ["/opt/arcvsa/venv/bin/python", "-c",
            "import sqlite3; print(sqlite3.connect('/var/lib/arcvsa/arcvsa.db').execute("
            "'select version_num from alembic_version').fetchone()[0])"])  # fmt: skip
        assert probe.stdout.strip() == new_head, probe.stdout
        # The new release's api holds the device wait itself: images before 7350ca7 carried it as a
        # file of their own (another header), which upgrades never install.
        devices = in_guest(guest, ["cat", modparams.DEVICES]).stdout
        assert devices == modparams.render(modparams.DEVICE_WAIT, modparams.DEVICES_HEADER), devices
        waited = in_guest(guest, ["cat", f"{modparams.SYSFS}/zfs_vdev_open_timeout_ms"]).stdout
        assert waited.strip() == "10000", waited
        assert writer.alive(), "the writer stopped during the upgrade"
        # Not restarted either (a restart stalls creates for the grace period): the same process.
        assert ganesha_process(guest) == nfs_server
    finally:
        writer.stop()

    # --- every acknowledged write is on the server ------------------------------------------------
    back = work / "upgrade.dat"
    nfs_cp(
        f"nfs://127.0.0.1/tank/vdi/upgrade.dat?nfsport={ports['nfs']}&mountport={ports['mountd']}", str(back)
    )
    verdict = verify(read_ledger(spec.log), back.read_bytes(), spec.content)
    print(f"  writer: {verdict.acked_writes} acknowledged writes, {len(verdict.lost)} lost")
    assert verdict.acked_writes > 0 and verdict.lost == [], verdict.lost[:3]
