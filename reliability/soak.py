"""``python -m reliability.soak``: simulated desktops over NFS for half an hour on the lab appliance.

One appliance VM (qemu TCG) on the lab SAN: a pool striped over two LUNs with the SLOG, a
stateless-linked dataset (sync=standard) exported over NFSv3 to the host, the ARC capped through the
api's tuning (as an admin pins it). Then, all at once for ``--seconds``:

- fio (bench's toolchain and job files, the ``nfs`` engine: libnfs, a userspace client as ESXi's) runs
  one reader of the shared replica and one writer of its own delta per desktop, at the steady-state mix
  (Poisson arrivals, 20 % reads, 4-8 KiB writes on hot spots) and logs every I/O's latency;
- one FILE_SYNC writer (tools/nfswriter, as ESXi writes) logs every acknowledged write for the check;
- wrk polls the api as admins' dashboards do (reliability/wrk_api.lua), with a bearer token;
- the guest's memory, ARC, CPU and largest processes are sampled over SSH, with the host's CPU and the
  LUNs' counters (QMP) beside them.

fio, the writer and wrk reach the VM over a tap link (lab.tap), as over a NIC; ``--network user`` (or a
host that cannot make a tap device) sends them through qemu's user-mode forwards, whose TCP stack in
qemu's main loop took about two thirds of the api's p99 under this load. The table names the path.

Figures: I/O errors, read and write latency per window and their drift (last third over first third,
after a warm-up), memory outside the ARC and its growth, the api's p99 and errors (and how often its
CPU quota throttled it), the sync writer's writes verified; and, to tell a drift's cause, the guest's
and host's CPU, the SAN's writes and the pool's allocation and fragmentation in the first and last
third. Prints a table, writes JSON, exits 1 on any failure (reliability.steadiness.verdict).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import job, toolchain
from bench.workload import Phase
from lab import console as vmconsole
from lab import tap
from process import ProcessError, run
from reliability import steadiness
from reliability.ledger import read_ledger, verify
from reliability.powercut import LUN0, LUN1, SLOG, Lab, Options, PoolSpec, say
from reliability.table import table
from reliability.writer import Writer, WriterSpec, build

REPO = Path(__file__).resolve().parents[1]
WRK_SCRIPT = Path(__file__).resolve().parent / "wrk_api.lua"
# The control plane's units whose CPU the soak reports: the api, and the state poller its reads answer
# from (unit, JSON key).
API_CGROUPS = {"arcvsa-api.service": "api_quota", "arcvsa-metrics.service": "poller_quota"}
# What a dashboard polls: health, pools (zpool under the hood), I/O summary, alerts, exports, the appliance.
API_PATHS = (
    "/api/health",
    "/api/storage/pools",
    "/api/storage/metrics/summary",
    "/api/alerts",
    "/api/storage/exports",
    "/api/appliance",
)
GUEST_FILES = ("/proc/meminfo", "/proc/spl/kstat/zfs/arcstats", "/proc/net/tcp", "/proc/net/tcp6")
NFS_PORT = 2049
READ_PCT = 20  # of a desktop's I/Os (DESIGN.md: 25/75 to 10/90 in steady state)
POOL = PoolSpec("tank", LUN0, True)  # its dataset is tank/rel, as the power-cut runs'


@dataclass
class SoakOptions:
    desktops: int
    seconds: int
    iops_per_desktop: int
    directory: Path
    json_path: Path
    api_connections: int = 2  # per path
    api_think_ms: int = 500
    sync_writes_per_s: int = 10
    api_baseline_seconds: int = 60
    memory_mib: int = 2048
    arc_max_mib: int = 768
    lun_mib: int = 2048
    replica_mib: int = 256
    delta_mib: int = 16
    sample_seconds: float = 30.0
    keep: bool = False
    network: tap.Network = "tap"  # the path of the desktops' NFS and wrk's requests

    @property
    def warmup_s(self) -> float:
        return min(120.0, self.seconds / 5)

    @property
    def window_s(self) -> float:
        return max(10.0, self.seconds / 30)


def samples(directory: Path, count: int = 4) -> list[Path]:
    """1 MiB patterns for the layout writes: half random, half zeros (compressible as OS data is)."""
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(count):
        path = directory / f"sample-{i}.bin"
        path.write_bytes(os.urandom(1 << 19) + bytes(1 << 19))
        out.append(path)
    return out


def make_storage(lab: Lab, options: SoakOptions) -> dict[str, Any]:
    """The capped ARC, the pool over both LUNs with the SLOG, the dataset and its export, via the api."""
    arc_max = options.arc_max_mib << 20
    lab.api.call("PUT", "/api/tuning/parameters", {"params": {"zfs_arc_max": arc_max}})
    spec = {"name": POOL.name, "layout": "stripe", "data": [LUN0, LUN1], "log": [SLOG]}
    lab.api.call("POST", "/api/storage/pools", spec, expect=201)
    ds = lab.api.call(
        "POST", "/api/storage/datasets", {"name": POOL.dataset, "profile": "stateless-linked"}, 201
    )
    body = {"dataset": POOL.dataset, "protocol": "3", "clients": [lab.client], "insecure_ports": True}
    lab.api.call("POST", "/api/storage/exports", body, expect=201)
    props = ds["properties"]
    say(
        f"pool {POOL.name} (2 LUNs + SLOG), {POOL.dataset} sync={props['sync']}, ARC max {options.arc_max_mib} MiB"
    )
    return {"sync": props["sync"], "recordsize": props["recordsize"], "compression": props["compression"]}


class MemorySampler(threading.Thread):
    """The guest's /proc/meminfo, arcstats, /proc/stat and ps every ``every`` seconds until stopped, with
    the host's /proc/stat and ps (the lab's qemu, fio and wrk share its CPUs) and the LUNs' counters."""

    def __init__(self, lab: Lab, every: float) -> None:
        super().__init__(daemon=True)
        self.lab, self.every = lab, every
        self.ps = shutil.which("ps") or "/bin/ps"
        self.samples: list[dict[str, Any]] = []
        self.failures: list[str] = []
        self.started_at = time.monotonic()
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.is_set():
            try:
                # One ssh for the files (each session costs the guest a key exchange under emulation).
                keyed = self.lab.vm.ssh(["cat", *GUEST_FILES], timeout=60)
                ps = self.lab.vm.ssh(["ps", "-eo", "rss=,comm="], timeout=60)
                stat = self.lab.vm.ssh(["cat", "/proc/stat"], timeout=60)
                times = self.lab.vm.ssh(["ps", "-eo", "times=,comm="], timeout=60)
                at = time.monotonic() - self.started_at
                sample = steadiness.memory_sample(at, keyed, ps, steadiness.established(keyed, NFS_PORT))
                sample["cpu"] = steadiness.cpu_sample(stat, times)
                host_times = run([self.ps, "-eo", "times=,comm="], timeout=60).stdout
                sample["host_cpu"] = steadiness.cpu_sample(Path("/proc/stat").read_text(), host_times)
                sample["san"] = steadiness.san_sample(self.lab.vm.blockstats())
                self.samples.append(sample)
            except (
                ProcessError,
                OSError,
                KeyError,
                ValueError,
            ) as exc:  # a missed sample is recorded, the soak goes on
                self.failures.append(str(exc)[:200])
            self.halt.wait(self.every)


