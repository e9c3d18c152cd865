"""The four stacks a desktop's I/O can go through, on the same throttled LUN of the same lab SAN.

- ``bare-lun``: fio's nbd engine straight onto the LUN, as a desktop on a VMFS datastore hits the SAN.
- ``arcvsa``: the appliance as the product sets it up, all through its api: pool with SLOG and L2ARC,
  the stateless-linked profile's dataset, the sizing calculator's module parameters, NFSv3 export.
- ``zfs-defaults``: the same VM, disks and NFS server, but ``zpool create``/``zfs create`` with
  OpenZFS's defaults (only ``acltype=posix``, without which nfs-ganesha cannot serve the dataset).
- ``nas-xfs``: a generic NAS VM: XFS on the LUN, exported by the kernel NFS server, set up by hand.

Every appliance stack boots a fresh VM from the image with the same memory, so no cache and no
module parameter carries over from the stack before. The desktops' NFS reaches it over a tap link
(lab.tap) when the host can make one, as an ESXi host's reaches an appliance over a NIC: qemu's
user-mode forwards run a TCP stack of their own in qemu's main loop, a path no datastore has (the
bare LUN's fio talks to the SAN directly). The api and SSH stay on the forwards.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from appliance.control import metrics
from bench import cpu, iostat, txgs
from lab import appliance_env, console, guest_clock
from lab.appliance_api import ApplianceApi
from lab.appliance_vm import ApplianceVm, VmConfig
from lab.san import San
from lab.tap import TapLink
from process import ProcessError, run

# /proc/uptime, /proc/stat and every process's stat file, in one call (find expands the pattern, no shell)
CPU_SAMPLE = [
    "find", "/proc", "-maxdepth", "2", "-type", "f",
    "(", "-path", "/proc/uptime", "-o", "-path", "/proc/stat", "-o", "-path", "/proc/[0-9]*/stat", ")",
    "-exec", "cat", "{}", "+",
]  # fmt: skip

DATA_LUN = "lun0"
LUN_PATH = f"/dev/disk/by-id/virtio-{DATA_LUN}"
CALIBRATION_LUN = "/dev/disk/by-id/virtio-lun2"  # free: the built-in calibration's bare figure
SLOG, L2ARC = "/dev/disk/by-id/virtio-ssd-slog", "/dev/disk/by-id/virtio-ssd-l2arc"
POOL, DATASET = "tank", "tank/vdi"
NAS_DIR = "/srv/nas"
ARCSTATS = ("hits", "misses", "l2_hits", "l2_misses", "size", "l2_size")
# arcstats counters of which one grows when an import's L2ARC rebuild ends, well or not
L2ARC_REBUILD_ENDS = (
    "l2_rebuild_success", "l2_rebuild_unsupported", "l2_rebuild_io_errors", "l2_rebuild_dh_errors",
    "l2_rebuild_cksum_lb_errors", "l2_rebuild_lowmem",
)  # fmt: skip
STACKS = ("bare-lun", "arcvsa", "zfs-defaults", "nas-xfs")
# arcvsa once more in the same run, with the overrides (``--ab``): an A/B of one setting side by side
AB_STACK = "arcvsa-b"
LABELS = {
    "bare-lun": "bare LUN (VMFS-like)",
    "arcvsa": "arcvsa (tuned)",
    AB_STACK: "arcvsa B (overrides)",
    "zfs-defaults": "OpenZFS defaults",
    "nas-xfs": "NAS VM (XFS + knfsd)",
}


class StackError(RuntimeError):
    """A stack could not be set up or measured (the message says which step and why)."""


@dataclass
class Counters:
    """Cumulative counters of one moment: SAN I/O of the data LUN (qemu blockstats), SSDs, ARC."""

    at: float
    san: dict[str, int] = field(default_factory=dict)
    ssd: dict[str, dict[str, int]] = field(default_factory=dict)
    arc: dict[str, int] = field(default_factory=dict)
    # the writes the pool issued to the data LUN by size (bench.iostat), copy-on-write stacks only
    lun_writes: iostat.Sizes = field(default_factory=dict)
    # the guest's CPU ticks (bench.cpu), appliance stacks only
    cpu: cpu.Sample | None = None


@dataclass(frozen=True)
class WriteModel:
    """What decides a copy-on-write pool's writes to the LUN: its record size and its txgs, as opened
    during the phase (bench.txgs; within ``clock_error_s``) or else every ``txg_seconds``."""

    record_bytes: int
    txg_seconds: float
    txg_starts: tuple[float, ...] = ()
    clock_error_s: float | None = None


def io_counts(stats: dict[str, Any]) -> dict[str, int]:
    """The four counters offload is computed from, out of one disk's query-blockstats entry."""
    return {
        "rd_bytes": int(stats["rd_bytes"]),
        "wr_bytes": int(stats["wr_bytes"]),
        "rd_ops": int(stats["rd_operations"]),
        "wr_ops": int(stats["wr_operations"]),
    }


