"""/api/upgrades through the real app: a signed bundle uploads and stages; unsigned, tampered, older and
other-base bundles get their own 422 and leave nothing staged; apply without a staged bundle is a 409.
(Applying for real is the lab's test: tests/lab/upgrade.)"""

from __future__ import annotations

import json
import tarfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient
from fixtures.upgrade_bundles import manifest_for, payload, signed
from support.api import client_for, logged_in, make_settings

from appliance.upgrade import bundle, release

KEY = Ed25519PrivateKey.generate()


@pytest.fixture
def appliance(tmp_path: Path) -> Iterator[tuple[TestClient, Path]]:
    settings = make_settings(tmp_path / "data", install_root=tmp_path / "opt")
    (tmp_path / "data" / "etc").mkdir(parents=True)
    settings.upgrade_key_file.write_text(bundle.public_key_text(KEY))
    first = payload(tmp_path / "p1.tar")
    release.install(tmp_path / "opt", manifest_for(first, "v1", 10), first)
    release.switch(tmp_path / "opt", "v1")
    with client_for(settings) as client:
        yield logged_in(client), tmp_path


def put(client: TestClient, path: Path) -> object:
    return client.put(
        "/api/upgrades/bundle",
        content=path.read_bytes(),
        headers={"Content-Type": "application/octet-stream"},
    )


def test_status_names_the_running_release(appliance: tuple[TestClient, Path]) -> None:
    client, _ = appliance
    body = client.get("/api/upgrades").json()
    assert body["current"]["version"] == "v1" and body["current"]["release"] == 10
    assert body["staged"] is None and body["last"] is None
    assert [r["version"] for r in body["installed"]] == ["v1"]


def test_a_signed_newer_bundle_is_staged_and_can_be_discarded(appliance: tuple[TestClient, Path]) -> None:
    client, tmp = appliance
    r = put(client, signed(tmp / "v2.upgrade", KEY, "v2", 11))
    assert r.status_code == 201, r.text  # type: ignore[attr-defined]
    assert r.json()["version"] == "v2"  # type: ignore[attr-defined]
    assert client.get("/api/upgrades").json()["staged"]["version"] == "v2"
    assert client.delete("/api/upgrades/bundle").status_code == 204
    assert client.get("/api/upgrades").json()["staged"] is None


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (lambda tmp: signed(tmp / "x.upgrade", Ed25519PrivateKey.generate(), "v2", 11), "bundle_unsigned"),
        (lambda tmp: signed(tmp / "x.upgrade", KEY, "v0", 9), "bundle_not_newer"),
        (lambda tmp: signed(tmp / "x.upgrade", KEY, "v2", 11, base="c" * 64), "bundle_incompatible"),
        (lambda tmp: payload(tmp / "x.tar"), "bundle_malformed"),
    ],
)
def test_refused_bundles_get_their_code_and_stage_nothing(
    appliance: tuple[TestClient, Path], make, code
) -> None:  # type: ignore[no-untyped-def]
    client, tmp = appliance
    assert put(client, signed(tmp / "v2.upgrade", KEY, "v2", 11)).status_code == 201  # type: ignore[attr-defined]
    r = put(client, make(tmp))
    assert r.status_code == 422 and r.json()["code"] == code, r.text  # type: ignore[attr-defined]
    assert client.get("/api/upgrades").json()["staged"] is None
    assert sorted(p.name for p in (tmp / "data" / "upgrade").iterdir()) == ["staged"]


def test_a_tampered_bundle_is_refused(appliance: tuple[TestClient, Path]) -> None:
    client, tmp = appliance
    path = signed(tmp / "v2.upgrade", KEY, "v2", 11)
    with tarfile.open(path) as tar:
        at = tar.getmember("payload.tar").offset_data + 600  # inside the payload's first file
    data = bytearray(path.read_bytes())
    data[at] ^= 0x40
    (tmp / "t.upgrade").write_bytes(bytes(data))
    r = put(client, tmp / "t.upgrade")
    assert r.status_code == 422 and r.json()["code"] == "bundle_tampered", r.text  # type: ignore[attr-defined]
    assert client.get("/api/upgrades").json()["staged"] is None


def test_apply_needs_a_staged_bundle(appliance: tuple[TestClient, Path]) -> None:
    client, _ = appliance
    r = client.post("/api/upgrades/apply")
    assert r.status_code == 409 and r.json()["code"] == "upgrade_busy"


def test_without_login_nothing_is_open(tmp_path: Path) -> None:
    with client_for(make_settings(tmp_path)) as anon:
        assert anon.get("/api/upgrades").status_code == 401
        assert anon.put("/api/upgrades/bundle", content=b"x").status_code == 401


@pytest.mark.parametrize(("age_seconds", "running"), [(60, True), (7200, False)])
def test_a_running_upgrade_blocks_uploads_until_its_state_goes_stale(
    appliance: tuple[TestClient, Path], age_seconds: int, running: bool
) -> None:
    client, tmp = appliance
    updated = (datetime.now(UTC) - timedelta(seconds=age_seconds)).isoformat(timespec="seconds")
    state = {"state": "switching", "from_version": "v1", "to_version": "v2", "updated": updated, "steps": []}
    (tmp / "data" / "upgrade").mkdir(parents=True, exist_ok=True)
    (tmp / "data" / "upgrade" / "state.json").write_text(json.dumps(state))
    assert client.get("/api/upgrades").json()["last"]["in_progress"] is running
    r = put(client, signed(tmp / "v2.upgrade", KEY, "v2", 11))
    assert r.status_code == (409 if running else 201), r.text  # type: ignore[attr-defined]
