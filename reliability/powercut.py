"""Power cuts and NFS server restarts on the lab appliance, with writers that log what was acknowledged.

One appliance VM (qemu TCG) on one lab SAN for the whole run, two pools on two LUNs: ``tank`` with a
SLOG (the ssd-slog disk) and ``plain`` without; in each a stateless-linked dataset (sync=standard,
16K records) exported over NFSv3 to the host. Per pool two writers (reliability.writer): FILE_SYNC
writes, and UNSTABLE writes + COMMIT.

A power-cut cycle: the writers run, qemu is SIGKILLed at a moment drawn from the seeded RNG (either a
random time, or right after the guest reports that a transaction group started syncing on one of the
pools: a watcher in the guest polls /proc/spl/kstat/zfs/<pool>/txgs and writes a line to the serial
console, the host tails the console file), the VM boots again from its kept overlay (a rebooted
appliance), and every file is read back over NFS (nfs-cp) and checked against its writers' logs by the
rule in reliability.ledger. The logs are cumulative: every cycle re-checks the writes of all earlier
cycles too.

An NFS restart: with the writers running, ``systemctl restart`` of the NFS server (ganesha, then the
kernel server after switching to it through the api); the writers must resume within the NFS timeout
without an error, the export list must be unchanged, and every acknowledged write must be there.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lab import appliance_env
from lab import console as vmconsole
from lab.appliance_api import ApplianceApi
from lab.appliance_vm import ApplianceVm, VmConfig
from lab.boot_slot import boot_slot
from lab.san import San, make_luns
from lab.tap import TapLink
from process import ProcessError, run
from reliability.ledger import Ledger, Verdict, read_ledger, verify
from reliability.writer import Writer, WriterSpec, build, wait_acked

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / "build" / "image" / "latest.json"
LUN0, LUN1 = "/dev/disk/by-id/virtio-lun0", "/dev/disk/by-id/virtio-lun1"
SLOG = "/dev/disk/by-id/virtio-ssd-slog"
UNITS = {"ganesha": "nfs-ganesha", "knfsd": "nfs-server"}


@dataclass(frozen=True)
class PoolSpec:
    """A pool of one LUN (with or without the SLOG), its dataset and export."""

    name: str
    lun: str
    slog: bool

    @property
    def dataset(self) -> str:
        return f"{self.name}/rel"

    @property
    def path(self) -> str:
        return f"/{self.dataset}"


POOLS = (PoolSpec("tank", LUN0, True), PoolSpec("plain", LUN1, False))
MODES = ("sync", "unstable")

# Runs in the guest (python3 -c, argv: pool names): one console line per transaction group that starts
# syncing. Polls every 10 ms; the host sees the line in the serial console file a few ms later.
TXG_WATCHER = """
import os, sys, time
tty = os.open("/dev/ttyS0", os.O_WRONLY | os.O_NOCTTY)
seen = {}
while True:
    for pool in sys.argv[1:]:
        try:
            rows = open(f"/proc/spl/kstat/zfs/{pool}/txgs").read().splitlines()
        except OSError:
            continue
        for row in rows:
            f = row.split()
            if len(f) > 2 and f[0].isdigit() and f[2] == "S" and seen.get(pool) != f[0]:
                seen[pool] = f[0]
                os.write(tty, f"arcvsa-txg-syncing {pool} {f[0]}\\n".encode())
    time.sleep(0.01)
"""


class ApiClient:
    """The appliance's api as the admin (token from the lab's first-boot password)."""

    def __init__(self, vm: ApplianceVm) -> None:
        self.client = ApplianceApi(vm.config.host_ports["https"], vm.directory / "api.crt", timeout=900)
        self.password_file = vm.directory / "env" / "admin-password"
        self.token = ""

    def login(self) -> None:
        password = self.password_file.read_text(encoding="utf-8").strip()
        self.token = self.client.token("admin", password)

    def call(self, method: str, path: str, body: dict[str, Any] | None = None, expect: int = 200) -> Any:
        """The answer's body; RuntimeError unless its status is ``expect`` (logs in again once on 401)."""
        status, data = self.client.request(method, path, body, token=self.token)
        if status == 401:
            self.login()
            status, data = self.client.request(method, path, body, token=self.token)
        if status != expect:
            raise RuntimeError(f"{method} {path} answered {status} (expected {expect}): {data}")
        return data