def rebuilds_ended(arcstats: dict[str, int]) -> int:
    """How many L2ARC rebuilds have ended so far, well or not (raw arcstats)."""
    return sum(arcstats.get(name, 0) for name in L2ARC_REBUILD_ENDS)


class Stack:
    """Base: the bare LUN needs nothing booted; its SAN I/O is the client's own (no cache between)."""

    name = "bare-lun"
    protocol = "nbd"

    def __init__(self, san: San) -> None:
        self.san = san

    @property
    def label(self) -> str:
        return LABELS[self.name]

    def start(self) -> None:
        """Boot and set up whatever serves the data (nothing for the bare LUN)."""

    def stop(self) -> None:
        """Power off whatever start() booted."""

    def nbd_uri(self, lun: str = DATA_LUN) -> str:
        return f"nbd+unix:///{lun}?socket={self.san.socket}"

    def counters(self) -> Counters:
        return Counters(at=time.monotonic())

    def flush(self) -> None:
        """Put every write acknowledged so far on the LUN, so that a phase's SAN counters hold what its
        own writes cost: its deferred tail in, the phase before's out (the bare LUN defers nothing)."""

    def drop_cache(self) -> None:
        """Empty every cache between the client and the SAN (the bare LUN has none)."""

    def compression(self) -> float | None:
        return None

    def write_model(self, began: float | None = None) -> WriteModel | None:
        """The pool's record size and txgs since ``began`` (time.monotonic()), copy-on-write stacks only."""
        return None

    def describe(self) -> dict[str, Any]:
        return {"stack": self.name, "label": self.label, "lun": DATA_LUN}


