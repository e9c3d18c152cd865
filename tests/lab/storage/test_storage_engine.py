"""Issue 4's acceptance in the booted appliance, driven through its api over HTTPS (nothing else).

Every storage change goes through the appliance's api (lab.appliance_api: the certificate pinned at
first contact, the admin password from the lab folder): a stripe pool on two throttled 2 GiB SAN
LUNs with a SLOG and an L2ARC on the two SSDs, a stateless-linked datastore, a ganesha NFSv3 export for the
host, a second datastore over NFSv4.1, the switch to the kernel server and back, a zvol with an iSCSI
target, and after a reboot everything must be back. The host is the ESXi stand-in: libnfs (nfs-cp,
nfs-ls) for NFSv3, libiscsi (iscsi-ls, iscsi-inq, iscsi-readcapacity16) as the initiator.

SSH is used only where the api has no say:
- NFSv4.1's client is the guest's own kernel (mount -t nfs -o vers=4.1 over loopback): the host has no
  kernel NFS client, and libnfs speaks NFSv4.0 only (no 4.1 support planned upstream; this host's
  libnfs 4.0 gets NFS4ERR_MINOR_VERS_MISMATCH from ganesha, whose Minor_Versions are 1 and 2, which
  the test checks too);
- /proc/spl/kstat/zfs/arcstats is read for the ARC hit figure of one read (a delta of raw counters;
  the api's metrics are per-interval rates).
LUN traffic is counted by the VM's qemu (QMP query-blockstats on the lun* disks), never by the guest.

ARCVSA_LAB_DATA_MIB sets the data size (default 256; the issue's figure and `make lab-test`'s is 1024).
Figures are printed at the end and written to var/lab-test/figures.json.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import tarfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance.remote import SshRunner, nfs_cp, wait_writable
from support.host import host_tool
from support.lab_api import LabApi, in_guest
from support.lab_boot import BootedAppliance, running_san

from appliance.control.errors import ControlError
from appliance.control.gateway import Result
from lab.appliance_env import LAB_ADDRESS
from lab.appliance_vm import ApplianceVm
from lab.san import San

pytestmark = [pytest.mark.lab, pytest.mark.timeout(5400)]

REPO = Path(__file__).resolve().parents[3]
FIGURES_JSON = REPO / "var" / "lab-test" / "figures.json"
LUN0, LUN1 = "/dev/disk/by-id/virtio-lun0", "/dev/disk/by-id/virtio-lun1"
SLOG, L2ARC = "/dev/disk/by-id/virtio-ssd-slog", "/dev/disk/by-id/virtio-ssd-l2arc"
HOST = "10.0.2.2"  # the host as qemu user networking shows it to the guest
GUEST_LOOPBACK = "127.0.0.1"  # the guest's own kernel client (NFSv4.1) as the server sees it
DATA_MIB = int(os.environ.get("ARCVSA_LAB_DATA_MIB", "256"))
V41_MIB = min(DATA_MIB, 256)  # the NFSv4.1 copy (the pool holds two 1 GiB LUNs)
DATASET, DATASET41 = "tank/vdi", "tank/vdi41"
FILE = "/tank/vdi/os-image.tar"
FILE_KNFSD = "/tank/vdi/os-image-knfsd.tar"  # knfsd's copy (libnfs's CREATE is guarded: a new name)
LUN_SIZE = 2 << 30  # two copies of up to 1 GiB (about 0.7 GiB each once compressed) and the rest
FILE41 = "/tank/vdi41/os-image.tar"
V41_MOUNT = "/run/arcvsa-lab/v41"  # where the guest's kernel client mounts the NFSv4.1 export
ZVOL = "tank/lun0"
ZVOL_BYTES = 64 << 20
TARGET_IQN = "iqn.2026-11.lab.arcvsa:tank-lun0"
HOST_IQN = "iqn.2026-11.lab.arcvsa:esxi-host"
CHAP_USER = "esxi-lab"
CHAP_SECRET = secrets.token_hex(12)  # per run; never on an argv (libiscsi reads it from the env)
ARCSTATS = ("hits", "misses", "l2_hits", "l2_misses", "l2_size", "size")


@pytest.fixture(scope="module")
def san(tmp_path_factory: pytest.TempPathFactory) -> Iterator[San]:
    """Two 2 GiB LUNs (the lab tier's are 1 GiB), filled, throttled; stopped afterwards."""
    with running_san(tmp_path_factory.mktemp("san"), LUN_SIZE) as san:
        yield san


# --- figures --------------------------------------------------------------------------------------


@dataclass
class Figures:
    """What the run measured: printed as it goes and at the end, and kept as JSON."""

    lines: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=lambda: {"data_mib": DATA_MIB})

    def add(self, section: str, values: dict[str, Any], line: str) -> None:
        """Keep ``values`` under ``section`` and print ``line``; the JSON is rewritten every time."""
        self.data.setdefault(section, {}).update(values)
        print(f"\n{line}")
        self.lines.append(line)
        FIGURES_JSON.parent.mkdir(parents=True, exist_ok=True)
        FIGURES_JSON.write_text(json.dumps(self.data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def figures() -> Iterator[Figures]:
    """Figures of the whole module, repeated at its end."""
    found = Figures()
    yield found
    print(f"\n--- figures ({FIGURES_JSON}) ---\n" + "\n".join(found.lines))


def mib_s(size: int, seconds: float) -> float:
    """Throughput in MiB/s, one decimal."""
    return round(size / max(seconds, 1e-6) / 2**20, 1)


# --- the api --------------------------------------------------------------------------------------


def dataset(api: LabApi, name: str) -> dict[str, Any]:
    """One dataset as the api lists it."""
    found = [
        d for d in api.call("GET", f"/api/storage/pools/{name.split('/')[0]}/datasets") if d["name"] == name
    ]
    assert found, f"{name} is not listed"
    return dict(found[0])


def wait_active(api: LabApi, ids: set[int], timeout: float = 300) -> list[dict[str, Any]]:
    """Until the api reports these exports active on its backend (it reconciles at start in a thread)."""
    deadline = time.monotonic() + timeout
    while True:
        exports = api.call("GET", "/api/storage/exports")
        if {e["export_id"] for e in exports if e["active"]} >= ids or time.monotonic() > deadline:
            return list(exports)
        time.sleep(5)


# --- host side: data, NFS, iSCSI ------------------------------------------------------------------


@pytest.fixture(scope="module")
def os_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """DATA_MIB of real OS files (a tar of the host's /usr/lib), the kind of bytes a desktop image holds."""
    path = tmp_path_factory.mktemp("data") / "os-image.tar"
    limit = DATA_MIB << 20
    with tarfile.open(path, "w") as tar:
        for entry in sorted(Path("/usr/lib").rglob("*")):
            if path.stat().st_size >= limit:
                break
            if entry.is_file() and not entry.is_symlink():
                try:
                    tar.add(entry, recursive=False)
                except OSError:
                    continue
    with path.open("r+b") as handle:
        handle.truncate(limit)
    return path


def sha256(path: Path, limit: int | None = None) -> str:
    """Hex digest of a file (of its first ``limit`` bytes)."""
    digest = hashlib.sha256()
    left = path.stat().st_size if limit is None else limit
    with path.open("rb") as handle:
        while left > 0:
            block = handle.read(min(1 << 20, left))
            if not block:
                break
            digest.update(block)
            left -= len(block)
    return digest.hexdigest()


def nfs_url(vm: ApplianceVm, path: str, version: int = 3) -> str:
    """libnfs URL through the VM's forwards (explicit ports: no portmapper needed)."""
    ports = vm.config.host_ports
    if version == 4:
        return f"nfs://127.0.0.1{path}?version=4&nfsport={ports['nfs']}"
    return f"nfs://127.0.0.1{path}?nfsport={ports['nfs']}&mountport={ports['mountd']}"


def lun_read_bytes(vm: ApplianceVm) -> int:
    """Bytes the VM read from its SAN LUNs so far (QMP)."""
    return sum(int(s["rd_bytes"]) for name, s in vm.blockstats().items() if name.startswith("lun"))


def arcstats(guest: SshRunner) -> dict[str, int]:
    """The ARC's raw counters (/proc/spl/kstat/zfs/arcstats)."""
    text = in_guest(guest, ["cat", "/proc/spl/kstat/zfs/arcstats"], timeout=60).stdout
    rows = (line.split() for line in text.splitlines())
    return {r[0]: int(r[2]) for r in rows if len(r) == 3 and r[0] in ARCSTATS and r[2].isdigit()}


def arc_hit_pct(before: dict[str, int], after: dict[str, int]) -> float:
    """ARC hit ratio (%) between two arcstats readings."""
    hits = after["hits"] - before["hits"]
    total = hits + after["misses"] - before["misses"]
    return round(100 * hits / total, 1) if total else 0.0


def timed_read(vm: ApplianceVm, path: str, target: Path, timeout: float = 1800) -> tuple[float, int]:
    """Read a file over NFSv3 into ``target``; (seconds, bytes that reached the LUNs meanwhile)."""
    target.unlink(missing_ok=True)
    before, started = lun_read_bytes(vm), time.monotonic()
    nfs_cp(nfs_url(vm, path), str(target), timeout=timeout)
    return time.monotonic() - started, lun_read_bytes(vm) - before


def wait_nfs(vm: ApplianceVm, path: str, timeout: float = 240.0) -> None:
    """Until an NFSv3 export answers a listing from the host."""
    deadline = time.monotonic() + timeout
    while True:
        code, out = host_tool(["nfs-ls", nfs_url(vm, path)], timeout=60)
        if code == 0:
            return
        assert time.monotonic() < deadline, f"{path} did not answer over NFSv3 within {timeout:.0f} s: {out}"
        time.sleep(3)


def round_trip(
    vm: ApplianceVm,
    guest: SshRunner,
    os_data: Path,
    tmp_path: Path,
    figures: Figures,
    backend: str,
    file: str,
) -> None:
    """Write the data to a new ``file`` over NFSv3, read it back twice; checksums, LUN bytes, ARC hits.

    The first read follows the write, so the ARC (4 GiB guest) still holds most of it; the read after
    the reboot is the cold one (the L2ARC survives, the ARC does not).
    """
    size = os_data.stat().st_size
    wait_writable(lambda path: nfs_url(vm, path), "/tank/vdi", tmp_path / "probe")
    started = time.monotonic()
    nfs_cp(str(os_data), nfs_url(vm, file))
    write = mib_s(size, time.monotonic() - started)
    back = tmp_path / "back.tar"
    seconds, cold = timed_read(vm, file, back)
    assert sha256(back) == sha256(os_data), f"{backend}: the data read back differs"
    cold_pct = round(100 * cold / size, 2)
    arc_before = arcstats(guest)
    warm_seconds, moved = timed_read(vm, file, back)
    arc = arc_hit_pct(arc_before, arcstats(guest))
    assert sha256(back) == sha256(os_data), f"{backend}: the warm read differs"
    warm_pct = round(100 * moved / size, 3)
    figures.add(
        backend,
        {
            "write_mib_s": write,
            "first_read_mib_s": mib_s(size, seconds),
            "first_read_lun_pct": cold_pct,
            "warm_read_mib_s": mib_s(size, warm_seconds),
            "warm_read_lun_bytes": moved,
            "warm_read_lun_pct": warm_pct,
            "warm_read_arc_hit_pct": arc,
            "checksums_equal": True,
        },
        f"{backend} NFSv3 {DATA_MIB} MiB: write {write} MiB/s; first read {mib_s(size, seconds)} MiB/s "
        f"({cold_pct}% from the LUNs); warm read {mib_s(size, warm_seconds)} MiB/s, {moved} bytes from "
        f"the LUNs ({warm_pct}%), ARC hits {arc}%; checksums equal",
    )
    assert moved < 0.05 * size, f"{backend}: the warm read moved {warm_pct}% of its bytes from the LUNs"


# --- the NFSv4.1 client in the guest ----------------------------------------------------------------


def mount41(guest: SshRunner, path: str) -> None:
    """The guest's kernel client mounts ``path`` over NFSv4.1 from itself (loopback)."""
    in_guest(guest, ["mkdir", "-p", V41_MOUNT])
    in_guest(
        guest,
        ["mount", "-t", "nfs", "-o", "vers=4.1,proto=tcp,hard", f"{GUEST_LOOPBACK}:{path}", V41_MOUNT],
        timeout=180,
    )
    mounts = in_guest(guest, ["cat", "/proc/mounts"]).stdout
    line = next((m for m in mounts.splitlines() if f" {V41_MOUNT} " in m), "")
    assert " nfs4 " in line and "vers=4.1" in line, f"not an NFSv4.1 mount: {line!r}"


def umount41(guest: SshRunner) -> None:
    """Unmount the guest's NFSv4.1 mount (if any)."""
    guest.execute(["umount", V41_MOUNT], timeout=120)


def dd_seconds(result: Result) -> float:
    """Seconds from dd's summary line (LC_ALL=C: '... copied, 12.3 s, ...')."""
    match = re.search(r"copied, ([0-9.]+) s", result.stderr)
    assert match, result.stderr
    return float(match.group(1))


def read41(guest: SshRunner, name: str) -> tuple[float, str]:
    """(seconds, sha256) of reading ``name`` through a fresh NFSv4.1 mount (no client cache)."""
    seconds = dd_seconds(in_guest(guest, ["dd", f"if={V41_MOUNT}/{name}", "of=/dev/null", "bs=1M"]))
    digest = in_guest(guest, ["sha256sum", f"{V41_MOUNT}/{name}"]).stdout.split()[0]
    return seconds, digest


# --- the tests, in order --------------------------------------------------------------------------


def test_pool_dataset_and_ganesha_export(api: LabApi, figures: Figures) -> None:
    disks = {d["path"]: d for d in api.call("GET", "/api/storage/disks")}
    for path in (LUN0, LUN1, SLOG, L2ARC):
        assert path in disks and disks[path]["in_use"] is None, disks.get(path)
    spec = {"name": "tank", "layout": "stripe", "data": [LUN0, LUN1], "log": [SLOG], "cache": [L2ARC]}
    started = time.monotonic()
    pool = api.call("POST", "/api/storage/pools", spec, expect=201)
    seconds = time.monotonic() - started
    roles = {v["role"] for v in pool["vdevs"]}
    assert pool["state"] == "ONLINE" and roles == {"data", "log", "cache"}, pool
    api.refused("POST", "/api/storage/pools", spec, expect=409)  # the devices are in use now
    ds = api.call("POST", "/api/storage/datasets", {"name": DATASET, "profile": "stateless-linked"}, 201)
    props = ds["properties"]
    assert props["sync"] == "standard" and props["recordsize"] == 16384 and props["compression"] == "lz4"
    assert props["primarycache"] == props["secondarycache"] == "all", props
    nfs = api.call("GET", "/api/storage/nfs")
    assert nfs["backend"] == "ganesha", nfs  # the lab's ovf-env asks for ganesha
    body = {"dataset": DATASET, "protocol": "3", "clients": [HOST], "insecure_ports": True}
    export = api.call("POST", "/api/storage/exports", body, expect=201)
    assert export["export_id"] == 101 and export["path"] == "/tank/vdi" and export["active"], export
    listed = api.call("GET", "/api/storage/exports")
    assert [(e["export_id"], e["protocol"], e["backend"]) for e in listed] == [(101, "3", "ganesha")]
    figures.add(
        "pool",
        {
            "create_seconds": round(seconds, 1),
            "vdevs": [f"{v['role']}:{v['name']}" for v in pool["vdevs"]],
            "recordsize": props["recordsize"],
            "compression": props["compression"],
        },
        f"pool tank (stripe of 2 LUNs + SLOG + L2ARC) created through the api in {seconds:.1f} s; "
        f"{DATASET}: stateless-linked (lz4, 16K records, sync=standard); export 101 NFSv3 for {HOST}",
    )


def test_ganesha_round_trip_compression_and_warm_offload(
    api: LabApi, appliance: ApplianceVm, guest: SshRunner, os_data: Path, tmp_path: Path, figures: Figures
) -> None:
    round_trip(appliance, guest, os_data, tmp_path, figures, "ganesha", FILE)
    size = os_data.stat().st_size
    ds = dataset(api, DATASET)
    ratio = float(ds["compressratio"])
    figures.add(
        "ganesha",
        {"compressratio": ratio, "used": ds["used"], "logicalused": ds["logicalused"]},
        f"compressratio (lz4, 16K records) of {DATA_MIB} MiB of /usr/lib: {ratio:.2f}x "
        f"({ds['logicalused'] >> 20} MiB logical in {ds['used'] >> 20} MiB)",
    )
    assert ratio > 1.3
    deadline = time.monotonic() + 60  # the counters are the poller's last pass's: up to an interval behind
    while True:
        io = api.call("GET", "/api/storage/exports/101/io")
        assert io["counters_available"] and io["protocol"] == "3", io
        if io["write_bytes"] >= size and io["read_bytes"] >= 2 * size:
            break
        assert time.monotonic() < deadline, io
        time.sleep(2)
    figures.add(
        "ganesha",
        {"export_io": {k: io[k] for k in ("read_ops", "read_bytes", "write_ops", "write_bytes")}},
        f"ganesha export 101 counters (api): {io['write_bytes'] >> 20} MiB written in {io['write_ops']} ops, "
        f"{io['read_bytes'] >> 20} MiB read in {io['read_ops']} ops",
    )


def test_nfs41_export_and_one_protocol_per_host(
    api: LabApi, appliance: ApplianceVm, guest: SshRunner, os_data: Path, figures: Figures
) -> None:
    api.call("POST", "/api/storage/datasets", {"name": DATASET41, "profile": "stateless-linked"}, 201)
    body = {
        "dataset": DATASET41,
        "protocol": "4.1",
        "clients": [HOST, GUEST_LOOPBACK],
        "insecure_ports": True,
    }
    export = api.call("POST", "/api/storage/exports", body, expect=201)
    assert export["export_id"] == 102 and export["protocol"] == "4.1" and export["active"], export

    # One datastore is never exported over NFS 3 and 4.1 to the same host (VMware KB 2089342).
    same_host_v3 = {"dataset": DATASET41, "protocol": "3", "clients": [HOST], "insecure_ports": True}
    conflict = api.refused("POST", "/api/storage/exports", same_host_v3, expect=409)
    other_way = {"dataset": DATASET, "protocol": "4.1", "clients": [HOST]}
    api.refused("POST", "/api/storage/exports", other_way, expect=409)
    # Bad input: a dataset that does not exist, a client that is not an address; nothing changes.
    missing = {"dataset": "tank/missing", "protocol": "3", "clients": [HOST]}
    api.refused("POST", "/api/storage/exports", missing, expect=404)
    bad_client = {"dataset": DATASET41, "protocol": "3", "clients": ["10.0.2.2; rm -rf /"]}
    api.refused("POST", "/api/storage/exports", bad_client, expect=422)
    listed = api.call("GET", "/api/storage/exports")
    assert [(e["export_id"], e["protocol"]) for e in listed] == [(101, "3"), (102, "4.1")], listed

    # The 4.1 datastore refuses NFSv3 from the host, and the host's libnfs (NFSv4.0 only) is told so.
    code, v3_answer = host_tool(["nfs-ls", nfs_url(appliance, "/tank/vdi41")])
    assert code != 0 and "MNT3ERR_ACCES" in v3_answer, v3_answer
    code, v40_answer = host_tool(["nfs-ls", nfs_url(appliance, "/tank/vdi41", version=4)])
    assert code != 0 and "NFS4ERR_MINOR_VERS_MISMATCH" in v40_answer, v40_answer

    # NFSv4.1 proper: the guest's kernel client writes real data (the first V41_MIB MiB of the file
    # the host wrote over NFSv3, read from the local dataset) and reads it back through a new mount.
    size = V41_MIB << 20
    try:
        mount41(guest, "/tank/vdi41")
        wrote = in_guest(
            guest,
            ["dd", f"if={FILE}", f"of={V41_MOUNT}/os-image.tar", "bs=1M", f"count={V41_MIB}", "conv=fsync"],
        )
        umount41(guest)
        mount41(guest, "/tank/vdi41")
        read_seconds, digest = read41(guest, "os-image.tar")
    finally:
        umount41(guest)
    assert digest == sha256(os_data, size), "NFSv4.1: the data read back differs"
    io = api.call("GET", "/api/storage/exports/102/io")
    assert io["counters_available"] and io["write_bytes"] >= size, io
    figures.add(
        "nfs41",
        {
            "data_mib": V41_MIB,
            "write_mib_s": mib_s(size, dd_seconds(wrote)),
            "read_mib_s": mib_s(size, read_seconds),
            "checksums_equal": True,
            "export_io_write_bytes": io["write_bytes"],
            "conflict_409": conflict["detail"],
            "host_libnfs_v3_answer": v3_answer.strip().splitlines()[-1],
            "host_libnfs_v4_answer": v40_answer.strip().splitlines()[-1],
        },
        f"ganesha NFSv4.1 (guest kernel client) {V41_MIB} MiB: write {mib_s(size, dd_seconds(wrote))} MiB/s, "
        f"read {mib_s(size, read_seconds)} MiB/s, checksums equal; same dataset over NFSv3 to the same "
        f"host: 409 ({conflict['detail']}); host libnfs 4.0 over v4: NFS4ERR_MINOR_VERS_MISMATCH",
    )


def test_kernel_server_serves_the_same_datastores(
    api: LabApi, appliance: ApplianceVm, guest: SshRunner, os_data: Path, tmp_path: Path, figures: Figures
) -> None:
    started = time.monotonic()
    state = api.call("PUT", "/api/storage/nfs/backend", {"backend": "knfsd"})
    switch = round(time.monotonic() - started, 1)
    assert state["backend"] == "knfsd" and [e["export_id"] for e in state["exports"]] == [101, 102], state
    exports = wait_active(api, {101, 102})
    assert all(e["backend"] == "knfsd" and e["active"] for e in exports), exports
    wait_nfs(appliance, "/tank/vdi")
    # The same data written again (a second file), read back twice.
    round_trip(appliance, guest, os_data, tmp_path, figures, "knfsd", FILE_KNFSD)
    io = api.call("GET", "/api/storage/exports/101/io")
    assert io["counters_available"] is False, io
    # The NFSv4.1 datastore ganesha wrote, read through the kernel server (after its grace period).
    size = V41_MIB << 20
    try:
        mount41(guest, "/tank/vdi41")
        seconds, digest = read41(guest, "os-image.tar")
    finally:
        umount41(guest)
    assert digest == sha256(os_data, size), "knfsd NFSv4.1: the data read back differs"
    figures.add(
        "knfsd",
        {"switch_seconds": switch, "nfs41_read_mib_s": mib_s(size, seconds)},
        f"switch to knfsd through the api: {switch} s; knfsd NFSv4.1 read of ganesha's copy: "
        f"{mib_s(size, seconds)} MiB/s, checksums equal",
    )
    state = api.call("PUT", "/api/storage/nfs/backend", {"backend": "ganesha"})
    assert state["backend"] == "ganesha", state
    wait_active(api, {101, 102})
    wait_nfs(appliance, "/tank/vdi")
    g, k = figures.data["ganesha"], figures.data["knfsd"]
    figures.add(
        "comparison",
        {
            key: {"ganesha": g[key], "knfsd": k[key]}
            for key in ("write_mib_s", "first_read_mib_s", "warm_read_mib_s")
        },
        "ganesha vs knfsd, same data, NFSv3 from libnfs: "
        + "; ".join(
            f"{key} {g[key]} vs {k[key]}" for key in ("write_mib_s", "first_read_mib_s", "warm_read_mib_s")
        ),
    )


def iscsi_env() -> dict[str, str]:
    """CHAP for libiscsi from the environment, so the secret is never on a command line."""
    return {"LIBISCSI_CHAP_USERNAME": CHAP_USER, "LIBISCSI_CHAP_PASSWORD": CHAP_SECRET}


def iscsi_lun_url(vm: ApplianceVm) -> str:
    """The LUN straight through the host's forward to the guest's 3260.

    Discovery (SendTargets) answers with the portal the guest knows itself by, 10.0.2.15:3260, which
    is qemu user networking's inside address and unreachable from the host. `iscsi-ls -s` would log in
    there (and the lab must send nothing to addresses it does not own), so the test discovers with
    `iscsi-ls` (no -s: discovery only, the advertised portal is printed, not followed) and logs in with
    a direct iscsi://127.0.0.1:<forward>/<target>/<lun> URL, as an initiator with a static target would.
    """
    return f"iscsi://127.0.0.1:{vm.config.host_ports['iscsi']}/{TARGET_IQN}/0"


def readcapacity(vm: ApplianceVm, env: dict[str, str], initiator: str = HOST_IQN) -> tuple[int, str]:
    """(exit code, output) of iscsi-readcapacity16 on the LUN."""
    return host_tool(["iscsi-readcapacity16", "-i", initiator, iscsi_lun_url(vm)], env=env)


def lun_size(output: str) -> int:
    """'Total size:N' of iscsi-readcapacity16."""
    match = re.search(r"Total size:(\d+)", output)
    assert match, output
    return int(match.group(1))


def test_iscsi_lun_from_a_zvol(api: LabApi, appliance: ApplianceVm, figures: Figures) -> None:
    absent = [t for t in ("iscsi-ls", "iscsi-inq", "iscsi-readcapacity16") if shutil.which(t) is None]
    assert not absent, f"host tools missing: {absent} (libiscsi-bin: make setup)"
    vol = api.call("POST", "/api/storage/volumes", {"name": ZVOL, "size_bytes": ZVOL_BYTES}, expect=201)
    assert vol["type"] == "VOLUME", vol
    body = {
        "iqn": TARGET_IQN,
        "zvol": ZVOL,
        "initiators": [HOST_IQN],
        "chap": {"user": CHAP_USER, "secret": CHAP_SECRET},
    }
    status, target = api.raw("POST", "/api/storage/iscsi/targets", body)
    assert CHAP_SECRET not in json.dumps(target), "the api echoed the CHAP secret"
    assert status == 201, target
    assert target["chap"] and target["initiators"] == [HOST_IQN], target
    assert target["vaai"].get("emulate_3pc") == 1 and target["vaai"].get("emulate_caw") == 1, target
    again = api.refused("POST", "/api/storage/iscsi/targets", body, expect=409)
    assert CHAP_SECRET not in json.dumps(again)
    assert [t["iqn"] for t in api.call("GET", "/api/storage/iscsi/targets")] == [TARGET_IQN]

    # The firewall lets initiators in by network: the host's, as an admin lists the ESXi hosts'.
    allowed = api.call("GET", "/api/settings/firewall")["settings"]
    api.call("PUT", "/api/settings/firewall", {**allowed, "iscsi": ["10.0.2.2/32"]})
    port = appliance.config.host_ports["iscsi"]
    code, found = host_tool(["iscsi-ls", "-i", HOST_IQN, f"iscsi://127.0.0.1:{port}/"], env=iscsi_env())
    assert code == 0 and f"Target:{TARGET_IQN} Portal:{LAB_ADDRESS}:3260" in found, found
    code, inquiry = host_tool(["iscsi-inq", "-i", HOST_IQN, iscsi_lun_url(appliance)], env=iscsi_env())
    assert code == 0 and "Vendor:LIO-ORG" in inquiry and "3PC:1" in inquiry, inquiry
    code, capacity = readcapacity(appliance, iscsi_env())
    assert code == 0 and lun_size(capacity) == ZVOL_BYTES, capacity
    # Without CHAP, with a wrong secret, or from an initiator not in the ACL: no login.
    code, no_chap = readcapacity(appliance, {})
    assert code != 0 and "Authentication failure" in no_chap, no_chap
    wrong = {**iscsi_env(), "LIBISCSI_CHAP_PASSWORD": "not-the-secret-0"}
    code, bad_secret = readcapacity(appliance, wrong)
    assert code != 0 and "Authentication failure" in bad_secret, bad_secret
    code, stranger = readcapacity(appliance, iscsi_env(), "iqn.2026-11.lab.arcvsa:stranger")
    assert code != 0 and "Authorization failure" in stranger, stranger
    figures.add(
        "iscsi",
        {"lun_bytes": lun_size(capacity), "discovered": True, "refused_without_chap": True},
        f"iSCSI: zvol {ZVOL} ({ZVOL_BYTES >> 20} MiB) as LUN 0 of {TARGET_IQN}: discovered from the host, "
        f"CHAP login sees {lun_size(capacity)} bytes (LIO-ORG, 3PC:1); no CHAP, a wrong secret and an "
        "unlisted initiator are refused",
    )


STORAGE_SPEC = REPO / "tests" / "e2e" / "storage.spec.ts"


def test_storage_pages_in_a_browser(booted: BootedAppliance, api: LabApi) -> None:
    """The web helper's storage journey against this appliance (its ARCVSA_STORAGE_LAB=1 mode)."""
    npx = shutil.which("npx")
    if not STORAGE_SPEC.is_file() or npx is None:
        pytest.skip(f"no {STORAGE_SPEC.relative_to(REPO)} (or npx) to run against the lab appliance")
    output = REPO / "web" / "test-results" / "storage-lab"
    env = {
        "ARCVSA_STORAGE_LAB": "1",
        "ARCVSA_URL": f"https://127.0.0.1:{booted.api.port}",
        "ARCVSA_ADMIN_USER": "admin",
        "ARCVSA_ADMIN_PASSWORD": api.password,
        "ARCVSA_STORAGE_POOL": "tank",
    }
    argv = [
        npx,
        "--no-install",
        "playwright",
        "test",
        "storage.spec.ts",
        "--reporter=list",
        f"--output={output}",
    ]
    proc = subprocess.run(
        argv, cwd=REPO / "web", env={**os.environ, **env}, timeout=900, check=False, stdin=subprocess.DEVNULL
    )
    assert proc.returncode == 0, "the storage pages' Playwright journey failed (its output is above)"


def test_everything_is_back_after_a_reboot(
    api: LabApi, booted: BootedAppliance, os_data: Path, tmp_path: Path, figures: Figures
) -> None:
    vm = booted.vm
    backend = api.call("GET", "/api/storage/nfs")["backend"]
    assert vm.shutdown(timeout=180), "the guest did not power off cleanly"
    vm.config.fresh = False  # same OS disk and SSDs: a reboot, not a new appliance
    vm.start()
    seconds, _ = booted.api.wait_health(vm.started_at, 600, vm.check, vm.console)
    api.login()
    pools = api.call("GET", "/api/storage/pools")
    assert [p["name"] for p in pools] == ["tank"] and pools[0]["state"] == "ONLINE", pools
    assert {v["role"] for v in pools[0]["vdevs"]} == {"data", "log", "cache"}, pools
    listed = {d["name"]: d for d in api.call("GET", "/api/storage/pools/tank/datasets")}
    assert listed[DATASET]["properties"]["recordsize"] == 16384, listed[DATASET]
    assert DATASET41 in listed and listed[ZVOL]["type"] == "VOLUME", sorted(listed)
    exports = wait_active(api, {101, 102})
    assert [(e["export_id"], e["protocol"], e["active"]) for e in exports] == [
        (101, "3", True),
        (102, "4.1", True),
    ]
    assert api.call("GET", "/api/storage/nfs")["backend"] == backend, "the NFS backend changed"
    wait_nfs(vm, "/tank/vdi")
    back = tmp_path / "after-reboot.tar"
    try:  # bounded: a guest kernel oops in a ZFS read thread would otherwise hang it for 30 min
        read_seconds, from_luns = timed_read(vm, FILE, back, timeout=max(600.0, DATA_MIB * 1.0))
    except ControlError as err:
        console = vm.console.read_text(encoding="utf-8", errors="replace").splitlines()
        oops = [line for line in console if re.search(r"BUG:|Oops|RIP:|\? \w+\+0x", line)]
        pytest.fail(f"the read after the reboot failed: {err}; guest console: {oops[:16]}")
    size = os_data.stat().st_size
    assert sha256(back) == sha256(os_data), "the data read after the reboot differs"
    targets = api.call("GET", "/api/storage/iscsi/targets")
    assert [t["iqn"] for t in targets] == [TARGET_IQN] and targets[0]["chap"], targets
    code, capacity = readcapacity(vm, iscsi_env())
    assert code == 0 and lun_size(capacity) == ZVOL_BYTES, capacity
    pct = round(100 * from_luns / size, 2)
    figures.add(
        "reboot",
        {
            "api_health_seconds": round(seconds, 1),
            "nfs_backend": backend,
            "pool_online": True,
            "datasets": sorted(listed),
            "exports_active": [e["export_id"] for e in exports],
            "read_mib_s": mib_s(size, read_seconds),
            "read_lun_pct": pct,
            "iscsi_lun_bytes": lun_size(capacity),
        },
        f"after a reboot ({seconds:.0f} s to api health): pool ONLINE with SLOG+L2ARC, {len(listed)} datasets, "
        f"exports 101 (v3) and 102 (4.1) active on {backend}, iSCSI target back ({lun_size(capacity)} bytes); "
        f"read {mib_s(size, read_seconds)} MiB/s, checksums equal, {pct}% from the LUNs (persistent L2ARC)",
    )
