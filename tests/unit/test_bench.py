"""The benchmark's pure parts: profiles as data, fio job files, the figures computed from counters."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from bench import __main__ as bench_main
from bench import job, metrics, report
from bench import stack as stacks
from bench.runner import Golden, Run, closing, opening, throttle
from bench.stack import ApplianceStack, Counters, Stack
from bench.toolchain import FioTimeout
from bench.workload import ProfileError, Workload, load_san, load_workload
from lab.appliance_vm import GUEST_PORTS, ApplianceVm, VmConfig
from lab.san import San, Throttle
from lab.tap import TapLink

NFS = job.Target("nfs", "nfs://127.0.0.1/tank/vdi?nfsport=2049&mountport=20048")
NBD = job.Target("nbd", "nbd+unix:///lun0?socket=/tmp/san.sock")
SAMPLES = [Path("/golden/delta-00.bin"), Path("/golden/delta-01.bin")]


def test_every_shipped_workload_loads_and_cites_a_source() -> None:
    for name in ("provisioning-storm", "boot-storm", "steady-state"):
        work = load_workload(name)
        assert work.sources and all(s.strip() for s in work.sources)
        load_san(work.san)  # its SAN profile exists
        small = work.small()
        assert small.desktops < work.desktops and small.replica_mib == 64


def test_bad_profiles_get_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=r"no workload 'nope'.*steady-state"):
        load_workload("nope")
    typo = tmp_path / "typo.yaml"
    typo.write_text("name: x\ndescription: x\nsources: [x]\nsan: raid5-9\ndesktops: 2\nphases:\n"
                    "  - {name: w, kind: mix, why: x, iops_per_desk: 3}\n", encoding="utf-8")  # fmt: skip
    with pytest.raises(ProfileError, match="iops_per_desk"):
        load_workload(str(typo))
    with pytest.raises(ProfileError, match="no SAN profile 'raid6'"):
        load_san("raid6")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--set", "recordsize"], "--set takes PROPERTY=VALUE"),
        (["--module", "zfs_txg_timeout=fast"], "--module takes PARAMETER=INTEGER"),
        (["--module", "zfs_txg_timeout"], "--module takes PARAMETER=INTEGER"),
        (["--stacks", "arcvsa,vsan"], "unknown stacks"),
        (["--ab", "--stacks", "bare-lun,nas-xfs", "--nfs-backend", "knfsd"], "include arcvsa"),
        (["--ab"], "needs a setting to compare"),
        (["--nfs-backend", "nfsv4-server"], ""),  # argparse's choices
    ],
)
def test_bad_overrides_are_refused_before_anything_starts(
    argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.argv", ["bench", "--profile", "steady-state", *argv])
    with pytest.raises(SystemExit, match=message):
        bench_main.main()


def test_san_profile_becomes_a_qemu_throttle_group() -> None:
    limits = throttle(load_san("constrained"))
    assert limits.group_options() == "x-iops-read=800,x-iops-write=200,x-bps-total=41943040,x-iops-size=65536"
    assert Throttle().group_options() == "x-iops-total=3000,x-bps-total=67108864"


def test_mix_places_desktops_apart_on_the_lun_and_in_files_over_nfs() -> None:
    synced = load_workload("steady-state").phases[0]
    assert synced.sync_writes  # over NFS its writers are bench.syncwrite's: fio reads only
    readers = job.mix(NFS, synced, 2, 1 << 30, SAMPLES)
    assert "[desktop-1-read]" in readers and "-write]" not in readers and "rate=0," not in readers
    assert "[desktop-1-write]" in job.mix(NBD, synced, 2, 1 << 30, SAMPLES)  # the bare LUN's are fio's
    phase = synced.model_copy(update={"sync_writes": False})
    nbd = job.mix(NBD, phase, 2, 1 << 30, SAMPLES)
    delta = phase.delta_mib << 20
    assert f"[desktop-1-write]\noffset={(1 << 30) + delta}\nsize={delta}\n" in nbd
    assert "ioengine=nbd" in nbd and f"rate={2 * 16 * 1024},0" in nbd and f"rate=0,{8 * 4 * 1024}" in nbd
    nfs = job.mix(NFS, phase, 2, 1 << 30, SAMPLES)
    assert "[desktop-1-write]\nfilename=delta-001.raw\n" in nfs and "offset=" not in nfs
    assert "refill_buffers=1" in nfs and "buffer_pattern" not in nfs  # no repeated pattern per write
    layout = job.deltas(NFS, 2, 1 << 30, 64 << 20, SAMPLES)
    assert "buffer_pattern='/golden/delta-01.bin'" in layout and "bs=1m" in layout  # real OS bytes
    assert "random_distribution=zipf:1.1" in nfs and "bssplit=4k/50:8k/50" in nfs


def test_clone_iolog_sends_reads_to_the_replica_and_writes_to_the_clones_delta(tmp_path: Path) -> None:
    ops = [(0.0, "r", 0, 4096), (0.5, "w", 70 << 20, 8192), (1.0, "r", 2 << 30, 4096)]
    text = job.clone_iolog(ops, NFS, 3, 1 << 30, 64 << 20, tmp_path / "nfs.log").read_text(encoding="utf-8")
    assert text.splitlines() == [
        "fio version 3 iolog",
        "0 replica.raw add",
        "0 delta-003.raw add",
        "0 replica.raw open",
        "0 delta-003.raw open",
        "1 replica.raw read 0 4096",
        f"500000 delta-003.raw write {(70 << 20) % ((64 << 20) - 8192)} 8192",
        "500000 replica.raw close",
        "500000 delta-003.raw close",
    ]  # the read past the (cut) replica is left out
    nbd = job.clone_iolog(ops, NBD, 3, 1 << 30, 64 << 20, tmp_path / "nbd.log").read_text(encoding="utf-8")
    write = next(line for line in nbd.splitlines() if " write " in line)
    offset = int(write.split()[3])
    assert (1 << 30) + 3 * (64 << 20) <= offset < (1 << 30) + 4 * (64 << 20)


def _fio(read: int, write: int, reads: int, writes: int) -> dict[str, object]:
    pct = {"percentile": {"50.000000": 1_000_000, "95.000000": 5_000_000, "99.000000": 9_000_000}}
    return {
        "jobs": [
            {
                "job_runtime": 10_000,
                "read": {"io_bytes": read, "total_ios": reads, "clat_ns": pct},
                "write": {"io_bytes": write, "total_ios": writes, "clat_ns": pct},
            }
        ]
    }


def test_the_appliance_stacks_nfs_goes_over_the_tap_link_when_there_is_one(tmp_path: Path) -> None:
    """The desktops' URL and the export's client follow the run's path; the bare LUN has neither."""
    san = cast(San, SimpleNamespace(luns=[], socket=tmp_path / "san.sock"))

    def booted(stack: Stack) -> ApplianceStack:
        """The stack with the VM its start() makes (its tap link), not started."""
        assert isinstance(stack, ApplianceStack)
        ports = {"nfs": 40001, "mountd": 40002}
        config = VmConfig(Path("/i"), tmp_path, san.socket, [], Path("/k"), host_ports=ports, tap=stack.tap)
        stack.vm = ApplianceVm(config)
        return stack

    user = booted(stacks.make_stack("nas-xfs", san, Path("/i"), Path("/k"), tmp_path, 1024))
    assert user.nfs_url("f") == "nfs://127.0.0.1/srv/nas/f?nfsport=40001&mountport=40002"
    assert user.client == "10.0.2.2"  # the host, as qemu's user-mode network shows it
    link = TapLink(
        "arcvsatest", ipaddress.IPv4Interface("198.51.100.1/24"), ipaddress.IPv4Interface("198.51.100.2/24")
    )
    for name in ("arcvsa", "zfs-defaults"):
        linked = booted(stacks.make_stack(name, san, Path("/i"), Path("/k"), tmp_path, 1024, tap=link))
        assert linked.nfs_url("replica.raw") == (
            f"nfs://198.51.100.2/tank/vdi/replica.raw?nfsport={GUEST_PORTS['nfs']}&mountport={GUEST_PORTS['mountd']}"
        )
        assert linked.client == "198.51.100.1"
    assert not isinstance(
        stacks.make_stack("bare-lun", san, Path("/i"), Path("/k"), tmp_path, 1024, tap=link), ApplianceStack
    )