class ApplianceStack(Stack):
    """A VM booted from the appliance image on the run's SAN (data LUN + the calibration LUN)."""

    protocol = "nfs"
    nfs_backend = "ganesha"

    def __init__(
        self, san: San, image: Path, key: Path, directory: Path, memory_mib: int, tap: TapLink | None = None
    ) -> None:
        super().__init__(san)
        self.image, self.key, self.directory, self.memory_mib = image, key, directory, memory_mib
        self.tap = tap  # the desktops' path: a tap link, else qemu's user-mode forwards
        self.vm: ApplianceVm | None = None
        self.api: ApplianceApi | None = None
        self.token = ""
        self.export_id = 0
        self.setup: dict[str, Any] = {}

    # --- VM -------------------------------------------------------------------------------------
    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / "api.crt").unlink(missing_ok=True)  # a fresh VM makes a new certificate
        self.wipe_label()
        iso, props = appliance_env.prepare(
            self.directory / "env", self.key, {"nfs_backend": self.nfs_backend}
        )
        luns = [lun for lun in self.san.luns if lun.name != "lun1"]  # lun1 carries the background load
        config = VmConfig(
            self.image, self.directory, self.san.socket, luns, self.key,
            memory_mib=self.memory_mib, cdrom=iso, tied=True, tap=self.tap,
        )  # fmt: skip

        def boot() -> tuple[ApplianceVm, ApplianceApi, float]:
            vm = self.vm = ApplianceVm(config).start()
            api = ApplianceApi(config.host_ports["https"], self.directory / "api.crt", timeout=600)
            return vm, api, api.wait_health(vm.started_at, 600, vm.check, vm.console)[0]

        def kill() -> None:
            if self.vm is not None:
                self.vm.kill()
                self.vm = None

        # under TCG a boot can oops in early boot: the emulator's, not the appliance's (lab.console)
        vm, self.api, seconds = console.booting(
            boot,
            self.directory / "console.log",
            kill,
            lambda words: print(f"bench: {self.name}: {words}", flush=True),
        )
        vm.wait_ssh(300)
        if self.tap is not None:
            vm.open_tap()
        self.setup["network"] = "user" if self.tap is None else "tap"
        self.token = self.api.token("admin", props["admin_password"])
        self.setup["boot_seconds"] = round(seconds, 1)
        self.prepare()

    def stop(self) -> None:
        if self.vm is not None:
            self.vm.shutdown(timeout=90)
            self.vm = None

    def wipe_label(self) -> None:
        """Zero the data LUN's first and last MiBs before booting: after the bare-LUN stack it holds a raw copy
        of the golden image, that is, of the appliance's own disk, whose root file system UUID the
        appliance's initramfs would then find and boot from (seen in the lab)."""
        # ZFS keeps two of its four labels at the end of the device: wipe that too.
        size = next(lun.size_bytes for lun in self.san.luns if lun.name == DATA_LUN)
        for offset in (0, size - (4 << 20)):
            run(["qemu-io", "-f", "raw", "-c", f"write -z {offset} 4M", self.nbd_uri()], timeout=120)

    def prepare(self) -> None:
        raise NotImplementedError

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One api call; any 4xx/5xx is a StackError naming the call."""
        assert self.api is not None
        status, data = self.api.request(method, path, body, token=self.token)
        if status >= 400:
            raise StackError(f"{self.name}: {method} {path} answered {status}: {data}")
        return data

    def ssh(self, argv: list[str], timeout: float = 300) -> str:
        assert self.vm is not None
        try:
            return self.vm.ssh(argv, timeout=timeout)
        except ProcessError as exc:
            raise StackError(f"{self.name}: {' '.join(argv)}: {exc.stderr.strip()[-500:]}") from exc

    @property
    def client(self) -> str:
        """The host (our ESXi) as the guest sees it on the desktops' path: the export's client list."""
        assert self.vm is not None
        return self.vm.host_address

    def nfs_url(self, name: str = "") -> str:
        """libnfs URL of the export (or of a file in it) over the tap link or the VM's forwards."""
        assert self.vm is not None
        return self.vm.nfs_url(f"{self.export_path}/{name}" if name else self.export_path)

    @property
    def export_path(self) -> str:
        return f"/{DATASET}"

    # --- measurement -----------------------------------------------------------------------------
    def counters(self) -> Counters:
        assert self.vm is not None
        stats = self.vm.blockstats()
        counters = Counters(at=time.monotonic(), san=io_counts(stats[DATA_LUN]))
        counters.ssd = {name: io_counts(stats[name]) for name in ("ssd-slog", "ssd-l2arc") if name in stats}
        counters.arc = self.arcstats()
        counters.lun_writes = self.lun_writes()
        counters.cpu = self.cpu_sample()
        return counters

    def cpu_sample(self) -> cpu.Sample:
        """The guest's CPU ticks now (bench.cpu). A process that ends while find lists /proc makes cat
        fail on its file: the rest of the sample stands."""
        assert self.vm is not None
        done = run(self.vm.ssh_argv(CPU_SAMPLE), timeout=60, check=False)
        try:
            return cpu.parse(done.stdout)
        except cpu.CpuError as exc:
            raise StackError(f"{self.name}: CPU sample: {exc}; {done.stderr.strip()[-300:]}") from exc

    def flush(self) -> None:
        # The open transaction group's dirty data: up to zfs_txg_timeout of writes, or a layout's
        # last ~80 MiB, which would otherwise land in the next phase's window.
        self.ssh(["zpool", "sync", POOL], timeout=600)

    def arcstats(self) -> dict[str, int]:
        """The ARC counters offload needs, parsed as the appliance's own metrics parse them."""
        raw = self.arcstats_raw()
        return {name: raw[name] for name in ARCSTATS if name in raw}

    def arcstats_raw(self) -> dict[str, int]:
        return metrics.parse_arcstats(self.ssh(["cat", metrics.ARCSTATS], timeout=60)).raw

    def compression(self) -> float | None:
        out = self.ssh(["zfs", "get", "-Hp", "-o", "value", "compressratio", DATASET], timeout=60)
        return float(out.strip().rstrip("x"))

    def write_model(self, began: float | None = None) -> WriteModel | None:
        record = self.ssh(["zfs", "get", "-Hp", "-o", "value", "recordsize", DATASET], timeout=60)
        txg = self.ssh(["cat", "/sys/module/zfs/parameters/zfs_txg_timeout"], timeout=60)
        model = WriteModel(record_bytes=int(record.strip()), txg_seconds=float(txg.strip()))
        if began is None:
            return model
        try:
            born = txgs.births(self.ssh(["cat", f"/proc/spl/kstat/zfs/{POOL}/txgs"], timeout=60))
        except txgs.TxgHistoryError as exc:  # the phase's row says so; the run goes on
            raise StackError(f"{self.name}: {exc}") from exc
        assert self.vm is not None
        clock = guest_clock.raw_offset(self.vm.ssh_argv)
        opened = txgs.starts(born, clock, began)
        if opened is None:
            return model
        return replace(model, txg_starts=opened, clock_error_s=round(clock.error, 3))

    def lun_writes(self) -> iostat.Sizes:
        """The data LUN's request-size histogram of writes since import (bench.iostat)."""
        text = self.ssh(["zpool", "iostat", "-r", "-v", "-p", "-H", POOL], timeout=60)
        try:
            return iostat.write_sizes(text, Path(LUN_PATH).name)
        except iostat.IostatError as exc:
            raise StackError(f"{self.name}: {exc}") from exc

    def drop_cache(self) -> None:
        """Empty the RAM cache as the appliance's restart would, by its own maintenance steps: the export
        taken off, the pool exported (its buffers leave the ARC) and imported (the persistent L2ARC
        rebuilt from the SSD's log blocks, as at boot), the export put back. A reboot did the same in
        ~90 s more a stack."""
        before = self.arcstats_raw()
        self.call("DELETE", f"/api/storage/exports/{self.export_id}")
        self.call("POST", f"/api/storage/pools/{POOL}/export")
        self.call("POST", f"/api/storage/pools/{POOL}/import")
        if before.get("l2_log_blk_count", 0) > 0:  # else nothing to rebuild: the import starts none
            self.wait_l2arc_rebuild(rebuilds_ended(before))
        self.export_dataset()

    def wait_l2arc_rebuild(self, ended: int, timeout: float = 120) -> None:
        """Until the import's L2ARC rebuild has ended, well or not (a boot storm after a restart finds
        it ended); ``ended`` is the sum of its end counters before the export."""
        deadline = time.monotonic() + timeout
        while rebuilds_ended(self.arcstats_raw()) <= ended:
            if time.monotonic() > deadline:
                raise StackError(
                    f"{self.name}: the L2ARC rebuild had not ended {timeout:.0f} s after the import"
                )
            time.sleep(1)

    def export_dataset(self) -> None:
        """The dataset's NFSv3 export to the host (our ESXi), through the api as an admin makes it."""
        export = {"dataset": DATASET, "protocol": "3", "clients": [self.client], "insecure_ports": True}
        self.export_id = int(self.call("POST", "/api/storage/exports", export)["export_id"])

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "nfs_backend": self.nfs_backend, "setup": self.setup}


