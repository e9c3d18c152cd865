"""Built-in calibration: how many VDI desktops a target serves within a latency threshold, and a SAN check.

A "desktop" is one fio job at the profile's rate and mix (``rate`` per direction, ``rwmixread``,
``bssplit`` for reads and writes, random I/O). A ramp runs ``start``, ``start+step`` ... ``max`` desktops
at once, each step for ``step_seconds`` after a short ``ramp_time``, and reads fio's JSON. A step passes
when the worse of the read and write p95 completion latency is within the threshold AND the target kept
up (achieved IOPS >= 90 % of requested). The ramp stops after ``patience`` failed steps in a row: one
noisy step on a shared SAN must not decide the figure. "Desktops supported" is the largest step that
passed (0 when none did).

Two kinds of target:
- a raw LUN that belongs to no pool and holds nothing (the bare-SAN figure); fio writes to the device
  itself with O_DIRECT, so its contents are lost: callers must confirm, and a LUN in use is refused by
  the disks module's in-use check;
- a dataset of a pool: fio works on files in a folder of the dataset's mountpoint, with O_SYNC writes as
  ESXi's NFS client makes them, so the dataset's own properties (sync, recordsize, compression, the
  SLOG) decide the figure. The dataset is never changed (and sync=disabled is never set).

The SAN check is a short fixed test of a free LUN: 4K random read and write IOPS and latency at queue
depth 16, and 1M sequential read and write bandwidth, one fio run with its four jobs one after another.
Everything is validated (names, ranges, the LUN free, the dataset mounted with room) before fio runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from appliance.control import datasets, disks, names
from appliance.control.errors import BadOutput, DeviceInUse, InvalidRequest, NotFound, Refused
from appliance.control.gateway import Gateway, Rules

FIO = "fio"
#: a folder of the dataset's mountpoint holding one file per desktop; removed at the end
WORKDIR = ".arcvsa-calibration"
#: below this share of the requested IOPS a step fails: the target cannot keep up
KEEP_UP = 0.9
PERCENTILES = "50:95:99"
RULES: Rules = (
    (r"No such file or directory|does not exist", NotFound),
    (r"Permission denied|Read-only file system", Refused),
)


class DesktopProfile(BaseModel):
    """What one simulated desktop does (defaults: the steady-state VDI profile, DESIGN.md section 7)."""

    iops: float = Field(10, gt=0, le=1000, description="I/O operations per second of one desktop")
    read_percent: int = Field(20, ge=0, le=100, description="share of reads in the desktop's I/O, in %")
    read_bssplit: str = Field(
        "32k/100", pattern=r"^\d+[kKmM]?/\d+(:\d+[kKmM]?/\d+)*$", description="fio bssplit of reads"
    )
    write_bssplit: str = Field(
        "4k/50:8k/50",
        pattern=r"^\d+[kKmM]?/\d+(:\d+[kKmM]?/\d+)*$",
        description="fio bssplit of writes (4K and 8K, half each)",
    )
    size_mib: int = Field(
        64, ge=4, le=4096, description="working set of one desktop in MiB (a file, or its slice of a LUN)"
    )
    iodepth: int = Field(4, ge=1, le=64, description="I/O a desktop may have in flight")

    @model_validator(mode="after")
    def _splits(self) -> DesktopProfile:
        mean_block(self.read_bssplit)
        mean_block(self.write_bssplit)
        return self


class RampSpec(BaseModel):
    """How desktops are added and when a step fails."""

    threshold_ms: float = Field(20, ge=0.1, le=10_000, description="p95 completion latency a step may reach")
    start: int = Field(10, ge=1, le=2000, description="desktops in the first step")
    step: int = Field(10, ge=1, le=2000, description="desktops added per step")
    max: int = Field(100, ge=1, le=2000, description="desktops in the last step at most")
    step_seconds: int = Field(30, ge=2, le=3600, description="measured seconds per step")
    ramp_seconds: int = Field(2, ge=0, le=60, description="unmeasured warm-up seconds before each step")
    patience: int = Field(2, ge=1, le=10, description="failed steps in a row that end the ramp")

    @model_validator(mode="after")
    def _order(self) -> RampSpec:
        if self.max < self.start:
            raise InvalidRequest(f"max ({self.max}) is below start ({self.start})")
        if len(self.counts()) > 100:
            raise InvalidRequest("at most 100 steps: raise step or lower max")
        return self

    def counts(self) -> list[int]:
        """Desktops in each step."""
        return list(range(self.start, self.max + 1, self.step))


class Target(BaseModel):
    """Where the load goes: a free LUN (by path) or a dataset (by name)."""

    kind: Literal["lun", "dataset"] = Field(description="a raw LUN not in any pool, or a pool's dataset")
    name: str = Field(description="the LUN's device path (/dev/disk/by-id/...) or the dataset's name")


class Prepared(BaseModel):
    """A validated target, ready for fio: the device, or the folder in the dataset."""

    target: Target = Field(description="what was asked for")
    path: str = Field(description="the device node fio opens, or the folder its files go in")
    size_bytes: int = Field(description="bytes fio may use: the LUN's size, or the dataset's free space")
    properties: dict[str, Any] = Field(
        default_factory=dict, description="the dataset's properties as they were (sync, recordsize ...)"
    )


class Percentiles(BaseModel):
    """Completion latency percentiles of one direction, in milliseconds (None when it did no I/O)."""

    p50_ms: float | None = Field(description="median completion latency in ms")
    p95_ms: float | None = Field(description="95th percentile completion latency in ms")
    p99_ms: float | None = Field(description="99th percentile completion latency in ms")


class Figures(BaseModel):
    """What one fio job (or group) did."""

    read_iops: float = Field(description="reads per second")
    write_iops: float = Field(description="writes per second")
    read_mib_s: float = Field(description="read bandwidth in MiB/s")
    write_mib_s: float = Field(description="write bandwidth in MiB/s")
    read: Percentiles = Field(description="read completion latency")
    write: Percentiles = Field(description="write completion latency")

    @property
    def iops(self) -> float:
        """Reads and writes per second together."""
        return self.read_iops + self.write_iops

    @property
    def p95_ms(self) -> float | None:
        """The worse of the read and write p95."""
        both = [v for v in (self.read.p95_ms, self.write.p95_ms) if v is not None]
        return max(both) if both else None


class CalibrationStep(BaseModel):
    """One step of a ramp."""

    desktops: int = Field(description="desktops running at once")
    requested_iops: float = Field(description="desktops x the profile's IOPS")
    iops: float = Field(description="IOPS achieved (reads and writes)")
    p95_ms: float | None = Field(description="the worse of read and write p95 completion latency, ms")
    figures: Figures = Field(description="fio's figures of the step")
    passed: bool = Field(description="p95 within the threshold and IOPS >= 90 % of requested")
    reason: str | None = Field(description="why the step failed, in words")


class RampResult(BaseModel):
    """A ramp's outcome."""

    desktops_supported: int = Field(description="desktops of the largest step that passed (0: none did)")
    stop_reason: str = Field(description="why the ramp ended")
    steps: list[CalibrationStep] = Field(description="every step run, in order")