class GuestWatch(threading.Thread):
    """Reads the VM's console every ``every`` s until stopped; sets ``dead`` (and keeps why) when qemu
    ended or the guest kernel panicked, so fio stops then and not at its timeout 15 min later."""

    def __init__(self, lab: Lab, every: float = 5.0) -> None:
        super().__init__(daemon=True)
        self.lab, self.every = lab, every
        self.dead = threading.Event()
        self.halt = threading.Event()
        self.why = ""

    def run(self) -> None:
        while not self.halt.wait(self.every):
            try:
                self.lab.vm.check()
            except vmconsole.ConsoleError as exc:
                self.why = str(exc)
                self.dead.set()
                return


class ApiLoad:
    """wrk on every api path at once through the VM's https forward, one wrk per path so each path's
    percentiles are its own; the token goes in the environment, never in an argv."""

    def __init__(self, lab: Lab, options: SoakOptions, seconds: int, tag: str) -> None:
        wrk = shutil.which("wrk")
        if wrk is None:
            raise RuntimeError("wrk is not installed: make setup")
        url = lab.api_url()
        self.outputs = {path: options.directory / f"wrk-{tag}-{i}.out" for i, path in enumerate(API_PATHS)}
        self.procs: list[subprocess.Popen[bytes]] = []
        for path, output in self.outputs.items():
            argv = [wrk, "-t1", f"-c{options.api_connections}", f"-d{seconds}s", "--timeout", "10s"]
            env = {
                **os.environ,
                "ARCVSA_TOKEN": lab.api.token,
                "ARCVSA_THINK_MS": str(options.api_think_ms),
                "ARCVSA_PATHS": path,
            }
            with output.open("wb") as sink:
                self.procs.append(
                    subprocess.Popen(
                        [*argv, "-s", str(WRK_SCRIPT), url],
                        stdin=subprocess.DEVNULL,
                        stdout=sink,
                        stderr=subprocess.STDOUT,
                        env=env,
                    )
                )

    def stop(self) -> None:
        """End every wrk now (SIGINT: wrk stops and prints what it measured so far)."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)

    def figures(self) -> dict[str, Any] | str:
        """Wait for every wrk; the figures (steadiness.api_figures), or what went wrong."""
        for proc in self.procs:
            try:
                proc.wait(timeout=300)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        try:
            per_path = {
                path: steadiness.parse_wrk(out.read_text(encoding="utf-8", errors="replace"))
                for path, out in self.outputs.items()
            }
        except ValueError as exc:
            return str(exc)
        return steadiness.api_figures(per_path)


def soak_job(target: job.Target, options: SoakOptions, patterns: list[Path], logs: Path) -> str:
    """bench's steady-state mix for every desktop, with a latency log line per I/O."""
    phase = Phase(
        name="soak",
        kind="mix",
        why="desktops at a knowledge worker's steady rate for the soak's length",
        seconds=options.seconds,
        iops_per_desktop=options.iops_per_desktop,
        read_pct=READ_PCT,
        read_bs="16k/100",
        write_bs="4k/50:8k/50",
        write_spread="zipf:1.1",
        delta_mib=options.delta_mib,
    )
    text = job.mix(target, phase, options.desktops, options.replica_mib << 20, patterns)
    # No log_avg_msec: every I/O gets its own line (time ms, latency ns, direction, ...).
    return text.replace("[global]\n", f"[global]\nwrite_lat_log={logs / 'soak'}\ndisable_slat=1\n", 1)