@dataclass(frozen=True)
class Overrides:
    """Settings of arcvsa's stack over its profile's, its tuning recommendation's and its OVF
    defaults', to compare one setting in one run (``--set recordsize=8K``, ``--module
    zfs_txg_timeout=15``, ``--nfs-backend knfsd``)."""

    properties: dict[str, str] = field(default_factory=dict)
    module: dict[str, int] = field(default_factory=dict)
    nfs_backend: str | None = None
    ab: bool = False  # arcvsa as shipped beside arcvsa-b with these settings


class Arcvsa(ApplianceStack):
    name = "arcvsa"
    profile = "stateless-linked"

    def __init__(self, *args: Any, overrides: Overrides | None = None, name: str = "arcvsa") -> None:
        super().__init__(*args)
        self.name = name
        self.overrides = overrides or Overrides()
        if self.overrides.nfs_backend:
            self.nfs_backend = self.overrides.nfs_backend  # the appliance's nfs_backend property

    def prepare(self) -> None:
        # force: the LUN still holds the stack before's data (the admin knowingly reuses it).
        spec = {
            "name": POOL,
            "layout": "stripe",
            "data": [LUN_PATH],
            "log": [SLOG],
            "cache": [L2ARC],
            "force": True,
        }
        self.call("POST", "/api/storage/pools", spec)
        body = {
            "name": DATASET,
            "profile": self.profile,
            "properties": self.overrides.properties,
        }
        dataset = self.call("POST", "/api/storage/datasets", body)
        sizing = {
            "pool_type": self.profile, "desktops": 32, "desktop_gib": 2, "golden_gib": 1,
            "ram_gib": self.memory_mib / 1024, "slog_ssd_gib": 2, "l2arc_ssd_gib": 2,
        }  # fmt: skip
        recommended = self.call("POST", "/api/tuning/recommendation", sizing)
        params = {name: int(value) for name, value in recommended["module"].items()} | self.overrides.module
        if params:
            self.call("PUT", "/api/tuning/parameters", {"params": params})
        self.export_dataset()
        self.setup.update(
            profile=self.profile,
            properties={
                k: dataset["properties"].get(k) for k in ("recordsize", "compression", "sync", "atime")
            },
            module_parameters=params,
            overrides={
                "properties": self.overrides.properties,
                "module": self.overrides.module,
                "nfs_backend": self.overrides.nfs_backend,
            },
        )