def test_phase_figures_from_counters() -> None:
    gold = Golden(Path("replica"), 1 << 30, [], [(0.0, "r", 0, 1 << 20), (0.1, "r", 0, 1 << 20)])
    spec = load_workload("provisioning-storm").phases[1]
    stack = ApplianceStack.__new__(ApplianceStack)
    before = Counters(
        0.0, {"rd_bytes": 0, "wr_bytes": 0, "rd_ops": 0, "wr_ops": 0}, {}, {"hits": 0, "misses": 0}
    )
    after = Counters(
        10.0,
        {"rd_bytes": 1 << 20, "wr_bytes": 1 << 20, "rd_ops": 8, "wr_ops": 8},
        {},
        {"hits": 90, "misses": 10},
    )
    row = metrics.phase(spec, stack, before, after, _fio(64 << 20, 4 << 20, 1000, 512), gold, compression=1.8)
    assert row["read_offload"] == 64.0 and row["write_offload"] == 4.0
    assert row["write_aggregation"] == 16.0  # 128 KiB at the LUN for 8 KiB at the client
    assert row["compulsory_bound"] == round(64 * 1.8, 2)  # 64 MiB read of 1 unique MiB, stored at 1/1.8
    assert row["arc_hit_pct"] == 90.0 and row["client"]["write_lat_ms"]["p95"] == 5.0
    assert row["client"]["iops"] == 151.2 and row["san_iops"] == 1.6  # over the phase's 10 s of wall time
    bare = metrics.phase(
        spec,
        Stack.__new__(Stack),
        Counters(0.0),
        Counters(10.0),
        _fio(4096, 4096, 1, 1),
        gold,
        compression=None,
    )
    assert bare["read_offload"] == bare["write_offload"] == 1.0  # no cache between fio and the LUN