class SanPhase(BaseModel):
    """One fixed test of the SAN check."""

    name: Literal["randread-4k", "randwrite-4k", "read-1m", "write-1m"] = Field(description="which test")
    iops: float = Field(description="operations per second")
    mib_s: float = Field(description="bandwidth in MiB/s")
    latency: Percentiles = Field(description="completion latency of its direction")


class SanCheck(BaseModel):
    """The SAN check's figures."""

    phases: list[SanPhase] = Field(description="4K random read and write, 1M sequential read and write")


# -- validation ------------------------------------------------------------------------------------------


def prepare(gw: Gateway, target: Target, *, need_bytes: int) -> Prepared:
    """Check the target before any load: a free LUN or a mounted dataset with room for ``need_bytes``.

    NotFound for an unknown LUN or dataset, DeviceInUse for a LUN that holds anything (a pool's label,
    a file system, partitions, a mount), Refused for the system disk, a zvol, an unmounted dataset or
    one without the room.
    """
    if target.kind == "lun":
        # force only to get the disk back: its in_use reason is refused here, in calibration's words
        disk = disks.resolve(gw, [names.device(target.name)], force=True)[0]
        if disk.in_use:
            raise DeviceInUse(f"{target.name} {disk.in_use}: calibration writes only to a free LUN")
        if disk.size_bytes < need_bytes:
            raise Refused(
                f"{target.name} has {disk.size_bytes >> 20} MiB; the ramp needs {need_bytes >> 20} MiB"
            )
        return Prepared(target=target, path=disk.kernel_path, size_bytes=disk.size_bytes)
    ds = datasets.get(gw, names.dataset(target.name))
    if ds.type != "FILESYSTEM":
        raise Refused(f"{target.name} is a {ds.type.lower()}, not a file system")
    if not ds.mountpoint or not ds.mountpoint.startswith("/"):
        raise Refused(f"{target.name} is not mounted (mountpoint {ds.mountpoint!r})")
    free = ds.available or 0
    if free < need_bytes * 1.1:
        raise Refused(f"{target.name} has {free >> 20} MiB free; the ramp needs {need_bytes >> 20} MiB")
    folder = f"{ds.mountpoint.rstrip('/')}/{WORKDIR}"
    return Prepared(target=target, path=folder, size_bytes=free, properties=ds.properties)