class ZfsDefaults(ApplianceStack):
    name = "zfs-defaults"

    def prepare(self) -> None:
        # Made by hand, as a user would: udev's boot backlog first (pools.create retries that race instead).
        self.ssh(["udevadm", "settle", "--timeout=120"], timeout=150)
        self.ssh(["zpool", "create", "-f", POOL, LUN_PATH, "log", SLOG, "cache", L2ARC])
        self.ssh(["zfs", "create", "-o", "acltype=posix", DATASET])
        self.export_dataset()
        props = self.ssh(
            ["zfs", "get", "-Hp", "-o", "property,value", "recordsize,compression,sync,atime", DATASET]
        )
        self.setup["properties"] = dict(line.split("\t", 1) for line in props.strip().splitlines())


class NasXfs(ApplianceStack):
    """XFS on the LUN, /etc/exports and the kernel server: what an admin sets up on any Linux VM."""

    name = "nas-xfs"
    nfs_backend = "knfsd"

    @property
    def export_path(self) -> str:
        return NAS_DIR

    def prepare(self) -> None:
        # A plain NAS VM has no arcvsa firewall (nothing of the api serves this export, so the
        # firewall would let no client reach it).
        assert self.vm is not None
        self.vm.lift_firewall()
        self.setup["firewall"] = "none, as on a plain NAS VM"
        self.ssh(["mkfs.xfs", "-f", "-q", LUN_PATH])
        self.ssh(["mkdir", "-p", NAS_DIR])
        fstab = self.ssh(["cat", "/etc/fstab"], timeout=30)
        self.write("/etc/fstab", fstab + f"{LUN_PATH} {NAS_DIR} xfs defaults 0 0\n")
        self.ssh(["mount", NAS_DIR])
        options = "rw,sync,insecure,no_root_squash,no_subtree_check"
        self.ssh(["mkdir", "-p", "/etc/exports.d", "/etc/nfs.conf.d"])  # the image ships neither
        self.write("/etc/exports.d/nas.exports", f"{NAS_DIR} {self.client}({options})\n")
        self.write("/etc/nfs.conf.d/nas.conf", "[nfsd]\nvers3=y\n[mountd]\nport=20048\n")
        # enabled, as an admin would, so that it serves again after a restart
        self.ssh(["systemctl", "enable", "nfs-server"])
        self.ssh(["systemctl", "restart", "nfs-server"])
        self.ssh(["exportfs", "-ra"])
        self.setup["filesystem"] = "xfs"
        self.setup["export_options"] = options

    def drop_cache(self) -> None:
        """The NAS's restart without the reboot: knfsd stopped, XFS unmounted (its pages leave the page
        cache), dentries and inodes dropped, XFS mounted and knfsd started again."""
        self.ssh(["systemctl", "stop", "nfs-server"])
        self.ssh(["umount", NAS_DIR])
        self.ssh(["sysctl", "-q", "vm.drop_caches=3"])
        self.ssh(["mount", NAS_DIR])
        self.ssh(["systemctl", "start", "nfs-server"])
        self.wait_serving()

    def wait_serving(self, timeout: float = 300) -> None:
        """knfsd's start returns before it serves: wait for the export and both ports (nfsd, mountd)."""
        deadline = time.monotonic() + timeout
        while True:
            listening = self.ssh(["ss", "-Hltn"], timeout=30)
            exported = self.ssh(["exportfs"], timeout=30)
            if ":2049 " in listening and ":20048 " in listening and NAS_DIR in exported:
                return
            if time.monotonic() > deadline:
                raise StackError(f"{self.name}: the NFS export did not come back within {timeout:.0f} s")
            time.sleep(2)

    def write(self, path: str, text: str) -> None:
        assert self.vm is not None
        try:
            self.vm.ssh(["dd", f"of={path}", "status=none"], timeout=60, input_text=text)
        except ProcessError as exc:
            raise StackError(f"{self.name}: writing {path}: {exc.stderr.strip()}") from exc

    def compression(self) -> float | None:
        return None

    def flush(self) -> None:
        # knfsd keeps UNSTABLE writes no client committed in the page cache for up to 30 s
        # (vm.dirty_expire_centisecs): without this a phase's last 30 s would cost it nothing.
        self.ssh(["sync", "--file-system", NAS_DIR], timeout=600)

    def write_model(self, began: float | None = None) -> WriteModel | None:
        return None  # XFS writes in place: no records rewritten whole, no transaction groups

    def arcstats(self) -> dict[str, int]:
        return {}

    def lun_writes(self) -> iostat.Sizes:
        return {}


def make_stack(
    name: str,
    san: San,
    image: Path,
    key: Path,
    directory: Path,
    memory_mib: int,
    overrides: Overrides | None = None,
    tap: TapLink | None = None,
) -> Stack:
    """The stack called ``name`` (one of STACKS); ``overrides`` apply to arcvsa's; ``tap``, the
    appliance stacks' NFS path (None: qemu's user-mode forwards)."""
    kinds: dict[str, type[ApplianceStack]] = {
        "arcvsa": Arcvsa,
        "zfs-defaults": ZfsDefaults,
        "nas-xfs": NasXfs,
    }
    if name == "bare-lun":
        return Stack(san)
    if name == AB_STACK:
        return Arcvsa(san, image, key, directory / name, memory_mib, tap, overrides=overrides, name=name)
    if name not in kinds:
        raise StackError(f"no stack {name!r} (known: {', '.join(STACKS)})")
    if name == "arcvsa":  # with --ab the overrides are B's, and A runs as the product ships
        ab = overrides is not None and overrides.ab
        return Arcvsa(san, image, key, directory / name, memory_mib, tap, overrides=None if ab else overrides)
    return kinds[name](san, image, key, directory / name, memory_mib, tap)