def test_a_time_based_phase_rates_over_its_own_seconds_not_fio_start_up() -> None:
    gold = Golden(Path("replica"), 1 << 30, [], [])
    spec = load_workload("steady-state").phases[0]
    assert spec.kind == "mix" and spec.seconds == 90
    after = Counters(120.0, {"rd_bytes": 0, "wr_bytes": 0, "rd_ops": 0, "wr_ops": 900})
    before = Counters(0.0, {"rd_bytes": 0, "wr_bytes": 0, "rd_ops": 0, "wr_ops": 0})
    stack = ApplianceStack.__new__(ApplianceStack)
    row = metrics.phase(spec, stack, before, after, _fio(0, 9 << 20, 0, 1800), gold, compression=None)
    assert row["wall_seconds"] == 120.0 and row["load_seconds"] == 90.0
    assert row["client"]["iops"] == 20.0 and row["san_iops"] == 10.0  # 30 s of fio's start-up left out
    short = metrics.phase(
        spec, stack, before, Counters(60.0, after.san), _fio(0, 0, 0, 0), gold, compression=None
    )
    assert short["load_seconds"] == 60.0  # an interrupted phase: never more than its wall time


def test_offload_is_unknown_when_the_client_moved_nothing_and_a_floor_when_the_san_did() -> None:
    assert metrics.offload(0, 4096) is None  # the NAS copy: no client reads, XFS metadata at the SAN
    assert metrics.offload(0, 0) is None
    assert metrics.offload(1 << 20, 0) == 256.0  # at least client bytes / one 4 KiB block
    assert metrics.offload(1 << 20, 1 << 18) == 4.0


def test_targets_report_missed_met_and_not_run() -> None:
    row = {"phase": "work", "kind": "mix", "write_offload": 2.0, "write_aggregation": 20.0,
           "client": {"write_lat_ms": {"p95": 10.0}}}  # fmt: skip
    bare = {"phase": "work", "kind": "mix", "client": {"write_lat_ms": {"p95": 100.0}}}
    results = {"steady-state": {"arcvsa": {"phases": [row]}, "bare-lun": {"phases": [bare]}}}
    found = {t["target"]: t for t in report.targets(results)}
    assert found["steady-state write offload"]["met"] is False
    assert found["steady-state write aggregation"]["met"] is True
    assert found["p95 write latency vs bare LUN (constrained)"]["measured"] == 0.1
    assert found["provisioning read offload"]["met"] is None


