"""A configuration backup restored onto a fresh appliance that sees the same LUNs converges it to the first
appliance's desired state and brings the data back over NFS.

The first appliance boots on the lab SAN, gets a pool on lun0 (data only: the SSDs are each VM's own
qcow2 files, a log device would stay behind with the first VM), a datastore, an NFSv3 export for the
host, a zvol with an iSCSI target (CHAP, one initiator), a tuning plan and a second administrator; the
host writes a file through the export with libnfs (ESXi's stand-in); the configuration is backed up
through the api. The first appliance is powered off (its pool
is not exported: the appliance is gone, as after a host failure), a second one is deployed fresh on the
same LUN files (its own OS disk, SSDs, admin password and secrets key), the backup restored through its
api. The restore must import the pool by its GUID (or find it imported, should the image's boot scan have
done it), and the second appliance's desired state must then read as the first one's did: the export, the
target (in LIO with the same unit serial, so ESXi sees the same LUN), the tuning plan, the users (the
second appliance now takes the first one's admin password); and the host must read the file back
byte-exact.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance.remote import SshRunner, nfs_cp, wait_writable
from support.lab_api import LabApi, in_guest
from support.lab_boot import BootedAppliance, boot

from appliance.control import iscsi
from lab.appliance_vm import ApplianceVm
from lab.san import San

pytestmark = [pytest.mark.lab, pytest.mark.timeout(3600)]

LUN0 = "/dev/disk/by-id/virtio-lun0"
HOST = "10.0.2.2"  # the host as qemu user networking shows it to the guest
DATASET, FILE = "tank/vdi", "/tank/vdi/kept.bin"
FILE_BYTES = 16 << 20
PASSPHRASE = "lab-only restore passphrase " + os.urandom(6).hex()
OPS_PASSWORD = "lab-only-ops-" + os.urandom(6).hex()
ZVOL, IQN = "tank/lun1", "iqn.2026-11.lab.arcvsa:restored"
INITIATOR = "iqn.2026-11.lab.arcvsa:esxi-a"
CHAP = {"user": "esxi", "secret": "lab-only-" + os.urandom(6).hex()}
TUNED = {"zfs_txg_timeout": 7, "l2arc_noprefetch": 0}


def desired(api: LabApi) -> dict[str, Any]:
    """What an admin reads of an appliance's desired state through its api."""
    exports = [
        {k: e[k] for k in ("export_id", "dataset", "path", "protocol", "clients", "insecure_ports")}
        for e in api.call("GET", "/api/storage/exports")
    ]
    targets = [
        {k: t[k] for k in ("iqn", "luns", "initiators", "chap")}
        for t in api.call("GET", "/api/storage/iscsi/targets")
    ]
    plan = {
        p["name"]: p["persisted"]
        for p in api.call("GET", "/api/tuning/parameters")
        if p["persisted"] is not None
    }
    users = sorted(u["username"] for u in api.call("GET", "/api/users"))
    return {"exports": exports, "targets": targets, "tuning": plan, "users": users}


def unit_serial(vm: ApplianceVm) -> str:
    """The LUN's unit serial as LIO holds it in the guest (what ESXi knows the device by)."""
    guest = SshRunner(vm.config.host_ports["ssh"], vm.config.ssh_key)
    path = f"/sys/kernel/config/target/core/iblock_*/{iscsi.backstore_name(ZVOL)}/wwn/vpd_unit_serial"
    return in_guest(guest, ["sh", "-c", f"cat {path}"]).stdout.strip()


def nfs_url(vm: ApplianceVm, path: str) -> str:
    """libnfs URL through the VM's forwards (explicit ports: no portmapper needed)."""
    ports = vm.config.host_ports
    return f"nfs://127.0.0.1{path}?nfsport={ports['nfs']}&mountport={ports['mountd']}"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def wait_active(api: LabApi, export_id: int, timeout: float = 300) -> dict[str, Any]:
    """Until the api reports the export served by its NFS server."""
    deadline = time.monotonic() + timeout
    while True:
        found = [e for e in api.call("GET", "/api/storage/exports") if e["export_id"] == export_id]
        if found and found[0]["active"]:
            return dict(found[0])
        assert time.monotonic() < deadline, f"export {export_id} not active within {timeout:.0f} s: {found}"
        time.sleep(5)


class Appliances:
    """The two appliances of the test, each powered off at the end whatever happened."""

    def __init__(self) -> None:
        self.booted: list[BootedAppliance] = []

    def boot(self, image: Path, key: Path, san: San, directory: Path) -> BootedAppliance:
        appliance = boot(image, key, san, directory)
        self.booted.append(appliance)
        print(f"boot to SSH: {appliance.vm.wait_ssh(timeout=300):.1f} s")
        return appliance

    def stop_all(self) -> None:
        for appliance in self.booted:
            appliance.vm.shutdown(timeout=120)


