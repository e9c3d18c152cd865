"""The fleet manager driving the real lab appliance: its storage through the manager's drill-down, then a
rolling upgrade of it while a host writes to its datastore.

The manager is this tree's api on the host (no storage of its own), with vcsim as the deployment's
vCenter and the build's upgrade key; its deployment names the lab appliance by its forwarded api port and
pinned certificate, as apply would have left it.

1. through /api/fleet/{id}/appliances/vsa-lab/api/...: a pool on a LUN, a datastore, an NFS export to
   the host; the appliance's own api then shows them, and the fleet view reads its figures;
2. a host writes FILE_SYNC through that export the whole time;
3. a release whose migration fails, rolled out: the appliance's upgrader rolls it back, the roll stops
   there with that reason and the appliance serves its release again;
4. the next release (this tree's payload under another version, signed with the build's key) kept on
   the manager and rolled out: the job succeeds once the appliance answers as the new release with its
   pool ONLINE and its export active; every acknowledged write is on the server afterwards.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from e2e import jobs_harness as harness
from fixtures.appliance.remote import nfs_cp, wait_writable
from support.lab_api import LabApi
from support.lab_boot import BootedAppliance
from support.next_release import BUILD, migration, next_bundle

from appliance.upgrade import bundle
from lab.stack import ApiServer
from lab.vcsim import CLUSTER, DATACENTER, DATASTORES, Vcsim
from provisioning.certificate import thumbprint_sha256
from reliability.ledger import read_ledger, verify
from reliability.writer import Writer, WriterSpec

pytestmark = [pytest.mark.lab, pytest.mark.timeout(3600)]

LUN0 = "/dev/disk/by-id/virtio-lun0"
HOST = "10.0.2.2"  # the host as qemu user networking shows it to the guest
DATASET = "tank/fleet"
ROLL_TIMEOUT = 1800


@pytest.fixture(scope="module")
def manager(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, int]]:
    """The manager's api, logged in, trusting the build's upgrade key, with vcsim registered (and its id)."""
    work = tmp_path_factory.mktemp("manager")
    etc = work / "etc"
    etc.mkdir()
    key = bundle.load_private_key(BUILD / "keys" / "upgrade")
    (etc / "upgrade-signing.pub").write_text(bundle.public_key_text(key))
    with (
        Vcsim() as sim,
        ApiServer(work / "data", harness.PASSWORD, env={"ARCVSA_ETC_DIR": str(etc)}) as server,
        harness.lab_api(server, sim) as (client, vcenter_id),
    ):
        client.timeout = httpx.Timeout(900)
        yield client, vcenter_id


def _ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, f"{r.request.method} {r.request.url.path}: {r.status_code} {r.text}"
    return r.json() if r.content else None


def _job(client: httpx.Client, job_id: int, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    seen = ""
    while time.monotonic() < deadline:
        job = _ok(client.get(f"/api/jobs/{job_id}"))
        events = _ok(client.get(f"/api/jobs/{job_id}/events"))
        said = events[-1]["message"] if events else ""
        if said != seen:
            print(f"  roll: {said}")
            seen = said
        if job["state"] not in ("queued", "running"):
            return dict(job)
        time.sleep(5)
    raise AssertionError(f"the rolling upgrade did not end within {timeout} s")


def test_the_lab_appliance_through_the_manager_and_a_rolling_upgrade_of_it(
    booted: BootedAppliance,
    api: LabApi,
    manager: tuple[httpx.Client, int],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    client, vcenter_id = manager
    work = tmp_path_factory.mktemp("fleet")
    der = x509.load_pem_x509_certificate(booted.api.cert_file.read_bytes()).public_bytes(Encoding.DER)
    appliance = {"host": "DC0_C0_H0", "name": "vsa-lab", "api_endpoint": f"127.0.0.1:{booted.api.port}",
                 "api_thumbprint_sha256": thumbprint_sha256(der)}  # fmt: skip
    fleet = {"ova_path": "arcvsa.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
             "admin_password": api.password, "appliances": [appliance]}  # fmt: skip
    plan = {"name": "lab-fleet", "datacenter": DATACENTER, "cluster": CLUSTER, "fleet": fleet}
    dep = _ok(client.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": plan}), 201)["id"]
    base = f"/api/fleet/{dep}/appliances/vsa-lab/api"

    # --- 1. its storage, made through the manager ---------------------------------------------------
    t0 = time.monotonic()
    _ok(client.post(f"{base}/storage/pools", json={"name": "tank", "data": [LUN0]}), 201)
    _ok(client.post(f"{base}/storage/datasets", json={"name": DATASET, "profile": "stateless-linked"}), 201)
    export = {"dataset": DATASET, "protocol": "3", "clients": [HOST], "insecure_ports": True}
    _ok(client.post(f"{base}/storage/exports", json=export), 201)
    print(f"\npool, datastore and export made through the manager in {time.monotonic() - t0:.1f} s")
    refused = client.post(f"{base}/storage/pools", json={"name": "tank", "data": [LUN0]})
    assert refused.status_code in (409, 422), refused.text  # the appliance's own refusal, passed on
    pools = {p["name"]: p["state"] for p in api.call("GET", "/api/storage/pools")}
    assert pools == {"tank": "ONLINE"}, pools
    [served] = [e for e in api.call("GET", "/api/storage/exports") if e["dataset"] == DATASET]
    assert served["clients"] == [HOST] and served["active"], served

    # its dashboard through the manager: the proxied summary and the fleet view
    deadline = time.monotonic() + 120
    while True:
        summary = _ok(client.get(f"{base}/storage/metrics/summary"))
        view = _ok(client.get("/api/fleet", params={"minutes": 15}))
        [row] = [a for d in view["deployments"] for a in d["appliances"]]
        cards = [c for c in summary["exports"] if c.get("dataset") == DATASET]
        if row["state"] == "ok" and row["pools"] and cards:
            break
        assert time.monotonic() < deadline, (row, summary)
        time.sleep(5)
    assert [(p["name"], p["health"]) for p in row["pools"]] == [("tank", "ONLINE")]
    assert row["version"] == api.client.health()["version"] and row["figures"] is not None
    print(f"  fleet view: {row['state']}, read in {row['seconds']} s, {len(row['series'])} buckets")

    # --- 2. a host writes through the export the whole time -------------------------------------------
    ports = booted.vm.config.host_ports
    query = f"nfsport={ports['nfs']}&mountport={ports['mountd']}"
    wait_writable(lambda path: f"nfs://127.0.0.1{path}?{query}", f"/{DATASET}", work / "probe")
    spec = WriterSpec(
        "fleet", f"nfs://127.0.0.1/{DATASET}?{query}", "fleet.dat", "sync", work / "writer.log",
        seed=int.from_bytes(os.urandom(3)), rate=20,
    )  # fmt: skip
    writer = Writer(spec, 1, work / "writer.stderr")
    try:
        # --- 3. the rolling upgrade -------------------------------------------------------------------
        current = api.call("GET", "/api/upgrades")["current"]
        version, number = current["version"], current["release"]
        key = bundle.load_private_key(BUILD / "keys" / "upgrade")

        # a release that fails its migration: the appliance rolls itself back, the roll stops there
        failing = {
            "lib/api/migrations/versions/9001_fails.py": migration("9001", 'raise RuntimeError("lab")')
        }
        bad = next_bundle(work / "bad.upgrade", f"{version}.bad", number + 1, failing, key)
        assert (
            _ok(client.put("/api/fleet/bundle", content=bad.read_bytes()), 201)["version"] == f"{version}.bad"
        )
        t0 = time.monotonic()
        started = client.post(f"/api/deployments/{dep}/upgrade", json={"admin_password": api.password})
        job = _job(client, _ok(started, 202)["id"], ROLL_TIMEOUT)
        print(f"  failing release: roll {job['state']} in {time.monotonic() - t0:.0f} s: {job['message']}")
        assert job["state"] == "failed" and [f["object"] for f in job["failures"]] == ["vsa-lab"], job
        assert "rolled_back" in job["failures"][0]["reason"], job["failures"]
        api.login()
        assert api.client.health()["version"] == version, "rolled back: the release it ran serves again"
        assert writer.alive(), "the writer stopped during the rolled-back upgrade"

        new_version = f"{version}.roll"
        good = next_bundle(work / "roll.upgrade", new_version, number + 2, {}, key)
        kept = _ok(client.put("/api/fleet/bundle", content=good.read_bytes()), 201)
        assert kept["version"] == new_version
        t0 = time.monotonic()
        started = client.post(f"/api/deployments/{dep}/upgrade", json={"admin_password": api.password})
        job = _job(client, _ok(started, 202)["id"], ROLL_TIMEOUT)
        took = time.monotonic() - t0
        print(f"  rolling upgrade {job['state']} in {took:.0f} s: {job['message']}")
        assert job["state"] == "succeeded", job
        assert job["message"] == f"1 upgraded to {new_version}"
        api.login()  # a fresh session with the new release
        assert api.client.health()["version"] == new_version
        assert {p["name"]: p["state"] for p in api.call("GET", "/api/storage/pools")} == {"tank": "ONLINE"}
        assert all(e["active"] for e in api.call("GET", "/api/storage/exports"))
        assert writer.alive(), "the writer stopped during the rolling upgrade"
    finally:
        writer.stop()

    back = work / "fleet.dat"
    nfs_cp(f"nfs://127.0.0.1/{DATASET}/fleet.dat?{query}", str(back))
    verdict = verify(read_ledger(spec.log), back.read_bytes(), spec.content)
    print(f"  writer: {verdict.acked_writes} acknowledged writes, {len(verdict.lost)} lost")
    assert verdict.acked_writes > 0 and verdict.lost == [], verdict.lost[:3]