def fio_file(directory: Path, name: str, text: str) -> Path:
    path = directory / "jobs" / f"{name}.fio"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def execute(options: SoakOptions) -> dict[str, Any]:
    """Boot, storage, layout, then the soak; the figures (also written as JSON)."""
    chain = toolchain.ensure(REPO / "build" / "bench" / "fio-root")
    build()
    link, network = tap.measured_path(options.network, say)
    lab = Lab(
        Options(0, [], 0, options.directory, options.json_path, options.memory_mib, options.lun_mib), link
    )
    figures: dict[str, Any] = {
        "desktops": options.desktops,
        "seconds": options.seconds,
        "iops_per_desktop": options.iops_per_desktop,
        # What fio runs: each job at whole I/Os per second (bench.job.poisson_rate).
        "per_desktop_run": {
            "reads_per_s": max(1, round(options.iops_per_desktop * READ_PCT / 100)),
            "writes_per_s": max(1, round(options.iops_per_desktop * (100 - READ_PCT) / 100)),
        },
        "api_load": {
            "connections_per_path": options.api_connections,
            "think_ms": options.api_think_ms,
            "paths": list(API_PATHS),
        },
        "vm_memory_mib": options.memory_mib,
        "arc_max_mib": options.arc_max_mib,
        "network": network,
    }
    try:
        lab.san.start()
        figures["boot_to_api_s"] = round(lab.start(), 1)
        figures["dataset"] = make_storage(lab, options)
        target = job.Target("nfs", lab.url(POOL))
        figures["nfs_writable_after_s"] = round(
            chain.wait_writable(lab.url(POOL), options.directory / "probe", timeout=600), 1
        )
        patterns = samples(options.directory / "patterns")
        replica = job.deltas_like(target, 1, 0, options.replica_mib << 20, patterns, lambda _: job.REPLICA)
        chain.run_fio(fio_file(options.directory, "replica", replica), timeout=3600)
        layout = job.deltas(
            target, options.desktops, options.replica_mib << 20, options.delta_mib << 20, patterns
        )
        chain.run_fio(fio_file(options.directory, "deltas", layout), timeout=3600)
        say(f"laid out the replica ({options.replica_mib} MiB) and {options.desktops} deltas")
        # The same api load on the idle appliance first: the soak's api figures beside its own baseline.
        figures["api_idle"] = ApiLoad(lab, options, options.api_baseline_seconds, "idle").figures()
        figures.update(soak(lab, chain, target, options, patterns))
        pools = lab.api.call("GET", "/api/storage/pools")
        figures["pool_state"] = next(p["state"] for p in pools if p["name"] == POOL.name)
        figures["alerts_after"] = [a["key"] for a in lab.api.call("GET", "/api/alerts")]
    except BaseException:
        say(f"kept {options.directory} for a look at what failed")
        raise
    else:
        if not options.keep:
            shutil.rmtree(options.directory, ignore_errors=True)  # LUN files, VM disks, latency logs
    finally:
        try:
            lab.stop()
        finally:
            if link is not None:
                tap.close_link(link)
    return figures