def ramp_bytes(profile: DesktopProfile, ramp: RampSpec) -> int:
    """Bytes the largest step writes to: one working set per desktop."""
    return max(ramp.counts()) * profile.size_mib << 20


# -- fio command lines ------------------------------------------------------------------------------------


_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20}


def mean_block(bssplit: str) -> float:
    """Mean block size in bytes of a fio bssplit such as ``4k/50:8k/50`` (weighted by its shares)."""
    pairs = [part.split("/") for part in bssplit.split(":")]
    sizes = [
        (
            int(size[:-1] if size[-1:].isalpha() else size)
            * _UNITS[size[-1:].lower() if size[-1:].isalpha() else ""],
            int(share),
        )
        for size, share in pairs
    ]
    total = sum(share for _, share in sizes)
    if total <= 0 or total > 100 or any(size <= 0 for size, _ in sizes):
        raise InvalidRequest(f"bssplit {bssplit!r}: sizes must be positive and shares add up to 1..100")
    return sum(size * share for size, share in sizes) / total


def _rate(profile: DesktopProfile) -> str:
    """fio ``rate`` (bytes/s per direction: reads,writes) for the desktop's IOPS at its mean block sizes.

    Not ``rate_iops``: with a bssplit fio counts every I/O as the smallest size, so 8 writes/s of 4K and
    8K would come out as about 5.
    """
    reads = profile.iops * profile.read_percent / 100
    writes = profile.iops - reads
    rates = (reads * mean_block(profile.read_bssplit), writes * mean_block(profile.write_bssplit))
    return ",".join(str(max(1, round(v))) if v > 0 else "0" for v in rates)


def desktops_argv(prepared: Prepared, profile: DesktopProfile, ramp: RampSpec, count: int) -> list[str]:
    """fio for ``count`` desktops at once, reported as one group."""
    mib = profile.size_mib
    argv = [
        FIO,
        "--output-format=json",
        "--name=desktops",
        "--ioengine=libaio",
        "--thread",
        f"--numjobs={count}",
        "--group_reporting",
        "--rw=randrw",
        f"--rwmixread={profile.read_percent}",
        f"--bssplit={profile.read_bssplit},{profile.write_bssplit}",
        f"--rate={_rate(profile)}",
        f"--iodepth={profile.iodepth}",
        "--time_based",
        f"--runtime={ramp.step_seconds}",
        f"--ramp_time={ramp.ramp_seconds}",
        f"--size={mib}m",
        f"--percentile_list={PERCENTILES}",
        "--randrepeat=0",
    ]
    if prepared.target.kind == "lun":
        # each desktop in its own slice of the LUN, straight to the device as VMFS would
        return [*argv, f"--filename={prepared.path}", f"--offset_increment={mib}m", "--direct=1"]
    # a file per desktop; O_SYNC writes as ESXi's NFS client asks for (the ZIL/SLOG takes them)
    return [*argv, f"--directory={prepared.path}", "--filename_format=desktop.$jobnum", "--sync=1"]