def test_write_offload_over_a_whole_workload_sums_its_phases() -> None:
    def phase(name: str, client: int, san: int) -> dict[str, object]:
        return {"phase": name, "kind": "mix", "client": {"write_bytes": client}, "san": {"write_bytes": san}}

    copy, clones = phase("copy", 1200, 600), phase("clone-boot", 200, 300)
    stacks = {
        "bare-lun": {"phases": [phase("copy", 1200, 1200), phase("clone-boot", 200, 200)]},
        "arcvsa": {"phases": [copy, clones, {"phase": "drop", "kind": "drop-cache"}]},
        "nas-xfs": {"phases": [phase("copy", 1200, 0), phase("clone-boot", 200, 0)]},
        "zfs-defaults": {"phases": [copy, {**clones, "error": "boom"}]},  # one phase left: no figure
    }
    (line,) = report.whole_writes(stacks)
    assert "bare LUN (VMFS-like) 1.0x" in line and "arcvsa (tuned) 1.56x" in line
    assert "NAS VM (XFS + knfsd) >=0.3x" in line and "OpenZFS" not in line
    assert report.whole_writes({"arcvsa": {"phases": [copy]}}) == []


def test_workload_model_is_strict() -> None:
    with pytest.raises(ValueError, match="desktops"):
        Workload.model_validate({"name": "x", "description": "x", "sources": ["x"], "san": "raid5-9",
                                 "desktops": 0, "phases": [{"name": "c", "kind": "copy", "why": "x"}]})  # fmt: skip


def test_sweeps_run_every_point_with_each_client_on_its_own_file() -> None:
    phase = load_workload("ceph-clients").phases[0]
    points = job.sweep_points(phase)
    assert len(points) == 16 and points[0] == (1, "4k", 1) and points[-1] == (4, "1m", 1)
    nbd = job.sweep_point(NBD, phase, (2, "4k", 1), 1 << 30, SAMPLES)
    size = phase.file_mib << 20
    assert f"[client-1]\noffset={(1 << 30) + size}\nsize={size}\nrefill_buffers=1\n" in nbd
    assert "rw=write" in nbd and "rwmixread" not in nbd and "bs=4k" in nbd and "[client-2]" not in nbd
    # from 128K a write carries a real 1 MiB sample: its copies no longer share a record
    big = job.sweep_point(NFS, phase, (3, "1m", 1), 0, SAMPLES)
    assert "[client-2]\nfilename=sweep-02.raw\n" in big and "buffer_pattern='/golden/delta-00.bin'" in big
    assert "refill_buffers" not in big
    mixed = load_workload("vsan-scenarios").phases[0]
    assert "rwmixread=70" in job.sweep_point(NFS, mixed, job.sweep_points(mixed)[0], 0, SAMPLES)
    layout = job.sweep_layout(NFS, phase, 0, SAMPLES)
    assert layout.count("filename=sweep-") == 4 and "bs=1m" in layout and "buffer_pattern=" in layout


def test_every_seed_scenario_is_a_profile() -> None:
    vsan = load_workload("vsan-scenarios")
    assert [p.name for p in vsan.phases] == ["BST", "ST", "RT", "WT", "HT", "SHT", "SRT", "SWT"]
    assert {p.kind for p in vsan.phases} == {"sweep"}
    hci = load_workload("hcibench-sweep")
    assert all(len(job.sweep_points(p)) == 9 for p in hci.phases)  # block size x outstanding I/O
    assert load_workload("ceph-clients").phases[0].clients == [1, 2, 3, 4]
    assert {p.rw for p in load_workload("streaming").phases} == {"read", "write"}
    with pytest.raises(ValueError, match="block_sizes"):
        Workload.model_validate({"name": "x", "description": "x", "sources": ["x"], "san": "raid5-9",
                                 "desktops": 1, "phases": [{"name": "s", "kind": "sweep", "why": "x",
                                                            "block_sizes": ["4k;rm"]}]})  # fmt: skip