def soak(
    lab: Lab, chain: toolchain.Toolchain, target: job.Target, options: SoakOptions, patterns: list[Path]
) -> dict[str, Any]:
    """fio, the sync writer, wrk and the memory sampler side by side for the soak's length."""
    logs = options.directory / "latency"
    logs.mkdir(parents=True, exist_ok=True)
    jobfile = fio_file(options.directory, "soak", soak_job(target, options, patterns, logs))
    log = options.directory / "logs" / "sync.log"
    spec = WriterSpec("soak-sync", lab.url(POOL), "sync.dat", "sync", log, 1, options.sync_writes_per_s)
    out: dict[str, Any] = {}
    sampler = MemorySampler(lab, options.sample_seconds)
    sampler.start()
    watch = GuestWatch(lab)
    watch.start()
    writer = Writer(spec, 1, options.directory / "logs" / "sync.stderr")
    wrks = ApiLoad(lab, options, options.seconds, "soak")
    say(f"soak: {options.desktops} desktops x {options.iops_per_desktop} IOPS for {options.seconds} s")
    out["pool_space"] = {"start": space(lab)}
    quota_start, started = {leaf: api_cpu_stat(lab, leaf) for leaf in API_CGROUPS}, time.monotonic()
    try:
        result = chain.run_fio(jobfile, timeout=options.seconds + 900, abort=watch.dead)
        out["io_errors"] = sum(int(j.get("error", 0)) for j in result.get("jobs", []))
        out["fio_ios"] = {d: sum(int(j[d]["total_ios"]) for j in result["jobs"]) for d in ("read", "write")}
    except toolchain.FioError as exc:
        out["fio_error"] = str(exc)[:2000]
    finally:
        watch.halt.set()
        if watch.dead.is_set():
            out["guest_dead"] = watch.why[:2000]
            wrks.stop()
        writer.stop()
        sampler.halt.set()
        api = wrks.figures()
        sampler.join(timeout=120)
    out["api" if isinstance(api, dict) else "api_error"] = api
    console = lab.vm.console
    if console.is_file():  # a soak once hung 15 min on fio after the guest's kernel had panicked
        out["guest_panic"] = vmconsole.panic(vmconsole.text(console))
    out["pool_space"]["end"] = space(lab)
    for leaf, key in API_CGROUPS.items():
        end, seconds = api_cpu_stat(lab, leaf), time.monotonic() - started
        if quota_start[leaf] and end:
            out[key] = steadiness.quota_use(quota_start[leaf], end, seconds)
    out["sync_writer"] = sync_verdict(lab, spec, options.sync_writes_per_s)
    out["memory_samples"] = sampler.samples
    out["memory_sample_failures"] = sampler.failures
    out["memory"] = steadiness.memory_trend(sampler.samples, options.warmup_s)
    out["guest_cpu"] = steadiness.cpu_use(sampler.samples, options.warmup_s)
    out["host_cpu"] = steadiness.cpu_use(sampler.samples, options.warmup_s, key="host_cpu")
    out["thirds"] = steadiness.thirds(sampler.samples, options.warmup_s, options.seconds)
    lat = steadiness.read_lat_logs(sorted(logs.glob("soak_lat.*.log")))
    out["latency"] = {}
    out["drift"] = {}
    for direction, points in lat.items():
        if not points:
            continue
        ms = [p[1] for p in points]
        out["latency"][direction] = {
            "ios": len(ms),
            "p50_ms": round(steadiness.percentile(ms, 50), 2),
            "p99_ms": round(steadiness.percentile(ms, 99), 2),
            "windows": [w.model_dump() for w in steadiness.windows(points, options.window_s)],
        }
        out["drift"][direction] = steadiness.drift(points, options.warmup_s, options.seconds)
    return out