SAN_PHASES: tuple[tuple[str, str, str, int], ...] = (
    ("randread-4k", "randread", "4k", 16),
    ("randwrite-4k", "randwrite", "4k", 16),
    ("read-1m", "read", "1m", 4),
    ("write-1m", "write", "1m", 4),
)


def san_argv(prepared: Prepared, seconds: int) -> list[str]:
    """fio for the SAN check: four jobs one after the other (stonewall) on the LUN, O_DIRECT."""
    size = min(prepared.size_bytes, 1 << 30) >> 20
    argv = [
        FIO,
        "--output-format=json",
        f"--filename={prepared.path}",
        "--ioengine=libaio",
        "--direct=1",
        "--time_based",
        f"--runtime={seconds}",
        "--ramp_time=1",
        f"--size={size}m",
        f"--percentile_list={PERCENTILES}",
        "--randrepeat=0",
    ]
    for name, rw, bs, depth in SAN_PHASES:
        argv += [f"--name={name}", "--stonewall", f"--rw={rw}", f"--bs={bs}", f"--iodepth={depth}"]
    return argv


# -- fio's JSON -------------------------------------------------------------------------------------------


def _load(stdout: str) -> list[dict[str, Any]]:
    """fio's jobs; fio may print warnings before the JSON document."""
    start = stdout.find("{")
    try:
        data = json.loads(stdout[start:]) if start >= 0 else None
        jobs: list[dict[str, Any]] = data["jobs"]  # type: ignore[index]
    except (ValueError, KeyError, TypeError) as err:
        raise BadOutput(f"fio: no JSON report ({err})") from None
    for job in jobs:
        if job.get("error"):
            raise BadOutput(f"fio job {job.get('jobname')} ended with error {job['error']}")
    return jobs


def _percentiles(direction: dict[str, Any]) -> Percentiles:
    pct = direction.get("clat_ns", {}).get("percentile") or {}
    if not direction.get("total_ios"):
        return Percentiles(p50_ms=None, p95_ms=None, p99_ms=None)

    def ms(key: str) -> float | None:
        value = pct.get(key)
        return round(value / 1e6, 3) if value is not None else None

    return Percentiles(p50_ms=ms("50.000000"), p95_ms=ms("95.000000"), p99_ms=ms("99.000000"))


def figures(job: dict[str, Any]) -> Figures:
    """One job's figures (bw in fio's JSON is KiB/s)."""
    read, write = job.get("read", {}), job.get("write", {})
    return Figures(
        read_iops=round(float(read.get("iops", 0)), 2),
        write_iops=round(float(write.get("iops", 0)), 2),
        read_mib_s=round(float(read.get("bw", 0)) / 1024, 2),
        write_mib_s=round(float(write.get("bw", 0)) / 1024, 2),
        read=_percentiles(read),
        write=_percentiles(write),
    )


def parse_step(stdout: str) -> Figures:
    """The group's figures from ``fio --group_reporting --output-format=json``."""
    return figures(_load(stdout)[0])


def parse_san(stdout: str) -> SanCheck:
    """The SAN check's four phases."""
    phases = []
    for job in _load(stdout):
        fig = figures(job)
        reads = job.get("jobname", "").startswith(("randread", "read"))
        phases.append(
            SanPhase(
                name=job["jobname"],
                iops=fig.read_iops if reads else fig.write_iops,
                mib_s=fig.read_mib_s if reads else fig.write_mib_s,
                latency=fig.read if reads else fig.write,
            )
        )
    return SanCheck(phases=phases)