@pytest.fixture(scope="module")
def appliances() -> Iterator[Appliances]:
    found = Appliances()
    try:
        yield found
    finally:
        found.stop_all()


def test_a_backup_restored_onto_a_fresh_appliance_serves_the_data_again(
    lab_image: tuple[Path, Path],
    san: San,
    appliances: Appliances,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    image, key = lab_image
    work = tmp_path_factory.mktemp("restore")

    # --- the first appliance: pool, datastore, export, a user, a file written over NFS --------------
    first = appliances.boot(image, key, san, tmp_path_factory.mktemp("vm1"))
    api1 = LabApi(first)
    pool = api1.call("POST", "/api/storage/pools", {"name": "tank", "data": [LUN0]}, expect=201)
    assert pool["state"] == "ONLINE", pool
    api1.call("POST", "/api/storage/datasets", {"name": DATASET, "profile": "stateless-linked"}, expect=201)
    body = {"dataset": DATASET, "protocol": "3", "clients": [HOST], "insecure_ports": True}
    export = api1.call("POST", "/api/storage/exports", body, expect=201)
    assert export["active"], export
    api1.call("POST", "/api/users", {"username": "ops", "password": OPS_PASSWORD}, expect=201)
    api1.call("POST", "/api/storage/volumes", {"name": ZVOL, "size_bytes": 32 << 20}, expect=201)
    target = {"iqn": IQN, "zvol": ZVOL, "initiators": [INITIATOR], "chap": CHAP}
    api1.call("POST", "/api/storage/iscsi/targets", target, expect=201)
    api1.call("PUT", "/api/tuning/parameters", {"params": TUNED})
    before, serial = desired(api1), unit_serial(first.vm)
    assert before["targets"] and before["tuning"] == TUNED, before
    data = work / "kept.bin"
    data.write_bytes(os.urandom(FILE_BYTES))
    wait_writable(lambda path: nfs_url(first.vm, path), "/tank/vdi", work / "probe")
    nfs_cp(str(data), nfs_url(first.vm, FILE))

    # --- the backup (the api answers the file as JSON; the client hands it back decoded) -----------
    api1.refused("POST", "/api/backup", {"passphrase": "short"}, expect=422)
    envelope = api1.call("POST", "/api/backup", {"passphrase": PASSPHRASE})
    assert envelope["format"] == "arcvsa-config-backup" and envelope["format_version"] == 2, envelope
    file_bytes = json.dumps(envelope).encode()
    for secret in (OPS_PASSWORD, api1.password, CHAP["secret"]):
        assert secret.encode() not in file_bytes
    (work / "config.arcvsa-backup").write_bytes(file_bytes)

    # --- the first appliance goes away (not exported: as after a host failure) ---------------------
    first.vm.shutdown(timeout=120)

    # --- a fresh appliance on the same LUNs --------------------------------------------------------
    second = appliances.boot(image, key, san, tmp_path_factory.mktemp("vm2"))
    api2 = LabApi(second)
    assert api2.call("GET", "/api/storage/exports") == []
    upload = {"file_base64": base64.b64encode(file_bytes).decode(), "passphrase": PASSPHRASE}
    wrong = api2.refused("POST", "/api/backup/restore", {**upload, "passphrase": "not it"}, expect=422)
    assert wrong["field"] == "passphrase", wrong
    report = api2.call("POST", "/api/backup/restore", upload)
    print(f"\nrestore report: {json.dumps(report, indent=1)}")
    assert "tank" in report["pools_imported"] + report["pools_present"], report
    assert report["not_restored"] == [] and report["sessions_ended"] is True, report
    restored = {s["section"]: s["items"] for s in report["restored"]}
    assert restored["nfs"] == ["101"] and restored["iscsi"] == [IQN], restored
    assert restored["users"] == ["admin", "ops"], restored
    assert all(c["failure"] is None for c in report["converged"]), report["converged"]

    # the backup's users replaced the fresh appliance's: its admin password is the first appliance's now
    api2.password = api1.password
    api2.login()
    served = wait_active(api2, 101)
    assert served["path"] == "/tank/vdi" and served["clients"] == [HOST], served
    assert api2.client.token("ops", OPS_PASSWORD)
    assert desired(api2) == before  # the second appliance's desired state is the first one's
    assert unit_serial(second.vm) == serial  # the same LUN to ESXi

    # --- the host reads the file back over NFS, byte-exact ------------------------------------------
    wait_writable(lambda path: nfs_url(second.vm, path), "/tank/vdi", work / "probe2")
    back = work / "back.bin"
    nfs_cp(nfs_url(second.vm, FILE), str(back))
    assert back.stat().st_size == FILE_BYTES and sha256(back) == sha256(data), "the data read back differs"
    # a second restore is refused now that the appliance is configured (replace not asked for)
    api2.refused("POST", "/api/backup/restore", upload, expect=409)