def test_sweep_points_are_reported_side_by_side() -> None:
    def point(iops: float, p95: float) -> dict[str, object]:
        return {"clients": 1, "bs": "4k", "iodepth": 4, "mib_s": 1.5,
                "client": {"iops": iops, "read_lat_ms": {"p95": p95}, "write_lat_ms": {}}}  # fmt: skip

    row = {"phase": "RT", "kind": "sweep", "rw": "randread"}
    stacks = {
        "bare-lun": {"phases": [{**row, "points": [point(400.0, 30.0)]}]},
        "arcvsa": {"phases": [{**row, "points": [point(2000.0, 2.5)]}]},
    }
    lines = report.sweeps(stacks)
    assert lines[0].startswith("  sweep RT (randread)")
    assert "1x 4k qd4" in lines[2] and "400.0 / 1.5 / 30.0" in lines[2] and "2,000 / 1.5 / 2.5" in lines[2]


def test_poisson_rates_are_whole_iops_of_the_smallest_block() -> None:
    """fio's Poisson pacing divides the byte rate by the smallest block (integer division)."""
    assert job.poisson_rate(8, "4k/50:8k/50") == 8 * 4096  # not 8 x 6K: that ran 12 writes/s
    assert job.poisson_rate(0.6, "16k/100") == 16384  # at least one I/O a second: 0 kills fio
    assert job.poisson_rate(2.4, "4k/50:8k/50") == 2 * 4096
    assert job.poisson_rate(32, "512/10:1k/5:64k/85") == 32 * 512
    assert job.poisson_rate(0, "4k/100") == 0


LATER = 1e12  # a monotonic time after any real one


class _Flushing(Stack):
    """A stack that logs when its writes are flushed and its counters read."""

    def __init__(self) -> None:
        super().__init__(san=None)  # type: ignore[arg-type]
        self.log: list[str] = []

    def flush(self) -> None:
        self.log.append("flush")

    def counters(self) -> Counters:
        self.log.append("counters")
        return Counters(at=LATER + len(self.log))


def test_a_phase_is_measured_between_flushes_and_timed_by_its_load() -> None:
    stack = _Flushing()
    before = opening(stack)  # the layout before the phase: flushed, so not charged to it
    assert stack.log == ["flush", "counters"] and before.at == LATER + 2
    after = closing(stack)  # the phase's own deferred writes: flushed, so charged to it
    assert stack.log[2:] == ["flush", "counters"]
    assert after.at < LATER, "the phase's time ends when its load ends, not after the flush"


def _sweeping(fio: Callable[[str], dict[str, object]]) -> tuple[Run, _Flushing, list[str]]:
    """A run whose fio is ``fio`` by job name, on a stack that logs its flushes and counters."""
    run = Run.__new__(Run)
    run.gold = Golden(Path("replica"), 1 << 30, SAMPLES, [])
    calls: list[str] = []

    def recorded(name: str, text: str, timeout: float) -> dict[str, object]:
        calls.append(name)
        return fio(name)

    run.fio = recorded  # type: ignore[method-assign]
    return run, _Flushing(), calls


def test_a_sweep_point_that_hangs_once_is_run_again_from_fresh_counters() -> None:
    phase = load_workload("hcibench-sweep").phases[0]
    hung = f"arcvsa-hcibench-sweep-{phase.name}-2x4k-qd4"
    tries: list[str] = []

    def fio(name: str) -> dict[str, object]:
        if name == hung and not tries:
            tries.append(name)
            raise FioTimeout("fio did not end in 150 s", "")
        return _fio(4096, 0, 1, 0)

    run, stack, calls = _sweeping(fio)
    stack.name = "arcvsa"
    state = {"sweep_files": (max(phase.clients), phase.file_mib)}  # laid out by an earlier sweep
    row = run.sweep(stack, load_workload("hcibench-sweep"), phase, NFS, state)
    assert calls.count(hung) == 2 and len(calls) == len(job.sweep_points(phase)) + 1
    points = {f"{p['clients']}x{p['bs']}-qd{p['iodepth']}": p for p in row["points"]}
    assert points["2x4k-qd4"]["retried"] == "fio did not end in 150 s"
    assert [k for k, p in points.items() if "retried" in p] == ["2x4k-qd4"]
    # opening counters read once per try: the hung try's I/O is not charged to the point
    assert stack.log.count("counters") == 2 * len(points) + 1