def space(lab: Lab) -> dict[str, int] | str:
    """The pool's size, allocation and free-space fragmentation (COW churn fragments it), or why not."""
    argv = ["zpool", "list", "-Hp", "-o", "size,allocated,fragmentation,capacity", POOL.name]
    try:
        return steadiness.pool_space(lab.vm.ssh(argv, timeout=120))
    except (ProcessError, ValueError) as exc:
        return str(exc)[:200]


def api_cpu_stat(lab: Lab, unit: str) -> str:
    """``cpu.stat`` of a control-plane unit's cgroup (its CPU and how often its quota throttled it), or ""
    if unreadable."""
    try:
        show = ["systemctl", "show", "-p", "ControlGroup", "--value", unit]
        group = lab.vm.ssh(show, timeout=60).strip()
        return lab.vm.ssh(["cat", f"/sys/fs/cgroup{group}/cpu.stat"], timeout=60) if group else ""
    except ProcessError:
        return ""


def sync_verdict(lab: Lab, spec: WriterSpec, writes_per_s: int) -> dict[str, Any]:
    """The FILE_SYNC writer's acknowledged writes checked against the file read back over NFS.

    The read-back's mount is retried for two minutes (a soak can leave the server slow to answer);
    if it never succeeds the writes count as unverified, with ganesha's state, and the soak's other
    figures are kept.
    """
    ledger = read_ledger(spec.log)
    found: dict[str, Any] = {
        "acked": len(ledger.acked),
        "errors": ledger.errors,
        "writes_per_s": writes_per_s,
    }
    deadline = time.monotonic() + 120
    while True:
        try:
            found["lost"] = len(verify(ledger, lab.read_back(POOL, spec.file), spec.content).lost)
            return found
        except ProcessError as err:
            if time.monotonic() > deadline:
                found["read_back_error"] = str(err)[:1000]
                found["ganesha"] = ganesha_state(lab)
                return found
            time.sleep(10)


def ganesha_state(lab: Lab) -> str:
    """nfs-ganesha's unit state and last journal lines, for a read-back that failed."""
    try:
        shown = lab.vm.ssh(
            ["systemctl", "show", "nfs-ganesha", "-p", "ActiveState,MainPID,NRestarts"], timeout=60
        )
        tail = lab.vm.ssh(["journalctl", "-u", "nfs-ganesha", "-n", "20", "--no-pager"], timeout=60)
        return (shown + tail)[-4000:]
    except (ProcessError, OSError) as err:
        return f"unreachable: {err}"


