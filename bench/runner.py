"""Run workloads on every stack in one run, on the same throttled LUNs, and compute what the SAN saw.

One SAN (qemu-storage-daemon) serves the whole run: lun0 is the data LUN every stack uses in turn,
lun1 carries the background load of a constrained array, lun2 is left free for the appliance's own
calibration. Each stack runs all workloads in VDI order (provision, boot storm, steady state), then
powers off; the next one starts from a freshly booted VM and rewrites the LUN. A phase's counters are
read after flushing the stack's deferred writes (:func:`opening`, :func:`closing`).
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import golden, host, job, metrics, replay, syncwrite, trace
from bench.stack import (
    CALIBRATION_LUN,
    DATA_LUN,
    DATASET,
    ApplianceStack,
    Arcvsa,
    Counters,
    Overrides,
    Stack,
    StackError,
    make_stack,
)
from bench.toolchain import FioError, FioTimeout, Toolchain, ToolchainError
from bench.workload import Phase, SanProfile, Workload, load_san
from lab.appliance_api import ApiError
from lab.qmp import Qmp, QmpError
from lab.san import San, Throttle, make_luns
from lab.tap import TapLink
from process import ProcessError, run

# What a phase or a stack may fail with; anything else is a bug and stops the run.
FAULTS = (
    StackError,
    FioError,
    ToolchainError,
    ProcessError,
    ApiError,
    QmpError,
    syncwrite.SyncWriteError,
    OSError,
)
REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "build" / "bench"
#: beyond a sweep point's run time, for its clients' mounts and ramp under emulated CPUs
SWEEP_GRACE_SECONDS = 120
TRACE_DELTA = 64 << 20  # a clone's delta during its boot: the trace's writes folded into 64 MiB


def throttle(profile: SanProfile) -> Throttle:
    return Throttle(
        bps_total=int(profile.mib_s_total * 2**20),
        iops_read=profile.iops_read,
        iops_write=profile.iops_write,
        iops_size=profile.iops_size_kib << 10,
    )


def set_throttle(san: San, profile: SanProfile) -> None:
    """Change the running array's limits (QMP qom-set on the throttle group)."""
    limits = throttle(profile)
    values = {
        "iops-read": limits.iops_read,
        "iops-write": limits.iops_write,
        "bps-total": limits.bps_total,
        "iops-size": limits.iops_size,
    }
    with Qmp(san.qmp_path) as qmp:
        qmp.execute("qom-set", {"path": "/objects/array", "property": "limits", "value": values})


@dataclass
class Golden:
    """The replica (real OS bytes), its write samples and the boot trace, cut to ``replica_bytes``."""

    replica: Path
    replica_bytes: int
    samples: list[Path]
    ops: list[tuple[float, str, int, int]]

    def unique_read_bytes(self) -> int:
        reads = [
            trace.Op(t, o, off, n) for t, o, off, n in self.ops if o == "r" and off + n <= self.replica_bytes
        ]
        return trace.unique_bytes(reads)


def prepare_golden(image: Path, image_key: str, replica_mib: int | None) -> Golden:
    """The boot trace (recorded once per image) and the replica cut from the same image."""
    recorded = BUILD / "golden" / "boot-trace.json"
    trace.ensure(image, image_key, recorded)
    marker = golden.build(image, image_key, recorded, BUILD / "golden")
    replica = Path(marker["replica"])
    size = int(marker["replica_bytes"])
    if replica_mib is not None and replica_mib << 20 < size:
        size = replica_mib << 20
        cut = replica.with_name(f"replica-{replica_mib}m.raw")
        if not cut.is_file() or cut.stat().st_size != size:
            with replica.open("rb") as src, cut.open("wb") as dst:
                dst.write(src.read(size))
        replica = cut
    samples = sorted((BUILD / "golden").glob("delta-*.bin"))
    # The replica packs the disk's used chunks in order: the trace in replica offsets goes with it.
    ops = [(o.t, o.op, o.offset, o.length) for o in trace.load(Path(marker["replica_trace"]))]
    return Golden(replica, size, samples, ops)


def opening(stack: Stack) -> Counters:
    """The counters a phase starts from, once the writes before it are on the LUN."""
    stack.flush()
    return stack.counters()


