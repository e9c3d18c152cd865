"""The storage engine in the booted appliance, driven by appliance.control over SSH (api routes come later).

In order: a stripe pool with SLOG and L2ARC and a stateless-linked datastore; real OS data over libnfs
from the host through ganesha (NFSv3) with equal checksums, compressratio and the warm-read offload
counted by QMP on the VM's LUN disks; the same through the kernel server; then a reboot, after which
pool, dataset and export must be back. ARCVSA_LAB_DATA_MIB sets the data size (default 256; the
issue's figure is 1024).
"""

from __future__ import annotations

import hashlib
import os
import tarfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from fixtures.appliance.remote import SshFiles, SshRunner, nfs_cp, wait_writable
from zfs_tuning import profiles

from appliance.control import datasets, metrics, pools
from appliance.control.errors import ControlError
from appliance.control.gateway import Gateway
from appliance.control.nfs import ganesha, knfsd
from appliance.control.nfs.model import Export, Protocol
from lab.appliance_vm import ApplianceVm

pytestmark = [pytest.mark.lab, pytest.mark.timeout(3600)]

LUN0, LUN1 = "/dev/disk/by-id/virtio-lun0", "/dev/disk/by-id/virtio-lun1"
SLOG, L2ARC = "/dev/disk/by-id/virtio-ssd-slog", "/dev/disk/by-id/virtio-ssd-l2arc"
HOST = "10.0.2.2"  # the host as qemu user networking shows it to the guest
DATA_MIB = int(os.environ.get("ARCVSA_LAB_DATA_MIB", "256"))
HOST_TOOLS = Gateway()  # nfs-cp on the host goes through the same gateway as the appliance's tools
EXPORT = Export(
    export_id=101,
    dataset="tank/vdi",
    path="/tank/vdi",
    protocol=Protocol.v3,
    clients=[HOST],
    insecure_ports=True,
)
FILE = "/tank/vdi/os-image.tar"


@dataclass
class Figures:
    """What the run measured, printed at the end."""

    lines: list[str] = field(default_factory=list)

    def add(self, line: str) -> None:
        """Keep and print one figure."""
        print(f"\n{line}")
        self.lines.append(line)


@pytest.fixture(scope="module")
def figures() -> Iterator[Figures]:
    """Figures of the whole module, repeated at its end."""
    found = Figures()
    yield found
    print("\n" + "\n".join(found.lines))


@pytest.fixture(scope="module")
def control(appliance: ApplianceVm) -> tuple[Gateway, SshFiles]:
    """The control package's gateway and files in the VM, zfs loaded."""
    runner = SshRunner(appliance.config.host_ports["ssh"], appliance.config.ssh_key)
    gw = Gateway(runner, timeout=300)
    gw.run(["modprobe", "zfs"])
    return gw, SshFiles(runner)


@pytest.fixture(scope="module")
def os_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """DATA_MIB of real OS files (a tar of the host's /usr), the kind of bytes a desktop image holds."""
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


def sha256(path: Path) -> str:
    """Hex digest of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def nfs_url(vm: ApplianceVm, path: str) -> str:
    """libnfs URL through the VM's forwards."""
    ports = vm.config.host_ports
    return f"nfs://127.0.0.1{path}?nfsport={ports['nfs']}&mountport={ports['mountd']}"


def lun_read_bytes(vm: ApplianceVm) -> int:
    """Bytes the VM read from its SAN LUNs so far (QMP)."""
    return sum(int(s["rd_bytes"]) for name, s in vm.blockstats().items() if name.startswith("lun"))


def timed_read(vm: ApplianceVm, target: Path) -> tuple[float, int]:
    """Read the test file over NFS into ``target``; (seconds, bytes that reached the LUNs)."""
    target.unlink(missing_ok=True)
    before, started = lun_read_bytes(vm), time.monotonic()
    nfs_cp(nfs_url(vm, FILE), str(target))
    return time.monotonic() - started, lun_read_bytes(vm) - before