@dataclass
class Options:
    """What a run does: cycles, restarts, seed, sizes, where it works and writes its JSON."""

    cycles: int
    restarts: list[str]
    seed: int
    directory: Path
    json_path: Path
    memory_mib: int = 2048
    lun_mib: int = 512
    keep: bool = False


@dataclass
class Run:
    """The figures of a run, kept as JSON (rewritten after every step)."""

    options: Options
    data: dict[str, Any] = field(default_factory=dict)

    def save(self) -> None:
        self.options.json_path.parent.mkdir(parents=True, exist_ok=True)
        self.options.json_path.write_text(
            json.dumps(self.data, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )


def say(text: str) -> None:
    """Progress on stdout, timestamped."""
    print(f"[{time.strftime('%H:%M:%S', time.gmtime())}] {text}", flush=True)


class Lab:
    """The SAN, the VM and its api for one run; boots, cuts the power, reboots."""

    def __init__(
        self, options: Options, tap: TapLink | None = None, image: tuple[Path, Path] | None = None
    ) -> None:
        self.options = options
        self.tap = tap  # the measured path over a tap link (lab.tap); else qemu's user-mode forwards
        self.dir = options.directory
        disk, key = image or image_and_key()  # another image and its lab key: an A/B's earlier side
        self.san = San(
            self.dir / "san", make_luns(self.dir / "san" / "luns", 2, options.lun_mib << 20), tied=True
        )
        iso, _ = appliance_env.prepare(self.dir / "vm" / "env", key)
        self.vm = ApplianceVm(
            VmConfig(
                disk,
                self.dir / "vm",
                self.san.socket,
                self.san.luns,
                key,
                ssd_size_bytes=1 << 30,
                memory_mib=options.memory_mib,
                cdrom=iso,
                tied=True,
                tap=tap,
            )
        )
        self.api = ApiClient(self.vm)
        self.early_panics: list[str] = []

    @property
    def client(self) -> str:
        """The host's address as the guest sees it on the measured path: an export's client list."""
        return self.vm.host_address

    def url(self, pool: PoolSpec, file: str = "") -> str:
        """libnfs URL of the export (or a file in it) through the VM's forwards or its tap link."""
        return self.vm.nfs_url(f"{pool.path}/{file}" if file else pool.path)

    def api_url(self) -> str:
        """The api's base URL on the measured path."""
        address, port = self.vm.endpoint("https")
        return f"https://{address}:{port}"

    def start(self, timeout: float = 900) -> float:
        """Start qemu and wait for the api and SSH; returns seconds to api health.

        A guest kernel panic before the ZFS module loaded (seen under TCG: an int3 Oops while the kernel
        patches its own text during early boot) is the emulator's, not the appliance's: qemu is killed
        and started again, at most twice, and the panic is recorded. A panic after ZFS loaded fails.
        """
        for _ in range(vmconsole.EARLY_PANIC_RETRIES + 1):
            try:
                with boot_slot():
                    self.vm.start()
                    seconds, _ = self.api.client.wait_health(
                        self.vm.started_at, timeout, self.vm.check, self.vm.console
                    )
                self.api.login()
                self.wait_ssh()
                if self.tap is not None:  # its address is runtime-only: given again after every boot
                    self.vm.open_tap()
                return seconds
            except vmconsole.GuestPanicked as err:
                if not vmconsole.panicked_early(self.vm.console):
                    raise
                oops = [line for line in err.lines.splitlines() if "Oops" in line or "RIP:" in line]
                self.early_panics.append(" | ".join(oops[:2]))
                say(f"guest kernel panic in early boot (before ZFS loaded): {oops[:2]}; starting qemu again")
                self.power_cut()
            except vmconsole.ConsoleError:
                if self.vm.console.is_file() and self.vm.console.stat().st_size:
                    raise  # the guest had started: its end is the appliance's
                # qemu itself ended before the guest printed a line: a host port its forwards bind
                # taken meanwhile by another process's connection is the lab's, and passes
                why = vmconsole.tail(self.vm.log, 3).replace("\n", " | ")
                self.early_panics.append(f"qemu ended before the guest printed anything: {why}")
                say(f"qemu ended before the guest printed anything ({why}); starting it again in 5 s")
                self.power_cut()
                time.sleep(5)
        raise RuntimeError(f"the guest did not come up in three starts: {self.early_panics}")

    def wait_ssh(self) -> None:
        """SSH up (the txg watcher and the restarts go through it); when it is not, the firewall as the
        api shows it goes into the error: port 22 closed and sshd not running look alike from here."""
        try:
            self.vm.wait_ssh(timeout=300)
        except ProcessError as err:
            shown = self.api.call("GET", "/api/settings/firewall")
            raise RuntimeError(f"{err}\nthe api's firewall view: {json.dumps(shown)}") from err

    def power_cut(self) -> float:
        """SIGKILL qemu: the guest gets no chance to flush anything. Returns when the signal went (monotonic)."""
        daemon = self.vm.daemon
        signalled = time.monotonic()
        if daemon is not None and daemon.alive():
            os.kill(daemon.pid, signal.SIGKILL)
            signalled = time.monotonic()
            daemon.wait_exit(30)
        self.vm.kill()
        return signalled

    def wait_exports(self, timeout: float = 600) -> list[dict[str, Any]]:
        """Until every export is active and answers an NFSv3 listing from the host."""
        deadline = time.monotonic() + timeout
        while True:
            exports = list(self.api.call("GET", "/api/storage/exports"))
            if exports and all(e["active"] for e in exports):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"exports not active within {timeout:.0f} s: {exports}")
            time.sleep(3)
        for pool in POOLS:
            while True:
                try:
                    run(["nfs-ls", self.url(pool)], timeout=60)
                    break
                except ProcessError as err:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"{pool.path} does not answer over NFSv3: {err}") from err
                    time.sleep(3)
        return exports

    def pool_states(self) -> dict[str, str]:
        return {p["name"]: p["state"] for p in self.api.call("GET", "/api/storage/pools")}

    def read_back(self, pool: PoolSpec, file: str) -> bytes:
        """The file's bytes over NFSv3 (libnfs's nfs-cp into a temporary host file)."""
        target = self.dir / "readback.bin"
        target.unlink(missing_ok=True)
        try:
            run(["nfs-cp", self.url(pool, file), str(target)], timeout=600)
            return target.read_bytes()
        finally:
            target.unlink(missing_ok=True)

    def stop(self) -> None:
        try:
            if self.vm.daemon is not None:
                self.vm.shutdown(timeout=120)
        finally:
            self.san.stop()