def report(figures: dict[str, Any], limits: steadiness.Limits) -> tuple[str, list[str]]:
    """The soak's table and what failed."""
    rows = [["figure", "value", "target"]]
    rows.append(
        [
            "desktops x IOPS, seconds",
            f"{figures['desktops']} x {figures['iops_per_desktop']}, {figures['seconds']}",
            "",
        ]
    )
    rows.append(["the desktops' and wrk's path to the VM", figures.get("network", "user"), ""])
    ios = figures.get("fio_ios", {})
    rows.append(["I/Os (read / write)", f"{ios.get('read', 0)} / {ios.get('write', 0)}", ""])
    rows.append(["I/O errors", str(figures.get("io_errors", "fio failed")), "0"])
    for direction, lat in figures.get("latency", {}).items():
        d = figures["drift"][direction]
        rows.append([f"{direction} p50 / p99 (ms)", f"{lat['p50_ms']} / {lat['p99_ms']}", ""])
        worst = max(w["p99_ms"] for w in lat["windows"])
        rows.append([f"{direction} worst window p99 (ms)", str(worst), ""])
        rows.append(
            [
                f"{direction} p99 first → last third (ms)",
                f"{d['first_p99_ms']} → {d['last_p99_ms']} (x{d['p99_ratio']})",
                f"≤ x{limits.p99_drift}",
            ]
        )
    memory = figures.get("memory", {})
    if memory.get("samples"):
        arc = f"{memory['arc_max_mib']} / {memory['arc_c_max_mib']}"
        allowed = f"≤ cap + {memory['arc_overflow_allowed_mib']} (OpenZFS' overflow)"
        rows.append(["ARC max seen / cap (MiB)", arc, allowed])
        growth = f"{memory['outside_arc_first_mib']}, {memory['outside_arc_growth_mib']:+}"
        rows.append(["memory outside ARC, growth (MiB)", growth, f"≤ {limits.memory_growth_mib}"])
        if memory.get("nfs_connections") is not None:
            load = f"from {memory['steady_from_s']} s, {memory['nfs_connections']} NFS connections"
            rows.append(["growth measured under the full load", load, ""])
        top = ", ".join(f"{n} {g:+}" for n, g in memory["rss_growth_mib"].items())
        rows.append(["largest processes' RSS growth (MiB)", top, ""])
    cpu = figures.get("guest_cpu") or {}
    if cpu:
        busiest = ", ".join(f"{n} {v}" for n, v in cpu["by_command_pct"].items())
        rows.append([f"guest CPU busy, {cpu['cpus']} vCPUs (%)", str(cpu["busy_pct"]), ""])
        rows.append(["  by command (%)", f"{busiest}, short-lived {cpu['short_lived_pct']}", ""])
    host = figures.get("host_cpu") or {}
    if host:
        busiest = ", ".join(f"{n} {v}" for n, v in host["by_command_pct"].items())
        rows.append([f"host CPU busy, {host['cpus']} CPUs (%)", f"{host['busy_pct']} ({busiest})", ""])
    rows.extend(third_rows(figures.get("thirds") or {}, figures.get("pool_space") or {}))
    idle = figures.get("api_idle")
    api = figures.get("api") or {}
    if api:
        rows.append(["api requests / errors", f"{api['requests']} / {api['errors']}", "0 errors"])
        for path, one in api["paths"].items():
            before = idle["paths"][path]["p99_ms"] if isinstance(idle, dict) else "-"
            rows.append(
                [f"  {path} p50 / p99 (idle p99) (ms)", f"{one['p50_ms']} / {one['p99_ms']} ({before})", ""]
            )
        rows.append(["api worst path p99 (ms)", str(api["p99_ms"]), f"< {limits.api_p99_ms}"])
    if isinstance(idle, dict):
        rows.append(["api worst path p99, idle appliance (ms)", str(idle["p99_ms"]), ""])
    for key, label in (("api_quota", "api unit"), ("poller_quota", "state poller unit")):
        quota = figures.get(key)
        if quota:
            used = f"{quota['cpu_pct_of_one']} % of one vCPU; throttled in {quota['throttled']} of "
            waited = (
                f"{quota['periods']} periods, {quota['throttled_s']} s ({quota['throttled_ms_each']} ms each)"
            )
            rows.append([f"{label} CPU, its quota's throttling", used + waited, ""])
    sync = figures.get("sync_writer", {})
    rows.append(
        ["FILE_SYNC writes verified / lost", f"{sync.get('acked', 0)} / {sync.get('lost', '?')}", "0 lost"]
    )
    rows.append(["pool after the soak", str(figures.get("pool_state", "?")), "ONLINE"])
    return table(rows), steadiness.verdict(figures, limits)