def wait_nfs(vm: ApplianceVm, timeout: float = 180.0) -> None:
    """Until the export answers a listing from the host."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            HOST_TOOLS.run(["nfs-ls", nfs_url(vm, "/tank/vdi")], timeout=30)
            return
        except ControlError:
            if time.monotonic() > deadline:
                raise
            time.sleep(3)


def test_pool_dataset_and_ganesha_export(control: tuple[Gateway, SshFiles]) -> None:
    gw, files = control
    spec = pools.PoolSpec(name="tank", data=[LUN0, LUN1], log=[SLOG], cache=[L2ARC], force=True)
    health = pools.create(gw, spec)
    assert {v.role for v in health.vdevs} == {"data", "log", "cache"} and health.healthy
    ds = datasets.create_for_profile(gw, "tank/vdi", profiles.load("stateless-linked"))
    assert ds.properties["sync"] == "standard" and ds.properties["recordsize"] == 16384
    gw.run(["chmod", "0777", "/tank/vdi"])
    ganesha.ensure_service(gw, files)
    assert ganesha.reconcile(gw, files, [EXPORT]).added == [101]


def test_ganesha_round_trip_compression_and_warm_offload(
    appliance: ApplianceVm, control: tuple[Gateway, SshFiles], os_data: Path, tmp_path: Path, figures: Figures
) -> None:
    gw, files = control
    wait_writable(lambda path: nfs_url(appliance, path), "/tank/vdi", tmp_path / "probe")
    started = time.monotonic()
    nfs_cp(str(os_data), nfs_url(appliance, FILE))
    size = os_data.stat().st_size
    figures.add(f"ganesha write {DATA_MIB} MiB: {size / (time.monotonic() - started) / 2**20:.1f} MiB/s")
    back = tmp_path / "back.tar"
    seconds, cold = timed_read(appliance, back)
    assert sha256(back) == sha256(os_data)
    figures.add(
        f"ganesha first read: {size / seconds / 2**20:.1f} MiB/s, {cold / size:.2%} of its bytes from the LUNs"
    )
    gw.run(["zpool", "sync", "tank"])
    ratio = datasets.compressratio(gw, "tank/vdi")
    figures.add(f"compressratio (lz4, 16K records) of {DATA_MIB} MiB of /usr/lib: {ratio:.2f}x")
    assert ratio > 1.3
    seconds, moved = timed_read(appliance, back)
    arc = metrics.arc(files)
    figures.add(
        f"ganesha warm read: {size / seconds / 2**20:.1f} MiB/s, {moved} bytes from the LUNs ({moved / size:.2%}); "
        f"ARC hit ratio {arc.hit_ratio:.1%}, L2ARC {arc.l2_size >> 20} MiB"
    )
    assert moved < 0.05 * size
    io = ganesha.io_stats(gw, 101, Protocol.v3)
    assert io.read_bytes >= 2 * size and io.write_bytes >= size


def test_kernel_server_serves_the_same_datastore(
    appliance: ApplianceVm, control: tuple[Gateway, SshFiles], os_data: Path, tmp_path: Path, figures: Figures
) -> None:
    gw, files = control
    assert ganesha.reconcile(gw, files, []).removed == [101]
    gw.run(["systemctl", "stop", "nfs-ganesha"], timeout=120)
    changes = knfsd.reconcile(gw, files, [EXPORT])
    assert changes.added == [101]
    gw.run(["systemctl", "restart", "nfs-server"], timeout=120)
    wait_nfs(appliance)
    back = tmp_path / "back.tar"
    seconds, moved = timed_read(appliance, back)
    size = os_data.stat().st_size
    assert sha256(back) == sha256(os_data)
    figures.add(f"knfsd warm read: {size / seconds / 2**20:.1f} MiB/s, {moved / size:.2%} from the LUNs")
    assert moved < 0.05 * size
    assert knfsd.reconcile(gw, files, []).removed == [101]
    gw.run(["systemctl", "stop", "nfs-server"], timeout=120)
    gw.run(["systemctl", "start", "nfs-ganesha"], timeout=120)
    assert ganesha.reconcile(gw, files, [EXPORT]).added == [101]


def test_everything_is_back_after_a_reboot(
    appliance: ApplianceVm, control: tuple[Gateway, SshFiles], os_data: Path, tmp_path: Path, figures: Figures
) -> None:
    gw, _ = control
    gw.run(["sync"])
    assert appliance.shutdown(timeout=180), "the guest did not power off cleanly"
    appliance.config.fresh = False  # same OS disk and SSDs: a reboot, not a new appliance
    appliance.start()
    figures.add(f"reboot to SSH: {appliance.wait_ssh(timeout=600):.0f} s")
    assert pools.status(gw, "tank").healthy
    assert datasets.get(gw, "tank/vdi").properties["recordsize"] == 16384
    wait_nfs(appliance)
    back = tmp_path / "after-reboot.tar"
    _, from_luns = timed_read(appliance, back)
    assert sha256(back) == sha256(os_data)
    figures.add(
        f"read after reboot: {from_luns / os_data.stat().st_size:.2%} from the LUNs (persistent L2ARC)"
    )