def image_and_key() -> tuple[Path, Path]:
    """The last image build's disk and lab key (ARCVSA_LAB_IMAGE/ARCVSA_LAB_KEY override them)."""
    override = os.environ.get("ARCVSA_LAB_IMAGE"), os.environ.get("ARCVSA_LAB_KEY")
    if override[0] and override[1]:
        return Path(override[0]), Path(override[1])
    if not MANIFEST.is_file():
        raise RuntimeError(f"no image build ({MANIFEST}): run `make image`")
    data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    image, key = Path(data["image"]), Path(data["lab_key"])
    if not image.is_file() or not key.is_file():
        raise RuntimeError(f"image {image} or key {key} missing: run `make image`")
    return image, key


def make_storage(lab: Lab, memory_mib: int) -> int:
    """Both pools, their sync=standard datasets and NFSv3 exports to the host, through the api, and the
    profile's module parameters as the tuning page applies them. Returns the txg interval in effect."""
    for pool in POOLS:
        spec: dict[str, Any] = {"name": pool.name, "layout": "stripe", "data": [pool.lun]}
        if pool.slog:
            spec["log"] = [SLOG]
        made = lab.api.call("POST", "/api/storage/pools", spec, expect=201)
        roles = sorted({v["role"] for v in made["vdevs"]})
        ds = lab.api.call(
            "POST", "/api/storage/datasets", {"name": pool.dataset, "profile": "stateless-linked"}, 201
        )
        props = ds["properties"]
        if props["sync"] != "standard":
            raise RuntimeError(f"{pool.dataset}: sync={props['sync']}, the test needs sync=standard")
        body = {"dataset": pool.dataset, "protocol": "3", "clients": [lab.client], "insecure_ports": True}
        export = lab.api.call("POST", "/api/storage/exports", body, expect=201)
        say(
            f"pool {pool.name} ({'+'.join(roles)}), {pool.dataset} sync={props['sync']} "
            f"recordsize={props['recordsize']}, export {export['export_id']}"
        )
    sizing = {
        "pool_type": "stateless-linked", "desktops": 32, "desktop_gib": 2, "golden_gib": 1,
        "ram_gib": memory_mib / 1024, "slog_ssd_gib": 2, "l2arc_ssd_gib": 0,
    }  # fmt: skip
    module = lab.api.call("POST", "/api/tuning/recommendation", sizing)["module"]
    lab.api.call("PUT", "/api/tuning/parameters", {"params": module})
    say(f"module parameters of the profile: {module}")
    return int(module["zfs_txg_timeout"])