def third_rows(thirds: dict[str, Any], space: dict[str, Any]) -> list[list[str]]:
    """What else changed from the first to the last third (beside latency's drift): CPU, SAN, pool."""
    rows = []
    first, last = thirds.get("first", {}), thirds.get("last", {})
    for key, label in (("cpu", "guest"), ("host_cpu", "host")):
        if key in first and key in last:
            rows.append(
                [
                    f"{label} CPU busy first → last third (%)",
                    f"{first[key]['busy_pct']} → {last[key]['busy_pct']}",
                    "",
                ]
            )
    if "san" in first and "san" in last:
        a, b = first["san"], last["san"]
        rows.append(
            [
                "SAN writes first → last third (MiB/s, /s)",
                f"{a['write_mib_s']} → {b['write_mib_s']}, {a['writes_per_s']} → {b['writes_per_s']}",
                "",
            ]
        )
    start, end = space.get("start"), space.get("end")
    if isinstance(start, dict) and isinstance(end, dict):
        rows.append(
            [
                "pool allocated, fragmentation start → end",
                f"{start['capacity_pct']} → {end['capacity_pct']} %, {start['fragmentation_pct']} → "
                f"{end['fragmentation_pct']} %",
                "",
            ]
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reliability.soak", description=__doc__)
    parser.add_argument("--desktops", type=int, default=100)
    parser.add_argument("--seconds", type=int, default=1800)
    parser.add_argument("--iops", type=int, default=3, help="IOPS per desktop (steady state: 3-10)")
    parser.add_argument("--api-connections", type=int, default=2, help="wrk connections per api path")
    parser.add_argument(
        "--api-think-ms", type=int, default=500, help="each connection's pause between requests"
    )
    parser.add_argument(
        "--sync-writes", type=int, default=10, help="the FILE_SYNC writer's writes per second"
    )
    parser.add_argument(
        "--network",
        choices=("tap", "user"),
        default="tap",
        help="the desktops' and wrk's path: a tap link (a NIC's), or qemu's user-mode forwards",
    )
    parser.add_argument("--json", type=Path, default=REPO / "var" / "reliability" / "soak.json")
    parser.add_argument(
        "--dir", type=Path, default=None, help="work folder (default var/reliability/soak-<time>)"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the work folder (LUNs, VM disks, latency logs)"
    )
    args = parser.parse_args(argv)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    options = SoakOptions(
        desktops=args.desktops,
        seconds=args.seconds,
        iops_per_desktop=args.iops,
        directory=args.dir or REPO / "var" / "reliability" / f"soak-{stamp}",
        json_path=args.json,
        api_connections=args.api_connections,
        api_think_ms=args.api_think_ms,
        sync_writes_per_s=args.sync_writes,
        keep=args.keep,
        network=args.network,
    )
    figures = execute(options)
    limits = steadiness.Limits()
    text, failed = report(figures, limits)
    figures["limits"] = limits.model_dump()
    figures["failed"] = failed
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(f"\n{text}\n\nJSON: {args.json}")
    print("PASS" if not failed else "FAIL:\n" + "\n".join(failed))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