def judge(count: int, profile: DesktopProfile, threshold_ms: float, fig: Figures) -> CalibrationStep:
    """Whether a step passed: p95 within the threshold and the target kept up."""
    requested = count * profile.iops
    reason = None
    p95 = fig.p95_ms
    if p95 is None:
        reason = "no I/O completed"
    elif p95 > threshold_ms:
        reason = f"p95 {p95:g} ms is above the {threshold_ms:g} ms threshold"
    elif fig.iops < KEEP_UP * requested:
        reason = (
            f"{fig.iops:.0f} IOPS is below 90 % of the {requested:.0f} requested: the target cannot keep up"
        )
    return CalibrationStep(
        desktops=count,
        requested_iops=requested,
        iops=round(fig.iops, 2),
        p95_ms=p95,
        figures=fig,
        passed=reason is None,
        reason=reason,
    )


# -- running ----------------------------------------------------------------------------------------------

#: (steps done, steps planned, message, the step just finished or None)
Progress = Callable[[int, int, str, "CalibrationStep | None"], None]


def _timeout(seconds: int, ramp_seconds: int, count: int, mib: int) -> float:
    # the step itself, plus laying out files on a slow SAN at 4 MiB/s
    return float(seconds + ramp_seconds + 120 + count * mib / 4)


def ramp(
    gw: Gateway,
    prepared: Prepared,
    profile: DesktopProfile,
    spec: RampSpec,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> RampResult:
    """Run the ramp on a prepared target until ``patience`` steps in a row fail, ``max`` is reached or
    it is cancelled."""
    counts = spec.counts()
    steps: list[CalibrationStep] = []
    failed = 0
    stop = f"reached the maximum of {spec.max} desktops within the threshold"
    try:
        if prepared.target.kind == "dataset":
            # every desktop's file laid out once, and on the LUNs, before any step is measured: a step
            # must not pay for writing the files or for flushing them
            gw.run(["mkdir", "-p", "--", prepared.path], rules=RULES)
            if progress:
                progress(0, len(counts), f"laying out {counts[-1]} files of {profile.size_mib} MiB", None)
            layout = [*desktops_argv(prepared, profile, spec, counts[-1]), "--create_only=1"]
            gw.run(layout, rules=RULES, timeout=_timeout(0, 0, counts[-1], profile.size_mib * 4))
            gw.run(
                ["zpool", "sync", names.pool(prepared.target.name.split("/")[0])], rules=RULES, timeout=600
            )
        for i, count in enumerate(counts):
            if cancelled and cancelled():
                stop = "cancelled"
                break
            if progress:
                progress(i, len(counts), f"step {i + 1} of {len(counts)}: {count} desktops", None)
            argv = desktops_argv(prepared, profile, spec, count)
            result = gw.run(
                argv,
                rules=RULES,
                timeout=_timeout(spec.step_seconds, spec.ramp_seconds, count, profile.size_mib),
            )
            step = judge(count, profile, spec.threshold_ms, parse_step(result.stdout))
            steps.append(step)
            if progress:
                progress(
                    i + 1, len(counts), f"{count} desktops: {step.iops:.0f} IOPS, p95 {step.p95_ms} ms", step
                )
            failed = 0 if step.passed else failed + 1
            if failed >= spec.patience or (failed and i == len(counts) - 1):
                stop = step.reason or "failed"
                break
    finally:
        if prepared.target.kind == "dataset":
            gw.run(["rm", "-rf", "--", prepared.path], rules=RULES)
    supported = max((s.desktops for s in steps if s.passed), default=0)
    return RampResult(desktops_supported=supported, stop_reason=stop, steps=steps)


def san_check(gw: Gateway, prepared: Prepared, seconds: int = 10) -> SanCheck:
    """The SAN check of a prepared (free) LUN."""
    if prepared.target.kind != "lun":
        raise InvalidRequest("the SAN check runs on a free LUN, not on a dataset")
    if not 2 <= seconds <= 300:
        raise InvalidRequest("the SAN check runs 2 to 300 seconds per test")
    timeout = float(4 * (seconds + 1) + 120)
    return parse_san(gw.run(san_argv(prepared, seconds), rules=RULES, timeout=timeout).stdout)