def test_a_sweep_point_that_hangs_twice_stops_the_sweep() -> None:
    phase = load_workload("hcibench-sweep").phases[0]

    def fio(name: str) -> dict[str, object]:
        raise FioTimeout("fio did not end in 150 s", "")

    run, stack, calls = _sweeping(fio)
    stack.name = "arcvsa"
    state = {"sweep_files": (max(phase.clients), phase.file_mib)}
    with pytest.raises(FioTimeout):
        run.sweep(stack, load_workload("hcibench-sweep"), phase, NFS, state)
    assert len(calls) == 2  # the first point, twice: no later point runs on a client that hangs


def test_a_clones_boot_reads_the_replica_and_writes_within_its_delta() -> None:
    ops = [(0.0, "r", 0, 4096), (0.5, "w", 70 << 20, 8192), (1.0, "r", 2 << 30, 4096), (1.5, "w", 0, 4096)]
    placed = job.clone_ops(ops, 1 << 30, 64 << 20)
    assert placed == [
        (0.0, "r", 0, 4096),
        (0.5, "w", (70 << 20) % ((64 << 20) - 8192), 8192),
        (1.5, "w", 0, 4096),
    ]  # the read past the (cut) replica is left out; every write ends inside the delta
    assert all(off + n <= 64 << 20 for _, op, off, n in placed if op == "w")
    edge = job.clone_ops([(0.0, "r", (1 << 30) - 4096, 4096), (0.1, "r", (1 << 30) - 4095, 4096)], 1 << 30, 1)
    assert [off for _, _, off, _ in edge] == [(1 << 30) - 4096]  # ends at the replica's end: kept


def _clones(read: int, write: int, reads: int, writes: int, seconds: float) -> dict[str, object]:
    lat = {"p50": 1.0, "p95": 4.0, "p99": 8.0}
    return {
        "writes": "FILE_SYNC (libnfs, O_SYNC)",
        "read_bytes": read, "read_ios": reads, "read_lat_ms": lat,
        "write_bytes": write, "write_ios": writes, "write_lat_ms": lat,
        "seconds": seconds, "errors": [],
    }  # fmt: skip


def _san(at: float, rd: int, wr: int, rd_ops: int, wr_ops: int) -> Counters:
    return Counters(at, {"rd_bytes": rd, "wr_bytes": wr, "rd_ops": rd_ops, "wr_ops": wr_ops})


def test_a_recompose_counts_the_new_replica_and_aggregates_the_clones_writes_alone() -> None:
    gold = Golden(Path("replica"), 256 << 20, [], [])
    spec = next(p for p in load_workload("provisioning-storm").phases if p.kind == "recompose")
    stack = ApplianceStack.__new__(ApplianceStack)
    before = _san(0.0, 0, 0, 0, 0)
    middle = _san(40.0, 1 << 20, 140 << 20, 8, 140)  # the copy: 1 MiB writes at the LUN
    after = _san(100.0, 2 << 20, 156 << 20, 16, 148)  # the boot: 16 MiB in 8 writes of 2 MiB
    clones = _clones(512 << 20, 32 << 20, 8192, 4096, 50.0)  # 8 KiB writes
    row = metrics.phase(spec, stack, before, after, None, gold, compression=1.8, clones=clones, middle=middle)
    assert row["client"]["copied_bytes"] == 256 << 20 and row["client"]["write_bytes"] == (256 + 32) << 20
    assert row["write_offload"] == round(288 / 156, 2) and row["read_offload"] == 256.0
    assert row["write_aggregation"] == 256.0  # 2 MiB at the LUN for 8 KiB at the clients, while they booted
    assert row["client"]["write_ios"] == 4096 and row["client"]["iops"] == round(12288 / 50.0, 1)
    assert "compulsory_bound" not in row  # a new replica just written is in cache: no compulsory misses
    assert row["client"]["read_lat_ms"]["p95"] == 4.0 and row["client"]["writes"].startswith("FILE_SYNC")
    bare = metrics.phase(spec, Stack.__new__(Stack), Counters(0.0), Counters(100.0), None, gold,
                         compression=None, clones=clones, middle=Counters(40.0))  # fmt: skip
    assert bare["write_offload"] == bare["read_offload"] == 1.0 and bare["write_aggregation"] == 1.0


