"""A deployment's rolling upgrade through the manager (job kind 'upgrade', provisioning.rolling), against
real arcvsa apis served over TLS on the strict replay of the 'fleet' recording, each with a release tree
and the upgrade key of its own: what the manager keeps, and how a roll stops before anything is applied.

What an upgrade itself does on an appliance (its upgrader, the restart, the rollback) is the lab's: the
lab test drives the real lab appliance through a rolling upgrade.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient
from fixtures.appliance import fleet_flows
from fixtures.upgrade_bundles import signed
from support.api import client_for, logged_in, make_settings
from support.appliance_server import release_trees, replayed_appliances

from appliance.upgrade import bundle
from lab.vcsim import CLUSTER, DATACENTER, DATASTORES, Vcsim
from provisioning.appliance_api import ApplianceApi

KEY = Ed25519PrivateKey.generate()
OTHER = Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def site() -> Iterator[Vcsim]:
    with Vcsim() as sim:
        yield sim


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[TestClient]:
    settings = make_settings(tmp_path / "manager")
    settings.etc_dir.mkdir(parents=True)
    (settings.etc_dir / "upgrade-signing.pub").write_text(bundle.public_key_text(KEY))
    with client_for(settings) as c:
        yield logged_in(c)


def _deployment(manager: TestClient, site: Vcsim, appliances: list[dict[str, Any]]) -> int:
    vc = {"name": "vc", "host": site.host, "port": site.port, "username": site.username,
          "password": site.password, "thumbprint_sha256": site.thumbprint_sha256}  # fmt: skip
    r = manager.post("/api/vcenters", json=vc)
    assert r.status_code == 201, r.text
    fleet = {"ova_path": "x.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
             "admin_password": fleet_flows.PASSWORD, "appliances": appliances}  # fmt: skip
    plan = {"name": "fleet-u", "datacenter": DATACENTER, "cluster": CLUSTER, "fleet": fleet}
    r = manager.post("/api/deployments", json={"vcenter_id": r.json()["id"], "plan": plan})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def _finished(manager: TestClient, job_id: int) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job = manager.get(f"/api/jobs/{job_id}").json()
        if job["state"] not in ("queued", "running"):
            return dict(job)
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} still {job['state']}")


def test_the_manager_keeps_a_bundle_only_once_its_signature_is_checked(
    manager: TestClient, tmp_path: Path
) -> None:
    good = signed(tmp_path / "v2.upgrade", KEY, "v2.0", 20)
    other = signed(tmp_path / "other.upgrade", OTHER, "v2.0", 20)
    assert manager.get("/api/fleet/bundle").status_code == 404
    refused = manager.put("/api/fleet/bundle", content=other.read_bytes())
    assert refused.status_code == 422 and "signature" in refused.json()["detail"], refused.text
    assert manager.get("/api/fleet/bundle").status_code == 404  # nothing kept
    junk = manager.put("/api/fleet/bundle", content=b"not a bundle")
    assert junk.status_code == 422
    kept = manager.put("/api/fleet/bundle", content=good.read_bytes())
    assert kept.status_code == 201 and kept.json()["version"] == "v2.0", kept.text
    assert manager.get("/api/fleet/bundle").json()["release"] == 20
    assert manager.put("/api/fleet/bundle", content=other.read_bytes()).status_code == 422
    assert manager.get("/api/fleet/bundle").json()["version"] == "v2.0", "a refused upload keeps the kept one"
    assert manager.delete("/api/fleet/bundle").status_code == 204
    assert manager.get("/api/fleet/bundle").status_code == 404


def test_a_roll_stops_at_an_appliance_that_refuses_the_bundle_before_any_is_upgraded(
    manager: TestClient, site: Vcsim, tmp_path: Path
) -> None:
    runs = [("v1.0", 10, KEY), ("v2.0", 20, KEY), ("v1.0", 10, OTHER), ("v1.0", 10, KEY)]
    good = signed(tmp_path / "v2.upgrade", KEY, "v2.0", 20)
    with replayed_appliances(
        tmp_path / "fleet", 4, "fleet", fleet_flows.PASSWORD, settings=release_trees(tmp_path, runs)
    ) as served:
        specs = [
            {
                "host": f"DC0_C0_H{i}",
                "name": f"vsa-{i}",
                "api_endpoint": s.endpoint,
                "api_thumbprint_sha256": s.thumbprint,
            }
            for i, (s, _) in enumerate(served)
        ]
        dep = _deployment(manager, site, specs)
        no_bundle = manager.post(
            f"/api/deployments/{dep}/upgrade", json={"admin_password": fleet_flows.PASSWORD}
        )
        assert manager.put("/api/fleet/bundle", content=good.read_bytes()).status_code == 201
        no_password = manager.post(f"/api/deployments/{dep}/upgrade", json={})
        started = manager.post(
            f"/api/deployments/{dep}/upgrade", json={"admin_password": fleet_flows.PASSWORD}
        )
        assert started.status_code == 202, started.text
        assert started.json()["kind"] == "upgrade"
        busy = manager.delete("/api/fleet/bundle")  # while the roll may still run: refused
        job = _finished(manager, started.json()["id"])
        events = manager.get(f"/api/jobs/{job['id']}/events").json()
        staged = []
        for s, _ in served:
            api = ApplianceApi(s.endpoint, s.thumbprint)
            api.login(fleet_flows.PASSWORD)
            staged.append(api.call("GET", "/api/upgrades")["staged"])

    assert no_bundle.status_code == 409 and "upload one first" in no_bundle.json()["detail"]
    assert no_password.status_code == 422 and no_password.json()["field"] == "admin_password"
    assert busy.status_code in (204, 409)
    assert job["state"] == "failed", job
    assert [f["object"] for f in job["failures"]] == ["vsa-2"]
    assert (
        "signature" in job["failures"][0]["reason"] and "staging the bundle" in job["failures"][0]["reason"]
    )
    assert "0 upgraded to v2.0, 1 already on it or newer; stopped at vsa-2" in job["message"]
    assert "vsa-3 not started" in job["message"]
    # staged on vsa-0 and taken back when the roll stopped; vsa-1 runs v2.0 already; vsa-3 never reached
    assert staged == [None, None, None, None]
    said = [(e["object"], e["message"]) for e in events if e["object"]]
    assert ("vsa-1", "v2.0: already runs it; left as it is") in said
    assert any(o == "vsa-0" and m.startswith("staging v2.0") for o, m in said)
    stopped = "not started: the roll stopped at vsa-2; it stays on the release it runs"
    assert [m for o, m in said if o == "vsa-3"] == [stopped] and ("vsa-0", stopped) in said
    assert not any("upgrading from" in m for _, m in said), "nothing was applied anywhere"