def writer_specs(
    lab: Lab, seed: int, pools: tuple[PoolSpec, ...] = POOLS
) -> list[tuple[PoolSpec, WriterSpec]]:
    """Two writers per pool (FILE_SYNC, UNSTABLE+COMMIT), each on its own file with its own log."""
    specs = []
    for index, (pool, mode) in enumerate((p, m) for p in pools for m in MODES):
        name = f"{pool.name}-{mode}"
        log = lab.dir / "logs" / f"{name}.log"
        specs.append((pool, WriterSpec(name, lab.url(pool), f"{mode}.dat", mode, log, seed * 16 + index)))
    return specs


def start_writers(lab: Lab, specs: list[tuple[PoolSpec, WriterSpec]]) -> list[Writer]:
    writers = []
    for _, spec in specs:
        start = read_ledger(spec.log).next_seq()
        writers.append(Writer(spec, start, lab.dir / "logs" / f"{spec.name}.stderr"))
    return writers


def check_all(lab: Lab, specs: list[tuple[PoolSpec, WriterSpec]]) -> dict[str, Verdict]:
    """Every writer's file read back and checked against its log."""
    return {
        spec.name: verify(read_ledger(spec.log), lab.read_back(pool, spec.file), spec.content)
        for pool, spec in specs
    }