def test_storms_are_judged_against_the_nas_vm_and_recompose_against_the_seed() -> None:
    def row(name: str, kind: str, rd: float, wr: float, offload: float, **extra: object) -> dict[str, object]:
        lat = {"read_lat_ms": {"p95": rd}, "write_lat_ms": {"p95": wr}, "write_bytes": 100}
        return {"phase": name, "kind": kind, "client": lat, "san": {"write_bytes": 100 / offload},
                "write_offload": offload, **extra}  # fmt: skip

    ours = [
        {"phase": "copy", "kind": "copy", "client": {"write_bytes": 1000}, "san": {"write_bytes": 400}},
        row("clone-boot", "trace", 20.0, 40.0, 2.0),
        row("recompose", "recompose", 10.0, 50.0, 3.0, read_offload=1400.0, write_aggregation=13.9),
    ]
    nas = [row("clone-boot", "trace", 10.0, 40.0, 2.5), row("recompose", "recompose", 10.0, 100.0, 1.0)]
    results = {"provisioning-storm": {"arcvsa": {"phases": ours}, "nas-xfs": {"phases": nas}}}
    found = {t["target"]: t for t in report.targets(results)}
    assert found["clone-boot p95 read ms / NAS VM's"] == {
        "target": "clone-boot p95 read ms / NAS VM's", "measured": 2.0, "goal": "<= 1", "met": False}  # fmt: skip
    assert found["clone-boot p95 write ms / NAS VM's"]["met"] is True  # equal is at or below
    assert found["clone-boot write offload / NAS VM's"]["measured"] == 0.8
    assert found["recompose p95 write ms / NAS VM's"]["measured"] == 0.5
    assert found["recompose write offload / NAS VM's"]["met"] is True
    assert found["boot p95 read ms / NAS VM's"]["met"] is None  # no boot storm in this run
    assert (
        found["recompose read offload"]["met"] is True
        and found["recompose write aggregation"]["met"] is False
    )
    # the whole provisioning is the copy and the clones' boot: the recompose is a second one
    assert found["whole-provisioning write offload"]["measured"] == round(1100 / 450, 2)
    assert found["whole-provisioning write offload"]["met"] is False
    (line,) = report.recomposes({"arcvsa": {"phases": [{**ours[2], "client": {"copied_bytes": 1 << 30}}]}})
    assert "1,024 MiB" in line and "read offload 1,400x (seed 004: 1360x)" in line and "13.9x" in line


def test_an_ab_run_has_arcvsa_as_shipped_and_arcvsa_b_with_the_overrides(tmp_path: Path) -> None:
    san = San(tmp_path, [])
    both = stacks.Overrides(properties={"compression": "lz4"}, nfs_backend="knfsd", ab=True)
    args = (san, tmp_path / "img", tmp_path / "key", tmp_path, 4096, both)
    a, b = stacks.make_stack("arcvsa", *args), stacks.make_stack(stacks.AB_STACK, *args)
    assert isinstance(a, stacks.Arcvsa) and isinstance(b, stacks.Arcvsa)
    assert (a.name, a.nfs_backend, a.overrides) == ("arcvsa", "ganesha", stacks.Overrides())
    assert (b.name, b.nfs_backend, b.overrides) == ("arcvsa-b", "knfsd", both)
    assert b.label == "arcvsa B (overrides)" and b.directory == tmp_path / "arcvsa-b"
    alone = stacks.make_stack("arcvsa", *args[:5], stacks.Overrides(nfs_backend="knfsd"))
    assert isinstance(alone, stacks.Arcvsa) and alone.nfs_backend == "knfsd"  # no --ab: arcvsa itself


def test_density_lines_name_where_each_count_was_measured() -> None:
    found = {"desktops_supported": 9, "stop_reason": "p95 over 20 ms"}
    row = {"phase": "density", "kind": "calibrate", "threshold_ms": 20.0, "bare": found,
           "dataset": {**found, "desktops_supported": 49}, "density_ratio": 5.44}  # fmt: skip
    lines = report.density({"arcvsa": {"phases": [row, {"phase": "x", "kind": "calibrate", "skipped": "-"}]}})
    assert lines == [
        "  desktops supported at p95 <= 20 ms: 9 on free LUN of the array (bare) (p95 over 20 ms)",
        "  desktops supported at p95 <= 20 ms: 49 on arcvsa (tuned) dataset (p95 over 20 ms)",
        "  density through arcvsa / bare LUN: 5.44x",
    ]