def closing(stack: Stack) -> Counters:
    """The counters a phase ends at: its own deferred writes on the LUN too, timed when its load ended."""
    ended = time.monotonic()
    stack.flush()
    counters = stack.counters()
    counters.at = ended
    return counters


class Run:
    """One benchmark run: the SAN, the golden data, the stacks in turn, the results."""

    def __init__(
        self,
        chain: Toolchain,
        gold: Golden,
        san: San,
        workdir: Path,
        image: Path,
        key: Path,
        memory_mib: int,
        overrides: Overrides | None = None,
        tap: TapLink | None = None,
    ) -> None:
        self.chain, self.gold, self.san, self.workdir = chain, gold, san, workdir
        self.image, self.key, self.memory_mib = image, key, memory_mib
        self.overrides, self.tap = overrides, tap
        self.results: dict[str, dict[str, Any]] = {}
        # the host disk under the LUN files: every bare-LUN I/O is one of its I/Os (bench.host)
        self.disk = host.device_stat(san.luns[0].path if san.luns else workdir)

    # --- helpers -----------------------------------------------------------------------------------
    def target(self, stack: Stack) -> job.Target:
        if isinstance(stack, ApplianceStack):
            return job.Target("nfs", stack.nfs_url())
        return job.Target("nbd", stack.nbd_uri(DATA_LUN))

    def fio(self, name: str, text: str, timeout: float) -> dict[str, Any]:
        path = self.workdir / "jobs" / f"{name}.fio"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return self.chain.run_fio(path, timeout=timeout)

    def wait_writable(self, stack: ApplianceStack) -> None:
        """Until the export takes writes: NFS servers answer JUKEBOX during their grace period."""
        waited = self.chain.wait_writable(stack.nfs_url(), self.workdir / "probe", timeout=300)
        stack.setup["nfs_writable_after_seconds"] = round(waited, 1)

    def copy_replica(self, stack: Stack, name: str = job.REPLICA) -> None:
        """The replica written once: libnfs's nfs-cp over NFS (to ``name``), qemu-img onto the bare LUN
        (at its start: a recompose's new replica takes the old one's place there)."""
        if isinstance(stack, ApplianceStack):
            self.wait_writable(stack)
            self.chain.nfs_cp(self.gold.replica, stack.nfs_url(name), timeout=3600)
        else:
            argv = [
                "qemu-img",
                "convert",
                "-n",
                "-f",
                "raw",
                "-O",
                "raw",
                str(self.gold.replica),
                stack.nbd_uri(),
            ]
            run(argv, timeout=3600)

    # --- phases --------------------------------------------------------------------------------------
    def workload(self, stack: Stack, work: Workload, state: dict[str, Any]) -> dict[str, Any]:
        profile = load_san(work.san)
        set_throttle(self.san, profile)
        target = self.target(stack)
        phases = []
        background = None
        if profile.background is not None:
            background = self.start_background(profile, work)
        try:
            reads_replica = any(p.kind in ("trace", "recompose", "mix") for p in work.phases)
            if reads_replica and "replica" not in state and all(p.kind != "copy" for p in work.phases):
                self.copy_replica(stack)
                state["replica"] = True
            elif isinstance(stack, ApplianceStack) and "replica" not in state:
                self.wait_writable(stack)  # no copy waited for it
            for phase in work.phases:
                began = time.monotonic()  # per-phase wall time: where a run's minutes go
                host_before = host.sample(self.disk)
                try:
                    row = self.phase(stack, work, phase, target, state)
                    row["host"] = host.since(host_before, host.sample(self.disk))
                    phases.append(row)
                    stalls = ", ".join(host.stalled(row))
                    print(
                        f"bench: {stack.name}: {work.name}/{phase.name} {time.monotonic() - began:.0f} s"
                        + (f" (the host was slow: {stalls})" if stalls else ""),
                        flush=True,
                    )
                except FAULTS as exc:
                    # One phase failing must not lose the run: the row says what went wrong.
                    print(f"bench: {stack.name}: {work.name}/{phase.name} failed: {exc}", flush=True)
                    phases.append({"phase": phase.name, "kind": phase.kind, "error": str(exc)[-2000:]})
        finally:
            if background is not None:
                background.terminate()
                background.wait(timeout=30)
        return {"san": profile.model_dump(), "desktops": work.desktops, "phases": phases}

    def phase(
        self, stack: Stack, work: Workload, phase: Phase, target: job.Target, state: dict[str, Any]
    ) -> dict[str, Any]:
        """Run one phase and return its figures (see bench/metrics.py)."""
        if phase.kind == "calibrate":
            return self.calibrate(stack, phase)
        if phase.kind == "sweep":
            return self.sweep(stack, work, phase, target, state)  # each point between its own flushes
        if phase.kind == "drop-cache":
            stack.drop_cache()
        elif phase.kind == "mix":  # the deltas' layout comes before the measured window
            delta_bytes = phase.delta_mib << 20
            self.fio(
                f"{stack.name}-{work.name}-deltas",
                job.deltas(target, work.desktops, self.gold.replica_bytes, delta_bytes, self.gold.samples),
                3600,
            )
        before = opening(stack)
        fio_out: dict[str, Any] | None = None
        writes: dict[str, Any] | None = None
        clones: dict[str, Any] | None = None
        middle: Counters | None = None
        if phase.kind == "copy":
            self.copy_replica(stack)
            state["replica"] = True
        elif phase.kind == "trace":
            fio_out, clones = self.boot(stack, work, phase, target, job.REPLICA, "")
        elif phase.kind == "recompose":
            # every desktop moved to a new replica: the replica written anew, then each clone, made
            # again with a new delta, boots from it; the two steps in one window, as seed 004 measured
            self.copy_replica(stack, job.NEXT_REPLICA)
            middle = closing(stack)
            fio_out, clones = self.boot(stack, work, phase, target, job.NEXT_REPLICA, "next-")
        elif phase.kind == "mix":
            text = job.mix(target, phase, work.desktops, self.gold.replica_bytes, self.gold.samples)
            writers = self.sync_writers(target, work, phase)
            if writers is not None:
                writers.start()
            try:
                fio_out = self.fio(f"{stack.name}-{work.name}-{phase.name}", text, phase.seconds + 600)
            finally:
                writes = writers.join() if writers is not None else None
            if writes is not None and writes["errors"]:
                failed = writes["errors"]
                raise syncwrite.SyncWriteError(f"{len(failed)} desktops' writes failed: {failed[0]}")
        after = closing(stack)
        compression = stack.compression()
        model = stack.write_model(writes["began"]) if writes is not None else None
        return metrics.phase(
            phase, stack, before, after, fio_out, self.gold,
            compression=compression, writes=writes, model=model, clones=clones, middle=middle,
        )  # fmt: skip

    def boot(
        self, stack: Stack, work: Workload, phase: Phase, target: job.Target, replica: str, prefix: str
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """Every clone boots at once from ``replica``: over NFS bench.replay's clones (FILE_SYNC writes,
        real bytes), on the bare LUN fio's replay of the same ops through nbd. Returns (fio's JSON, None)
        or (None, the clones' figures)."""
        if target.engine == "nfs":
            plan = replay.Plan(
                url=target.url,
                replica=replica,
                deltas=[prefix + job.delta_name(i) for i in range(work.desktops)],
                ops=job.clone_ops(self.gold.ops, self.gold.replica_bytes, TRACE_DELTA),
                samples=self.gold.samples,
            )
            clones = replay.Clones(plan)
            clones.start()
            figures = clones.join(timeout=3600)
            if figures["errors"]:
                failed = figures["errors"]
                raise syncwrite.SyncWriteError(f"{len(failed)} clones failed: {failed[0]}")
            return None, figures
        logs = [
            job.clone_iolog(
                self.gold.ops, target, i, self.gold.replica_bytes, TRACE_DELTA,
                self.workdir / "iologs" / f"{stack.name}-{work.name}-{i}.log",
            )
            for i in range(work.desktops)
        ]  # fmt: skip
        return self.fio(f"{stack.name}-{work.name}-{phase.name}", job.replay(target, logs), 3600), None

    def sync_writers(self, target: job.Target, work: Workload, phase: Phase) -> syncwrite.Desktops | None:
        """The desktops' FILE_SYNC writers of a mix over NFS (bench.syncwrite), or None (fio writes)."""
        if not job.synced_writes(target, phase):
            return None
        write_iops = phase.iops_per_desktop * (100 - phase.read_pct) / 100
        if write_iops <= 0:
            return None
        plan = syncwrite.Plan(
            url=target.url,
            files=[job.delta_name(i) for i in range(work.desktops)],
            seconds=phase.seconds,
            iops=write_iops,
            sizes=syncwrite.sizes(phase.write_bs),
            delta_bytes=phase.delta_mib << 20,
            spread=phase.write_spread,
            samples=self.gold.samples,
        )
        return syncwrite.Desktops(plan)

    def sweep(
        self, stack: Stack, work: Workload, phase: Phase, target: job.Target, state: dict[str, Any]
    ) -> dict[str, Any]:
        """Every point of a sweep in turn, each with its own client and SAN figures. The files sit after
        the replica's place on the LUN, so a sweep never overwrites the golden image."""
        base = self.gold.replica_bytes
        name = f"{stack.name}-{work.name}-{phase.name}"
        files = (max(phase.clients), phase.file_mib)
        if state.get("sweep_files") != files:  # the workload's earlier sweeps laid out the same files
            self.fio(f"{name}-layout", job.sweep_layout(target, phase, base, self.gold.samples), 3600)
            state["sweep_files"] = files
        points = []
        for point in job.sweep_points(phase):
            clients, size, depth = point
            text = job.sweep_point(target, phase, point, base, self.gold.samples)
            label = f"{name}-{clients}x{size}-qd{depth}"
            retried: str | None = None
            for attempt in range(2):
                before = opening(stack)  # again on a retry: the hung try's I/O is not the point's
                try:
                    fio_out = self.fio(label, text, phase.seconds + SWEEP_GRACE_SECONDS)
                    break
                except FioTimeout as exc:
                    # A client left waiting on its mount (on ganesha and the kernel server alike): the
                    # point is run again once rather than its whole phase lost, and the retry is kept
                    # in the point so a run shows how often it happened.
                    if attempt:
                        raise
                    retried = str(exc).splitlines()[0]
                    print(f"bench: {label}: {retried}; running the point again", flush=True)
            row = metrics.phase(phase, stack, before, closing(stack), fio_out, self.gold, compression=None)
            seen = row["client"]
            mib_s = (seen["read_bytes"] + seen["write_bytes"]) / (1 << 20) / seen["seconds"]
            keep = ("client", "san", "san_iops", "read_offload", "write_offload", "arc_hit_pct", "cpu")
            points.append(
                {"clients": clients, "bs": size, "iodepth": depth, "mib_s": round(mib_s, 1)}
                | {k: row[k] for k in keep if k in row}
                | ({"retried": retried} if retried else {})
            )
        return {"phase": phase.name, "kind": "sweep", "rw": phase.rw, "points": points}

    def calibrate(self, stack: Stack, phase: Phase) -> dict[str, Any]:
        """The appliance's built-in ramp through its api, in arcvsa: on the pool's dataset and on the free
        LUN of the same array (the bare figure), by the same fio in the same VM. The density figure is
        arcvsa's against the bare LUN's; the other stacks skip it to keep the run within the hour."""
        row: dict[str, Any] = {"phase": phase.name, "kind": "calibrate", "threshold_ms": phase.threshold_ms}
        if not isinstance(stack, Arcvsa):
            row["skipped"] = "the density ramp compares arcvsa with the bare LUN, both run in arcvsa"
            return row
        targets = {
            "dataset": {"kind": "dataset", "name": DATASET},
            "bare": {"kind": "lun", "name": CALIBRATION_LUN},
        }
        for label, target in targets.items():
            body = {
                "kind": "ramp",
                "target": target,
                "profile": {
                    "iops": phase.iops_per_desktop,
                    "read_percent": phase.read_pct,
                    "read_bssplit": phase.read_bs,
                    "write_bssplit": phase.write_bs,
                    "size_mib": phase.delta_mib,
                },
                "ramp": {
                    "threshold_ms": phase.threshold_ms,
                    "start": phase.ramp_start,
                    "step": phase.ramp_step,
                    "max": phase.ramp_max,
                    "step_seconds": phase.seconds,
                },
                "confirm_overwrite": target["kind"] == "lun",
            }
            started = stack.call("POST", "/api/calibrations", body)
            done = self.wait_calibration(stack, int(started["id"]))
            row[label] = {
                "target": target["name"],
                "state": done["state"],
                "desktops_supported": done["desktops_supported"],
                "stop_reason": done["stop_reason"],
                "steps": [
                    {
                        "desktops": s["desktops"],
                        "iops": s["iops"],
                        "p95_ms": s["p95_ms"],
                        "passed": s["passed"],
                    }
                    for s in done["steps"]
                ],
            }
        ours, bare = row["dataset"]["desktops_supported"] or 0, row["bare"]["desktops_supported"] or 0
        row["density_ratio"] = metrics.ratio(ours, bare)
        if not bare and ours:
            # the bare LUN served no desktop within the threshold: the ratio has no upper end, and
            # arcvsa's count over one desktop is its floor (marked as one, like the offload floors)
            row["density_ratio"], row["density_floor"] = float(ours), True
        return row

    @staticmethod
    def wait_calibration(stack: ApplianceStack, ident: int, timeout: float = 3600) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found: dict[str, Any] = stack.call("GET", f"/api/calibrations/{ident}")
            if found["state"] not in ("queued", "running"):
                if found["state"] != "succeeded":
                    raise StackError(
                        f"{stack.name}: calibration {ident} {found['state']}: {found['message']}"
                    )
                return found
            time.sleep(5)
        raise StackError(f"{stack.name}: calibration {ident} still running after {timeout:.0f} s")

    def start_background(self, profile: SanProfile, work: Workload) -> subprocess.Popen[bytes]:
        """The competing VMs' load on lun1, running until the workload ends."""
        assert profile.background is not None
        lun = next(lun for lun in self.san.luns if lun.name == "lun1")
        seconds = sum(p.seconds for p in work.phases) + 3600
        path = self.workdir / "jobs" / "background.fio"
        path.parent.mkdir(parents=True, exist_ok=True)
        url = f"nbd+unix:///lun1?socket={self.san.socket}"
        path.write_text(job.background(url, profile.background, lun.size_bytes, seconds), encoding="utf-8")
        log = (self.workdir / "background.log").open("wb")
        proc = subprocess.Popen(
            self.chain.fio_argv([str(path)]), stdout=log, stderr=log, start_new_session=True
        )
        time.sleep(5)
        if proc.poll() is not None:
            raise StackError(f"the background load ended at once ({proc.returncode}); see {log.name}")
        return proc

    def stack(self, name: str, workloads: list[Workload]) -> None:
        stack = make_stack(
            name,
            self.san,
            self.image,
            self.key,
            self.workdir / "vms",
            self.memory_mib,
            self.overrides,
            self.tap,
        )
        started = time.monotonic()
        try:
            stack.start()
            print(f"bench: {name}: up in {time.monotonic() - started:.0f} s", flush=True)
            state: dict[str, Any] = {}
            for work in workloads:
                print(f"bench: {name}: {work.name} ({work.desktops} desktops)", flush=True)
                result = self.workload(stack, work, state)
                result["stack"] = stack.describe()
                self.results.setdefault(work.name, {})[name] = result
        except FAULTS as exc:
            print(f"bench: {name} failed: {exc}", flush=True)
            for work in workloads:
                self.results.setdefault(work.name, {}).setdefault(
                    name,
                    {
                        "desktops": work.desktops,
                        "san": {"name": work.san},
                        "phases": [],
                        "error": str(exc)[-2000:],
                    },
                )
        finally:
            stack.stop()
            # What the run has so far, in case a later stack takes the machine down.
            (self.workdir / "partial.json").write_text(
                json.dumps(self.results, indent=1) + "\n", encoding="utf-8"
            )
        print(f"bench: {name} done in {time.monotonic() - started:.0f} s", flush=True)


def start_san(directory: Path, lun_bytes: int, profile: SanProfile) -> San:
    """The run's array: data LUN, background LUN, calibration LUN, all in one throttle group."""
    luns = make_luns(directory / "luns", 3, lun_bytes)
    return San(directory, luns, throttle(profile), tied=True).start()


def stop_quietly(san: San) -> None:
    try:
        san.stop()
    except (ProcessError, OSError) as exc:
        print(f"bench: stopping the SAN: {exc}")
