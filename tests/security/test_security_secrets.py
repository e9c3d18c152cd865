"""Secrets never reach a log line or the database in plain text.

The flows that handle secrets run with every logger at DEBUG into a file: logins (right and wrong
passwords, cookie and token), a user added and their password changed, a vCenter connected with its
password (vcsim), and an iSCSI target request with a CHAP secret that validation refuses. Then the log file and
the SQLite files (database, WAL) are searched for every plaintext secret, and for the session tokens,
which the database keeps only as SHA-256. The vCenter row must be there, sealed, so the search means
something.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance import api_flows
from fixtures.appliance.replay import ReplayRunner
from sqlalchemy import text
from support.api import ADMIN, ADMIN_PASSWORD
from support.security_kit import Api, Tally

from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway

USER_PASSWORD = "first-user-passphrase-4821"
USER_PASSWORD_2 = "second-user-passphrase-7730"
WRONG_PASSWORD = "typo-of-the-passphrase-5512"


@pytest.fixture
def debug_log(tmp_path: Path) -> Iterator[Path]:
    """Every logger at DEBUG into one file for the test."""
    path = tmp_path / "api-debug.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setLevel(logging.DEBUG)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield path
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        handler.close()


def _database_bytes(data_dir: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(data_dir.glob("arcvsa.db*")))


def test_secrets_are_absent_from_logs_and_sealed_in_the_database(
    tmp_path: Path, debug_log: Path, vcsim: Any, tally: Tally
) -> None:
    api = Api(tmp_path / "data", tmp_path / "root")
    c, auth = api.client, api.auth
    secrets: dict[str, str] = {"admin password": ADMIN_PASSWORD, "bearer token": api.token}

    r = c.post("/api/auth/login", json={"username": ADMIN, "password": WRONG_PASSWORD})
    assert r.status_code == 401
    secrets["mistyped password"] = WRONG_PASSWORD
    r = c.post("/api/auth/login", json={"username": ADMIN, "password": ADMIN_PASSWORD})
    assert r.status_code == 200
    secrets["session cookie"] = r.cookies["arcvsa_session"]
    c.cookies.clear()
    r = c.post("/api/users", json={"username": "second", "password": USER_PASSWORD}, headers=auth)
    assert r.status_code == 201, r.text
    user_id = r.json()["id"]
    r = c.put(f"/api/users/{user_id}/password", json={"new_password": USER_PASSWORD_2}, headers=auth)
    assert r.status_code == 200, r.text
    secrets |= {"user password": USER_PASSWORD, "changed password": USER_PASSWORD_2}

    vcenter = {
        "name": "lab",
        "host": vcsim.host,
        "port": vcsim.port,
        "username": vcsim.username,
        "password": vcsim.password,
        "thumbprint_sha256": vcsim.thumbprint_sha256,
    }
    r = c.post("/api/vcenters", json=vcenter, headers=auth)
    assert r.status_code == 201, r.text
    assert vcsim.password not in r.text
    secrets["vCenter password"] = vcsim.password
    r = c.post(f"/api/vcenters/{r.json()['id']}/test", headers=auth)
    assert r.status_code == 200 and r.json()["ok"], r.text

    # iSCSI with CHAP: a request carrying a secret that validation refuses, whose path (the 422 and
    # whatever it logs) must not echo it. Only that path: a target is made in LIO, which is the lab's
    # (tests/lab/storage/test_lio.py samples every argv during CHAP creates).
    iscsi = api_flows.client(
        tmp_path / "iscsi-data",
        Gateway(ReplayRunner({"commands": []})),
        LocalFiles(tmp_path / "iscsi-root"),
        publish=False,
    )
    chap = "lab-only-secret-2"
    target = {"iqn": api_flows.IQN, "zvol": "tank/no;such", "initiators": [api_flows.ESXI]}
    r = iscsi.post("/api/storage/iscsi/targets", json={**target, "chap": {"user": "esxi", "secret": chap}})
    assert r.status_code == 422 and chap not in r.text, r.text
    secrets["CHAP secret"] = chap

    with api.app.state.sessionmaker() as db:
        sealed = db.execute(text("SELECT password_sealed FROM vcenters")).scalars().all()
    assert len(sealed) == 1 and sealed[0], "the vCenter and its sealed password must be stored"
    log = debug_log.read_text(encoding="utf-8")
    stores = {
        "debug log": log.encode(),
        "database": _database_bytes(tmp_path / "data"),
        "iSCSI database": _database_bytes(tmp_path / "iscsi-data"),
    }
    assert log.count("\n") > 5, "the debug log caught nothing: the capture is broken"
    found = [
        f"{name} in {store}"
        for name, secret in secrets.items()
        for store, content in stores.items()
        if secret.encode() in content
    ]
    tally.add(
        "secrets", searched=len(secrets), stores=len(stores), log_lines=log.count("\n"), found=len(found)
    )
    for item in found:
        tally.note("secrets", "found_examples", item)
    assert not found, found
