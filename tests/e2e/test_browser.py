"""The browser journey: Playwright drives Debian's headless Chromium against the real api and vcsim.

The journey itself is in tests/e2e/*.spec.ts; this starts the stack it needs and runs it.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from e2e import spec_run

from lab.stack import ApiServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
PASSWORD = "e2e-admin-password"


def _playwright(
    spec: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: dict[str, str],
    *,
    role: str | None = None,
) -> spec_run.SpecRun:
    """Run one spec against a fresh api serving web/dist; each spec keeps its own output folder.

    ``role``: first boot's role for that api (appliance.json). None: this machine as it is, no appliance,
    so the api shows no storage of its own (the manager); "storage": an appliance whose storage pages
    show (its tools, missing here, answer with their own errors)."""
    dist = WEB / "dist"
    assert (dist / "index.html").exists(), "web/dist is missing: run `make web` first"
    with ApiServer(tmp_path / "data", PASSWORD, web_dist=dist, env=_role_env(tmp_path, role)) as api:
        return spec_run.run(spec, spec_run.base_env(api.url, PASSWORD, **extra), capsys)


def _role_env(tmp_path: Path, role: str | None) -> dict[str, str]:
    """ARCVSA_ETC_DIR with an appliance.json naming ``role`` (never this machine's /etc/arcvsa)."""
    etc = tmp_path / "etc"
    etc.mkdir(parents=True, exist_ok=True)
    if role is not None:
        (etc / "appliance.json").write_text(json.dumps({"role": role, "nfs_backend": "ganesha"}))
    return {"ARCVSA_ETC_DIR": str(etc)}


def _vcsim_env(vcsim: Any) -> dict[str, str]:
    """What the specs that connect vcsim through the UI read."""
    return {
        "VCSIM_HOST": vcsim.host,
        "VCSIM_PORT": str(vcsim.port),
        "VCSIM_USER": vcsim.username,
        "VCSIM_PASSWORD": vcsim.password,
        "VCSIM_THUMBPRINT": vcsim.thumbprint_sha256,
    }


def test_login_add_vcenter_and_see_its_hosts(
    vcsim: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vc = _vcsim_env(vcsim)
    run = _playwright("connect-vcenter.spec.ts", tmp_path, capsys, vc)
    assert run.passed, run.why("the Playwright journey failed")


def test_storage_pages_without_an_appliance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """storage.spec.ts against an api on this machine, which has no ZFS: errors and empty states must be honest."""
    # The lab mode runs from make lab-test against the appliance (tests/e2e/README.md).
    run = _playwright("storage.spec.ts", tmp_path, capsys, {"ARCVSA_STORAGE_LAB": "0"}, role="storage")
    assert run.passed, run.why("the Playwright storage pages failed")


def test_calibration_page_without_an_appliance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """calibration.spec.ts: the form and its refusals on an api without an appliance, and the lab recording's
    runs (stored in the api's database first) shown, charted, listed and deleted."""
    from fixtures.appliance import calibration_flows

    calibration_flows.seed(tmp_path / "data")
    run = _playwright("calibration.spec.ts", tmp_path, capsys, {}, role="storage")
    assert run.passed, run.why("the Playwright calibration page failed")


def test_wizard_steps_1_to_4(vcsim: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """wizard_steps.spec.ts: the wizard's vCenter, placement, back end and pool type steps against vcsim."""
    vc = _vcsim_env(vcsim)
    run = _playwright("wizard_steps.spec.ts", tmp_path, capsys, vc)
    assert run.passed, run.why("the Playwright wizard steps failed")


def test_wizard_storage_port_group_reaches_the_plan(
    vcsim: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """wizard_storage_network.spec.ts: a storage port group and a storage address, refused inline when wrong,
    in the stored plan and on Review (vCenter diffs the plan; nothing is deployed)."""
    run = _playwright("wizard_storage_network.spec.ts", tmp_path, capsys, _vcsim_env(vcsim))
    assert run.passed, run.why("the Playwright storage port group journey failed")


def test_desktop_pools_grow_recompose_delete_and_the_appliances_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pools.spec.ts on a vcsim of its own: a 3-desktop pool stored and applied through the api first."""
    import time

    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding
    from e2e.jobs_harness import lab_api
    from pyVmomi import vim

    from lab.vcsim import CLUSTER, DATACENTER, DATASTORES, GOLDEN_SNAPSHOT, GOLDEN_VM, Vcsim, wait_for_task
    from provisioning.certificate import thumbprint_sha256
    from provisioning.session import connect

    dist = WEB / "dist"
    assert (dist / "index.html").exists(), "web/dist is missing: run `make web` first"
    new_snapshot = "v2"
    with Vcsim() as sim, ApiServer(tmp_path / "data", PASSWORD, web_dist=dist) as server:
        with connect(
            sim.host, sim.port, sim.username, sim.password, thumbprint_sha256=sim.thumbprint_sha256
        ) as si:
            index = si.RetrieveContent().searchIndex
            assert index is not None
            golden = index.FindByInventoryPath(f"{DATACENTER}/vm/{GOLDEN_VM}")
            assert isinstance(golden, vim.VirtualMachine)
            wait_for_task(si, golden.CreateSnapshot_Task(name=new_snapshot, memory=False, quiesce=False), 30)
        with lab_api(server, sim) as (api, vcenter_id):
            pool = {"name": "pool-e2e", "count": 3, "naming": "e2e-##", "folder": "e2e", "golden_vm": GOLDEN_VM,
                    "snapshot": GOLDEN_SNAPSHOT, "datastore": DATASTORES[0], "memory_mb": 256, "vcpus": 1}  # fmt: skip
            plan = {"name": "e2e-pools", "datacenter": DATACENTER, "cluster": CLUSTER, "pool": pool}
            made = api.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": plan})
            assert made.status_code == 201, made.text
            job = api.post(f"/api/deployments/{made.json()['id']}/apply").json()
            deadline = time.monotonic() + 60
            while job["state"] not in ("succeeded", "failed", "cancelled") and time.monotonic() < deadline:
                time.sleep(0.2)
                job = api.get(f"/api/jobs/{job['id']}").json()
            assert job["state"] == "succeeded", job
            # A fleet, stored only: the api itself stands in for one appliance, nothing answers for the other.
            cert = x509.load_pem_x509_certificate((server.data_dir / "tls.crt").read_bytes())
            appliances = [
                {"host": "DC0_C0_H0", "name": "vsa-e2e-0", "api_endpoint": f"127.0.0.1:{server.port}",
                 "api_thumbprint_sha256": thumbprint_sha256(cert.public_bytes(Encoding.DER))},
                {"host": "DC0_C0_H1", "name": "vsa-e2e-1", "api_endpoint": "127.0.0.1:9",
                 "api_thumbprint_sha256": "AB" * 32},
            ]  # fmt: skip
            fleet = {"ova_path": "arcvsa.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
                     "admin_password": PASSWORD, "appliances": appliances}  # fmt: skip
            nfs = {"name": "arcvsa-nfs", "server": "192.0.2.21", "path": "/tank/vdi"}
            plan = {"name": "e2e-fleet", "datacenter": DATACENTER, "cluster": CLUSTER, "fleet": fleet}
            plan["nfs"] = nfs
            made = api.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": plan})
            assert made.status_code == 201, made.text
        env = spec_run.base_env(
            server.url,
            PASSWORD,
            ARCVSA_POOL="pool-e2e",
            ARCVSA_GOLDEN_VM=GOLDEN_VM,
            ARCVSA_NEW_SNAPSHOT=new_snapshot,
        )
        run = spec_run.run("pools.spec.ts", env, capsys)
    assert run.passed, run.why("the Playwright pools journey failed")


def test_wizard_deploys_recomposes_and_deletes_a_20_desktop_pool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """wizard.spec.ts: the whole wizard on a vcsim of its own deploys 4 appliances, their NFS datastore and
    a 20-desktop pool; then the pool is recomposed onto a newer snapshot and deleted.

    vcsim runs no guests: each appliance's api is the real arcvsa app served from this process on a strict
    replay of the lab VM's recording 'fleet' (tests/support/appliance_server.py), reached through the Back
    end step's per-host "Api address" (ApplianceSpec.api_endpoint).
    """
    from fixtures.appliance import fleet_flows
    from pyVmomi import vim
    from support.appliance_server import replayed_appliances
    from support.ova import make_ova
    from support.provisioning import NFS

    from lab.vcsim import DATACENTER, GOLDEN_VM, Vcsim, wait_for_task
    from provisioning.session import connect

    new_snapshot = "patched"
    with Vcsim() as sim:
        assert sim.workdir is not None
        (sim.workdir / NFS).mkdir()  # vcsim backs the NFS datastore with this directory
        with connect(
            sim.host, sim.port, sim.username, sim.password, thumbprint_sha256=sim.thumbprint_sha256
        ) as si:
            index = si.RetrieveContent().searchIndex
            assert index is not None
            golden = index.FindByInventoryPath(f"{DATACENTER}/vm/{GOLDEN_VM}")
            assert isinstance(golden, vim.VirtualMachine)
            wait_for_task(si, golden.CreateSnapshot_Task(name=new_snapshot, memory=False, quiesce=False), 30)
        ova = make_ova(tmp_path)
        with replayed_appliances(tmp_path / "appliances", 4, "fleet", fleet_flows.PASSWORD) as apis:
            env = {
                **_vcsim_env(sim),
                "ARCVSA_E2E_OVA": str(ova),
                "ARCVSA_E2E_ENDPOINTS": ",".join(s.endpoint for s, _ in apis),
                "ARCVSA_E2E_APPLIANCE_PASSWORD": fleet_flows.PASSWORD,
                "ARCVSA_E2E_GUEST_PATHS": ",".join(fleet_flows.LUNS),
                "ARCVSA_E2E_SSD_PATHS": f"{fleet_flows.SLOG},{fleet_flows.L2ARC}",
                "ARCVSA_E2E_NFS": NFS,
                "ARCVSA_GOLDEN_VM": GOLDEN_VM,
                "ARCVSA_NEW_SNAPSHOT": new_snapshot,
            }
            run = _playwright("wizard.spec.ts", tmp_path, capsys, env)
    assert run.passed, run.why("the Playwright wizard journey failed")


def test_every_page_has_no_critical_accessibility_violation(
    vcsim: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """a11y.spec.ts: axe-core on every page (the inventory and every wizard step with vcsim connected)."""
    vc = _vcsim_env(vcsim)
    run = _playwright("a11y.spec.ts", tmp_path, capsys, vc, role="storage")
    assert run.passed, run.why("axe-core found critical accessibility violations")


def test_no_heading_overlaps_a_field(
    vcsim: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """layout.spec.ts: on every page, wizard step and opened form, no heading or label lies over a control.

    The api plays a storage appliance (first boot's role) so the storage pages show their forms rather than
    the manager's "no storage here"; Calibration shows the lab recording's stored runs."""
    import json

    from fixtures.appliance import calibration_flows

    calibration_flows.seed(tmp_path / "data")
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "appliance.json").write_text(json.dumps({"role": "storage"}))
    monkeypatch.setenv("ARCVSA_ETC_DIR", str(etc))  # the api process inherits it (lab.stack.ApiServer)
    run = _playwright("layout.spec.ts", tmp_path, capsys, _vcsim_env(vcsim), role="storage")
    assert run.passed, run.why("a heading or label overlaps a form control")


def test_settings_users_passwords_and_certificate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """settings.spec.ts: users and passwords, and a certificate made here uploaded through the page."""
    import datetime as dt

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
    from cryptography.x509 import load_pem_x509_certificate

    from appliance.firstboot.tls import self_signed

    cert_pem, key_pem = self_signed("arcvsa-e2e.example", None, dt.datetime.now(dt.UTC))
    other = ec.generate_private_key(ec.SECP256R1())
    files = {"cert.pem": cert_pem, "key.pem": key_pem}
    files["other-key.pem"] = other.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    pem_dir = tmp_path / "pem"
    pem_dir.mkdir()
    for name, data in files.items():
        (pem_dir / name).write_bytes(data)
    digest = load_pem_x509_certificate(cert_pem).fingerprint(hashes.SHA256()).hex().upper()
    extra = {
        "ARCVSA_E2E_CERT": str(pem_dir / "cert.pem"),
        "ARCVSA_E2E_KEY": str(pem_dir / "key.pem"),
        "ARCVSA_E2E_OTHER_KEY": str(pem_dir / "other-key.pem"),
        "ARCVSA_E2E_THUMBPRINT": ":".join(digest[i : i + 2] for i in range(0, 64, 2)),
    }
    run = _playwright("settings.spec.ts", tmp_path, capsys, extra)
    assert run.passed, run.why("the Playwright settings journey failed")


def test_firewall_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """firewall.spec.ts: the Firewall and SSH section on an api whose rule set the real nft loads into a
    network namespace (systemd stood in for); afterwards the kernel refuses what the page said it would."""
    from support import netns
    from support.firewall_server import firewall_api

    dist = WEB / "dist"
    assert (dist / "index.html").exists(), "web/dist is missing: run `make web` first"
    stranger = "10.99.0.5"  # in none of the networks the spec saves
    with contextlib.ExitStack() as stack:
        try:
            server = stack.enter_context(firewall_api(tmp_path, dist, PASSWORD, (stranger,)))
        except netns.Unavailable as exc:
            pytest.skip(str(exc))
        assert server.reaches(stranger, 443)  # no rule set loaded yet
        run = spec_run.run("firewall.spec.ts", spec_run.base_env(server.url, PASSWORD), capsys)
        assert run.passed, run.why("the Playwright firewall section failed")
        # the spec leaves the browser's own address alone allowed, with SSH on: both closed to the rest
        assert not server.reaches(stranger, 443) and not server.reaches(stranger, 22)
        assert server.systemd.ssh_on and server.systemd.armed is None
        # and root let in with the key: sshd's drop-in written
        from appliance.control import sshd

        assert server.systemd.files.read(sshd.ROOT_FILE) == sshd.ROOT_TEXT


def test_firewall_section_with_a_storage_network(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """firewall_storage_network.spec.ts: the section on an appliance first boot gave a storage network (the probes'
    link): the page says where NFS and iSCSI are answered, and the kernel keeps the web interface off it."""
    from support import netns
    from support.firewall_server import firewall_api

    dist = WEB / "dist"
    assert (dist / "index.html").exists(), "web/dist is missing: run `make web` first"
    esxi = "10.99.0.6"
    with contextlib.ExitStack() as stack:
        try:
            server = stack.enter_context(
                firewall_api(tmp_path, dist, PASSWORD, (esxi,), storage_network=True)
            )
        except netns.Unavailable as exc:
            pytest.skip(str(exc))
        env = spec_run.base_env(server.url, PASSWORD, ARCVSA_STORAGE_NIC=server.link.link)
        run = spec_run.run("firewall_storage_network.spec.ts", env, capsys)
        assert run.passed, run.why("the Playwright storage network section failed")
        # the save loaded the rule set: every address may have the web interface and SSH, not on this NIC
        assert not server.reaches(esxi, 443) and not server.reaches(esxi, 22)
        assert server.systemd.ssh_on


def test_upgrades_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """upgrades.spec.ts: the api sees a release tree (v1.0 running, v0.9 kept) and trusts a signing key made
    here; the spec uploads a file that is no bundle, one signed with another key and a signed newer one,
    and discards it. A rolled-back last run is left in state.json for the page to show. Nothing is applied."""
    import json

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from fixtures.upgrade_bundles import manifest_for, payload, signed

    from appliance.upgrade import bundle, release

    key = Ed25519PrivateKey.generate()
    opt, etc, files = tmp_path / "opt", tmp_path / "etc", tmp_path / "bundles"
    for folder in (etc, files, tmp_path / "data" / "upgrade"):
        folder.mkdir(parents=True)
    (etc / "upgrade-signing.pub").write_text(bundle.public_key_text(key))
    for version, number in (("v0.9", 9), ("v1.0", 10)):
        pay = payload(tmp_path / f"{version}.tar")
        release.install(opt, manifest_for(pay, version, number), pay)
    release.switch(opt, "v1.0")
    good = signed(files / "arcvsa-v1.1.upgrade", key, "v1.1", 11)
    other = signed(files / "arcvsa-v1.1-other-key.upgrade", Ed25519PrivateKey.generate(), "v1.1", 11)
    junk = files / "notes.upgrade"
    junk.write_text("not an upgrade bundle\n")
    steps = [{"at": f"2025-01-02T03:0{i}:00+00:00", "state": s} for i, s in
             enumerate(("verifying", "installing", "switching", "rolling_back", "rolled_back"))]  # fmt: skip
    last = {"state": "rolled_back", "from_version": "v1.0", "to_version": "v1.0.1", "updated": steps[-1]["at"],
            "error": "the api did not answer as v1.0.1 within 600 s", "steps": steps}  # fmt: skip
    (tmp_path / "data" / "upgrade" / "state.json").write_text(json.dumps(last))
    # The api process inherits these (lab.stack.ApiServer copies the environment).
    monkeypatch.setenv("ARCVSA_INSTALL_ROOT", str(opt))
    monkeypatch.setenv("ARCVSA_ETC_DIR", str(etc))
    extra = {
        "ARCVSA_E2E_BUNDLE": str(good),
        "ARCVSA_E2E_OTHER_KEY_BUNDLE": str(other),
        "ARCVSA_E2E_NOT_A_BUNDLE": str(junk),
    }
    run = _playwright("upgrades.spec.ts", tmp_path, capsys, extra)
    assert run.passed, run.why("the Playwright upgrades section failed")


def test_placement_admission_and_nfs_addresses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """placement.spec.ts on a vcsim of its own, with one more host added to the cluster by its address (vcsim
    gives such a host's vmk0 that address): the admission refusal on the hosts field, the only datacenter and
    cluster preselected, and the hosts' VMkernel addresses offered on the NFS export form."""
    from pyVmomi import vim

    from lab.vcsim import CLUSTER, DATACENTER, Vcsim, wait_for_task
    from provisioning.session import connect

    added = "10.10.0.31"
    with Vcsim() as sim:
        with connect(
            sim.host, sim.port, sim.username, sim.password, thumbprint_sha256=sim.thumbprint_sha256
        ) as si:
            index = si.RetrieveContent().searchIndex
            assert index is not None
            cluster = index.FindByInventoryPath(f"{DATACENTER}/host/{CLUSTER}")
            assert isinstance(cluster, vim.ClusterComputeResource)
            spec = vim.host.ConnectSpec(hostName=added, userName="root", password="lab", force=True)
            wait_for_task(si, cluster.AddHost_Task(spec=spec, asConnected=True), 30)
        run = _playwright(
            "placement.spec.ts",
            tmp_path,
            capsys,
            {**_vcsim_env(sim), "VCSIM_ADDED_HOST": added},
            role="storage",
        )
    assert run.passed, run.why("the Playwright placement journey failed")


def test_the_manager_has_no_storage_pages_and_two_instances_keep_their_sessions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """manager.spec.ts on the fleet manager (role manager): no Storage group, explained storage pages,
    the alerts poll answered 200; and a second api on another port of this host, each keeping its login."""
    other_password = "e2e-other-admin-password"
    with ApiServer(
        tmp_path / "other",
        other_password,
        web_dist=WEB / "dist",
        env=_role_env(tmp_path / "other", "storage"),
    ) as other:
        extra = {"ARCVSA_OTHER_URL": other.url, "ARCVSA_OTHER_PASSWORD": other_password}
        run = _playwright("manager.spec.ts", tmp_path, capsys, extra, role="manager")
    assert run.passed, run.why("the Playwright manager journey failed")


def test_destroy_frees_the_disks_and_a_disk_is_wiped_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """disks.spec.ts on an appliance's pages, the Disks and Pools reads answered from the api_wipe recording."""
    run = _playwright("disks.spec.ts", tmp_path, capsys, {}, role="storage")
    assert run.passed, run.why("the Playwright disks journey failed")


def test_two_deployments_run_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """deployments-at-once.spec.ts: the wizard starts one stored plan, offers a new deployment while it runs,
    then plans and starts another; both jobs progress at once (tests/e2e/jobs_harness.py stores the plans)."""
    from e2e.jobs_harness import run_spec, two_pools

    run = run_spec("deployments-at-once.spec.ts", tmp_path, capsys, two_pools)
    assert run.passed, run.why("the Playwright deployments-at-once journey failed")


def test_a_job_asks_for_the_password_it_needs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """job-passwords.spec.ts: a failed apply's resume asks for the appliances' admin password in an empty
    field, every time; in the wizard its Deploy, Resume and destroy too (tests/e2e/jobs_harness.py)."""
    from e2e.jobs_harness import failed_fleet, run_spec

    run = run_spec("job-passwords.spec.ts", tmp_path, capsys, failed_fleet)
    assert run.passed, run.why("the Playwright job-passwords journey failed")


def test_deploy_faults_fail_fast_and_cancel_within_seconds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """deploy-faults.spec.ts: on the Deploy step, an appliance whose address answers HTTP 404 fails within a
    minute with its reason, and a cancel takes effect within 10 s in the OVA upload (vCenter reached through
    a relay that slows what is sent), in the health wait and in a minute-long vCenter task (a vcsim whose
    ReconfigVm, the disks' attach, takes 60 s). Stored through the api (tests/support/deploy_faults.py)."""
    from support.api import ADMIN_PASSWORD
    from support.api_server import client
    from support.delayed_vcsim import DelayedVcsim
    from support.deploy_faults import add_vcenter, place_appliance_vm, store_deployment
    from support.ova import make_ova
    from support.slow_proxy import SlowProxy
    from support.tls_servers import Server, Silent, certificate, json_answer

    from lab.vcsim import Vcsim

    dist = WEB / "dist"
    assert (dist / "index.html").exists(), "web/dist is missing: run `make web` first"
    ova = make_ova(tmp_path)
    (tmp_path / "big").mkdir()
    big_ova = make_ova(tmp_path / "big", os.urandom(8 * 1024**2))
    cert, key, _ = certificate(tmp_path / "other", "www.example.org", "Example Corp")
    with (
        Vcsim() as sim,
        Vcsim() as other_sim,
        DelayedVcsim({"ReconfigVm": 60_000}) as slow,
        Vcsim() as far,
        SlowProxy((far.host, far.port), rate=256 * 1024) as relay,
        Server(json_answer(404, {"detail": "Not Found"}), tls=(cert, key)) as other,
        Silent() as booting,
        ApiServer(tmp_path / "data", ADMIN_PASSWORD, web_dist=dist) as server,
    ):
        # one vCenter each: the wizard names the appliance on a deployment's first host arcvsa-01
        cases = [  # deployment, its api address, vCenter
            ("wrong-address", other.endpoint, sim),
            ("still-booting", booting.endpoint, other_sim),
            ("slow-disks", booting.endpoint, slow),
        ]
        api = client(server)
        for name, endpoint, vc in cases:
            assert vc.workdir is not None
            (vc.workdir / "arcvsa-vdi").mkdir()
            place_appliance_vm(vc, ova, "arcvsa-01", name)
            vcenter_id = add_vcenter(api, vc, f"vc-{name}")
            store_deployment(api, vcenter_id, name, "arcvsa-01", ova, endpoint, "arcvsa-vdi")
        # no VM yet: the OVA is uploaded, slowly (8 MiB at 256 KiB/s)
        assert far.workdir is not None
        (far.workdir / "arcvsa-vdi").mkdir()
        body = {"name": "vc-slow-upload", "host": far.host, "port": relay.port, "username": far.username,
                "password": far.password, "thumbprint_sha256": far.thumbprint_sha256}  # fmt: skip
        made = api.post("/api/vcenters", json=body)
        assert made.status_code == 201, made.text
        store_deployment(
            api, made.json()["id"], "slow-upload", "arcvsa-01", big_ova, booting.endpoint, "arcvsa-vdi"
        )
        api.close()
        env = spec_run.base_env(
            server.url, ADMIN_PASSWORD, ARCVSA_E2E_APPLIANCE_PASSWORD="appliance-admin-pw"
        )
        run = spec_run.run("deploy-faults.spec.ts", env, capsys)
    assert run.passed, run.why("the Playwright deploy faults failed")


def test_the_fleet_dashboard_with_a_dead_and_a_slow_appliance(
    vcsim: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """fleet.spec.ts: two deployments of five appliances in all. Three are the real arcvsa api on the strict
    replay of the lab VM's 'fleet' recording, two of them with the counters the sampler read in the lab VM
    (the 'metrics_series' recording) in their sample store; one address nothing listens on, and one that
    accepts connections and never answers."""
    import socket
    from datetime import UTC, datetime, timedelta

    from e2e.jobs_harness import lab_api
    from fixtures.appliance import fleet_flows
    from fixtures.appliance.replay import replay_log
    from support.appliance_server import replayed_appliances

    from api.metrics import sampler
    from api.metrics import store as metrics_store
    from lab.vcsim import CLUSTER, DATACENTER, DATASTORES

    dist = WEB / "dist"
    assert (dist / "index.html").exists(), "web/dist is missing: run `make web` first"
    gw, files, _ = replay_log("metrics_series", tmp_path / "recorded")
    now = datetime.now(UTC)
    # a minute apart: three points in three of the 1-hour view's one-minute buckets, whatever the second
    samples = [sampler.take(gw, files, now - timedelta(seconds=60 * (3 - i))) for i in range(4)]
    silent = socket.create_server(("127.0.0.1", 0))  # accepts (backlog), never speaks TLS
    with (
        silent,
        replayed_appliances(tmp_path / "appliances", 3, "fleet", fleet_flows.PASSWORD) as served,
        ApiServer(tmp_path / "data", PASSWORD, web_dist=dist) as server,
    ):
        for appliance, _ in (served[0], served[2]):
            with appliance.app.state.sessionmaker() as db:
                for sample in samples:
                    metrics_store.add(db, sample)
                db.commit()

        def spec(
            name: str, host: str, appliance: Any | None = None, endpoint: str = "", pin: str = ""
        ) -> Any:
            return {"host": host, "name": name, "api_endpoint": appliance.endpoint if appliance else endpoint,
                    "api_thumbprint_sha256": appliance.thumbprint if appliance else pin}  # fmt: skip

        fleets = {
            "e2e-fleet-a": [
                spec("vsa-a0", "DC0_C0_H0", served[0][0]),
                spec("vsa-a1", "DC0_C0_H1", served[1][0]),
                spec("vsa-a2", "DC0_C0_H2", endpoint=f"127.0.0.1:{silent.getsockname()[1]}", pin="AB" * 32),
            ],
            "e2e-fleet-b": [
                spec("vsa-b0", "DC0_C0_H3", endpoint="127.0.0.1:9", pin="CD" * 32),
                spec("vsa-b1", "DC0_C0_H0", served[2][0]),
            ],
        }
        with lab_api(server, vcsim) as (api, vcenter_id):
            for name, appliances in fleets.items():
                fleet = {"ova_path": "arcvsa.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
                         "admin_password": fleet_flows.PASSWORD, "appliances": appliances}  # fmt: skip
                nfs = {"name": "arcvsa-nfs", "server": "192.0.2.21", "path": "/tank/vdi"}
                plan = {
                    "name": name,
                    "datacenter": DATACENTER,
                    "cluster": CLUSTER,
                    "fleet": fleet,
                    "nfs": nfs,
                }
                made = api.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": plan})
                assert made.status_code == 201, made.text
        run = spec_run.run("fleet.spec.ts", spec_run.base_env(server.url, PASSWORD), capsys)
    assert run.passed, run.why("the Playwright fleet journey failed")


def test_an_appliances_storage_pages_through_the_manager(
    vcsim: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """fleet-drilldown.spec.ts: from the Fleet page to one appliance's Pools page on the manager, and a pool
    grown there. The appliance is the real arcvsa api on the strict replay of the lab VM's 'api_pools'
    recording; its pool was made through the manager before the page opens, as the recording's own flow
    did, so the grow the page asks for is the one the lab VM answered."""
    from e2e.jobs_harness import lab_api
    from fixtures.appliance import api_flows, fleet_flows
    from support.appliance_server import replayed_appliances

    from lab.vcsim import CLUSTER, DATACENTER, DATASTORES

    dist = WEB / "dist"
    assert (dist / "index.html").exists(), "web/dist is missing: run `make web` first"
    with (
        replayed_appliances(tmp_path / "appliances", 1, "api_pools", fleet_flows.PASSWORD) as served,
        ApiServer(tmp_path / "data", PASSWORD, web_dist=dist) as server,
        lab_api(server, vcsim) as (api, vcenter_id),
    ):
        appliance = served[0][0]
        one = {"host": "DC0_C0_H0", "name": "vsa-p0", "api_endpoint": appliance.endpoint,
               "api_thumbprint_sha256": appliance.thumbprint}  # fmt: skip
        fleet = {"ova_path": "arcvsa.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
                 "admin_password": fleet_flows.PASSWORD, "appliances": [one]}  # fmt: skip
        plan = {"name": "e2e-fleet-p", "datacenter": DATACENTER, "cluster": CLUSTER, "fleet": fleet,
                "nfs": {"name": "arcvsa-nfs", "server": "192.0.2.21", "path": "/tank/vdi"}}  # fmt: skip
        made = api.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": plan})
        assert made.status_code == 201, made.text
        base = f"/api/fleet/{made.json()['id']}/appliances/vsa-p0/api/storage"
        for method, path, body in api_flows.API_POOLS[:2]:  # its NFS server, then pool tank on one LUN
            r = api.request(method, base + path.removeprefix("/api/storage"), json=body)
            assert r.status_code in (200, 201), r.text
        env = {**spec_run.base_env(server.url, PASSWORD), "ARCVSA_FREE_LUN": api_flows.LUN1}
        run = spec_run.run("fleet-drilldown.spec.ts", env, capsys)
    assert run.passed, run.why("the Playwright drill-down journey failed")


def test_a_rolling_upgrade_stops_at_an_appliance_that_refuses_the_bundle(
    vcsim: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """rolling-upgrade.spec.ts: a deployment of four appliances, real arcvsa apis on the strict replay of
    the 'fleet' recording, each with a release tree and an upgrade key of its own: vsa-0 and vsa-3 run
    v1.0, vsa-1 runs v2.0 already, vsa-2 trusts another key than the build's. The manager trusts the build's
    key. The spec keeps the v2.0 bundle on the manager (after one signed with another key is refused) and
    starts the roll, which stops at vsa-2 before any appliance is upgraded."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from e2e.jobs_harness import lab_api
    from fixtures.appliance import fleet_flows
    from fixtures.upgrade_bundles import signed
    from support.appliance_server import release_trees, replayed_appliances

    from appliance.upgrade import bundle
    from lab.vcsim import CLUSTER, DATACENTER, DATASTORES

    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    runs = [("v1.0", 10, key), ("v2.0", 20, key), ("v1.0", 10, other), ("v1.0", 10, key)]

    files = tmp_path / "bundles"
    files.mkdir()
    good = signed(files / "arcvsa-v2.0.upgrade", key, "v2.0", 20)
    foreign = signed(files / "arcvsa-v2.0-other-key.upgrade", other, "v2.0", 20)
    env = _role_env(tmp_path / "manager", None)
    (Path(env["ARCVSA_ETC_DIR"]) / "upgrade-signing.pub").write_text(bundle.public_key_text(key))
    dist = WEB / "dist"
    assert (dist / "index.html").exists(), "web/dist is missing: run `make web` first"
    with (
        replayed_appliances(
            tmp_path / "appliances", 4, "fleet", fleet_flows.PASSWORD, settings=release_trees(tmp_path, runs)
        ) as served,
        ApiServer(tmp_path / "data", PASSWORD, web_dist=dist, env=env) as server,
        lab_api(server, vcsim) as (api, vcenter_id),
    ):
        appliances = [
            {
                "host": f"DC0_C0_H{i}",
                "name": f"vsa-{i}",
                "api_endpoint": s.endpoint,
                "api_thumbprint_sha256": s.thumbprint,
            }
            for i, (s, _) in enumerate(served)
        ]
        fleet = {"ova_path": "arcvsa.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
                 "admin_password": fleet_flows.PASSWORD, "appliances": appliances}  # fmt: skip
        plan = {"name": "e2e-roll", "datacenter": DATACENTER, "cluster": CLUSTER, "fleet": fleet}
        made = api.post("/api/deployments", json={"vcenter_id": vcenter_id, "plan": plan})
        assert made.status_code == 201, made.text
        extra = {
            "ARCVSA_E2E_BUNDLE": str(good),
            "ARCVSA_E2E_OTHER_KEY_BUNDLE": str(foreign),
            "ARCVSA_APPLIANCE_PASSWORD": fleet_flows.PASSWORD,
        }
        run = spec_run.run(
            "rolling-upgrade.spec.ts", spec_run.base_env(server.url, PASSWORD, **extra), capsys
        )
    assert run.passed, run.why("the Playwright rolling upgrade failed")