class ConsoleTail:
    """New lines of the VM's serial console file, from now on."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = path.stat().st_size if path.exists() else 0
        self.rest = b""
        self.seen_at = 0.0

    def wait_for(self, prefix: bytes, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.path.open("rb") as handle:
                handle.seek(self.offset)
                chunk = handle.read()
            self.offset += len(chunk)
            lines = (self.rest + chunk).split(b"\n")
            self.rest = lines.pop()
            for line in lines:
                if prefix in line:
                    self.seen_at = time.monotonic()
                    return line[line.index(prefix) :].strip()
            time.sleep(0.005)
        return None


def power_cut_cycle(
    lab: Lab, rng: random.Random, cycle: int, specs: list[tuple[PoolSpec, WriterSpec]], txg_s: int
) -> dict[str, Any]:
    """One cycle: writers, a kill at the drawn moment (within two txg intervals, or right after the
    next txg sync starts), reboot, every acknowledged write checked."""
    kill_mode = "txg-sync" if cycle % 2 else "random"
    before = {spec.name: len(read_ledger(spec.log).acked) for _, spec in specs}
    watcher: subprocess.Popen[bytes] | None = None
    if kill_mode == "txg-sync":
        argv = lab.vm.ssh_argv(["python3", "-c", TXG_WATCHER, *(p.name for p in POOLS)])
        watcher = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    writers = start_writers(lab, specs)
    tail: ConsoleTail | None = None
    result: dict[str, Any] = {"cycle": cycle, "kill_mode": kill_mode}
    try:
        wait_acked(writers, before, timeout=120)
        # a random moment within two txg intervals; before a txg-sync kill, a jitter of a few seconds
        # (the wait for the next sync, up to one interval, does the rest)
        delay = rng.uniform(0.0, 2.0 * txg_s if kill_mode == "random" else 5.0)
        result["kill_delay_s"] = round(delay, 2)
        time.sleep(delay)
        if kill_mode == "txg-sync":
            target = rng.choice(POOLS).name
            tail = ConsoleTail(lab.vm.console)
            line = tail.wait_for(f"arcvsa-txg-syncing {target} ".encode(), timeout=txg_s + 30)
            result["txg_pool"] = target
            result["txg"] = line.decode().split()[-1] if line else None
        signalled = lab.power_cut()
        killed_at = time.time()
        if tail is not None and tail.seen_at:
            # Host side, from the console line to SIGKILL (the guest's 10 ms poll comes on top).
            result["kill_after_sync_seen_ms"] = round((signalled - tail.seen_at) * 1000, 1)
    finally:
        for writer in writers:
            writer.stop()
        if watcher is not None:
            watcher.kill()
            watcher.wait(timeout=30)
    ledgers = {spec.name: read_ledger(spec.log) for _, spec in specs}
    result["acked_this_cycle"] = {n: len(ledger.acked) - before[n] for n, ledger in ledgers.items()}
    result["acked_after_kill"] = sum(
        1 for ledger in ledgers.values() for w in ledger.acked.values() if w.acked_ns > killed_at * 1e9 + 1e9
    )
    lab.vm.config.fresh = False
    # A reboot takes 70-120 s under TCG: an api that is not back in 5 min is a failure of the cycle
    # (seen once: an empty secrets.key after the cut kept the api from starting).
    result["boot_to_api_s"] = round(lab.start(timeout=300), 1)
    lab.wait_exports()
    result["pool_states"] = lab.pool_states()
    verdicts = check_all(lab, specs)
    result["verdicts"] = {n: v.model_dump() for n, v in verdicts.items()}
    result["lost"] = sum(len(v.lost) for v in verdicts.values())
    say(
        f"cycle {cycle} ({kill_mode}"
        + (f", txg {result.get('txg')} of {result.get('txg_pool')}" if kill_mode == "txg-sync" else "")
        + f", kill {result['kill_delay_s']} s in): acked {result['acked_this_cycle']}, "
        f"boot {result['boot_to_api_s']} s, pools {result['pool_states']}, lost {result['lost']}"
    )
    return result


def nfs_restart(lab: Lab, backend: str, specs: list[tuple[PoolSpec, WriterSpec]]) -> dict[str, Any]:
    """Restart the NFS server under load: writers resume in time, no error, exports unchanged, no loss."""
    if lab.api.call("GET", "/api/storage/nfs")["backend"] != backend:
        lab.api.call("PUT", "/api/storage/nfs/backend", {"backend": backend})
        lab.wait_exports()
    keys = ("export_id", "path", "protocol", "clients", "backend", "active")
    listed_before = [{k: e.get(k) for k in keys} for e in lab.api.call("GET", "/api/storage/exports")]
    before = {spec.name: len(read_ledger(spec.log).acked) for _, spec in specs}
    resent_before = {spec.name: read_ledger(spec.log).resent for _, spec in specs}
    writers = start_writers(lab, specs)
    result: dict[str, Any] = {"backend": backend, "unit": UNITS[backend]}
    try:
        wait_acked(writers, before, timeout=120)
        time.sleep(3)
        started = time.time()
        lab.vm.ssh(["systemctl", "restart", UNITS[backend]], timeout=300)
        restarted = time.time()
        result["restart_command_s"] = round(restarted - started, 1)
        after = {spec.name: len(read_ledger(spec.log).acked) for _, spec in specs}
        wait_acked(writers, after, timeout=120)
        time.sleep(5)
        result["writers_alive"] = all(w.alive() for w in writers)
    finally:
        for writer in writers:
            writer.stop()
    ledgers = {spec.name: read_ledger(spec.log) for _, spec in specs}
    result["errors"] = [f"{n}: {e}" for n, ledger in ledgers.items() for e in ledger.errors]
    result["resent_writes"] = {n: ledger.resent - resent_before[n] for n, ledger in ledgers.items()}
    result["stall_s"] = {n: round(max_gap(ledger, started) / 1e9, 2) for n, ledger in ledgers.items()}
    # From the moment systemctl returned (the new server is up) to the writer's next acknowledgement.
    result["resume_after_restart_s"] = {
        n: round(first_after(ledger, restarted) - restarted, 2) for n, ledger in ledgers.items()
    }
    result["acked"] = {n: len(ledger.acked) - before[n] for n, ledger in ledgers.items()}
    listed_after = [{k: e.get(k) for k in keys} for e in lab.wait_exports()]
    result["exports_unchanged"] = listed_after == listed_before
    verdicts = check_all(lab, specs)
    result["verdicts"] = {n: v.model_dump() for n, v in verdicts.items()}
    result["lost"] = sum(len(v.lost) for v in verdicts.values())
    limit = 60.0
    result["within_timeout"] = all(v <= limit for v in result["resume_after_restart_s"].values())
    result["survived"] = bool(
        result["writers_alive"]
        and not result["errors"]
        and result["exports_unchanged"]
        and not result["lost"]
        and result["within_timeout"]
    )
    say(
        f"{backend} restart ({result['restart_command_s']} s): writers resumed after "
        f"{result['resume_after_restart_s']} s, longest stall {result['stall_s']} s, re-sent "
        f"{result['resent_writes']}, errors {len(result['errors'])}, exports unchanged "
        f"{result['exports_unchanged']}, lost {result['lost']}"
    )
    return result


def max_gap(ledger: Ledger, around: float) -> int:
    """The longest time (ns) between two acknowledgements from 5 s before ``around`` on."""
    times = [t for t in ledger.acked_times() if t >= (around - 5) * 1e9]
    return max((b - a for a, b in itertools.pairwise(times)), default=0)


def first_after(ledger: Ledger, moment: float) -> float:
    """The first acknowledgement (s, epoch) after ``moment``; inf when none."""
    later = [t for t in ledger.acked_times() if t > moment * 1e9]
    return min(later) / 1e9 if later else float("inf")


def execute(options: Options, cases: Sequence[Callable[[Lab, Run], None]] = ()) -> dict[str, Any]:
    """The whole run: boot, storage, power-cut cycles, restarts, then ``cases`` on the same appliance
    (reliability.reconcilecut). Returns the figures (also as JSON)."""
    build()
    rng = random.Random(options.seed)  # noqa: S311 - reproducible kill moments, not secrets
    record = Run(options, {"seed": options.seed, "cycles": [], "restarts": []})
    say(f"seed {options.seed}; {options.cycles} power-cut cycles, restarts {options.restarts}")
    lab = Lab(options)
    try:
        lab.san.start()
        seconds = lab.start()
        say(f"first boot to api health: {seconds:.1f} s ({options.memory_mib} MiB, TCG)")
        txg_s = make_storage(lab, options.memory_mib)
        record.data["zfs_txg_timeout"] = txg_s
        lab.wait_exports()
        specs = writer_specs(lab, options.seed)
        record.data["writers"] = {s.name: {"pool": p.name, "slog": p.slog, "mode": s.mode} for p, s in specs}
        for cycle in range(1, options.cycles + 1):
            started = time.monotonic()
            result = power_cut_cycle(lab, rng, cycle, specs, txg_s)
            result["seconds"] = round(time.monotonic() - started, 1)
            record.data["cycles"].append(result)
            record.save()
        for backend in options.restarts:
            tank_specs = [(p, s) for p, s in specs if p.slog]
            record.data["restarts"].append(nfs_restart(lab, backend, tank_specs))
            record.save()
        if "knfsd" in options.restarts:
            lab.api.call("PUT", "/api/storage/nfs/backend", {"backend": "ganesha"})
        for case in cases:
            case(lab, record)
    finally:
        record.data["early_boot_panics"] = lab.early_panics
        lab.stop()
        record.save()
    return record.data
