"""The steady state's FILE_SYNC desktop writers (bench.syncwrite): what each write is made of, where it
lands and how its latency is reported. The writes themselves go to the lab appliance in bench's smoke run
(tests/lab/test_bench_smoke.py); here: the host's libnfs, the mix, the spread, the bytes."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bench import metrics, replay, report, syncwrite
from bench.runner import Golden
from bench.stack import ApplianceStack, Counters, WriteModel
from bench.workload import load_workload


def test_the_hosts_libnfs_is_the_one_whose_calls_the_writer_knows() -> None:
    lib = syncwrite.libnfs()
    assert lib._name.endswith(".so.13")  # libnfs 4: nfs_pwrite(nfs, fh, offset, count, buf)
    calls = ("nfs_mount", "nfs_open", "nfs_pwrite", "nfs_close", "nfs_destroy_context")
    assert all(hasattr(lib, call) for call in calls)  # each a symbol of the loaded library


def test_block_size_mixes_are_whole_guest_blocks() -> None:
    assert syncwrite.sizes("4k/50:8k/50") == [(4096, 50), (8192, 50)]
    assert syncwrite.sizes("64k") == [(65536, 100)]
    with pytest.raises(syncwrite.SyncWriteError, match="whole 4096-byte blocks"):
        syncwrite.sizes("512/50:4k/50")


def test_a_zipf_spread_has_hot_blocks_scattered_over_the_delta() -> None:
    blocks = 4096
    offsets = syncwrite.Offsets(blocks, "zipf:1.1", random.Random(1))
    drawn = Counter(offsets.next() for _ in range(20000))
    hottest, count = drawn.most_common(1)[0]
    assert hottest == offsets.place[0] and count > 20000 * 0.1  # rank 1 takes over a tenth of the writes
    assert offsets.place != sorted(offsets.place)  # ranks are scattered, not block order
    top = sum(c for _, c in drawn.most_common(blocks // 100))
    assert top > 20000 * 0.5  # the hottest 1 % of blocks take most writes
    uniform = syncwrite.Offsets(blocks, "random", random.Random(1))
    spread = Counter(uniform.next() for _ in range(20000))
    assert max(spread.values()) < 30 and all(0 <= b < blocks for b in spread)
    with pytest.raises(syncwrite.SyncWriteError):
        syncwrite.Offsets(blocks, "pareto:0.9", random.Random(1))


def test_each_write_is_an_aligned_slice_of_the_golden_samples(tmp_path: Path) -> None:
    samples = []
    for i in range(2):
        path = tmp_path / f"delta-{i:02d}.bin"
        path.write_bytes(b"".join((i * 64 + b).to_bytes(4, "big") * 1024 for b in range(64)))  # 4K apart
        samples.append(path)
    pool = b"".join(p.read_bytes() for p in samples)
    data = syncwrite.Bytes(syncwrite.pool(samples), random.Random(3))
    slices = [data.slice(8192) for _ in range(200)]
    assert all(len(s) == 8192 and pool.find(s) % syncwrite.BLOCK == 0 for s in slices)
    assert len(set(slices)) > 10  # a different slice per write, not one repeated buffer
    tiny = tmp_path / "tiny.bin"
    tiny.write_bytes(b"x" * 4096)
    with pytest.raises(syncwrite.SyncWriteError, match="too small"):
        syncwrite.pool([tiny])


def test_latency_percentiles_are_nearest_rank_in_ms() -> None:
    ns = sorted(i * 1_000_000 for i in range(1, 101))  # 1..100 ms
    assert syncwrite.percentile_ms(ns, 50) == 50.0 and syncwrite.percentile_ms(ns, 99) == 99.0
    assert syncwrite.percentile_ms([], 95) is None


def test_a_phase_takes_the_sync_writers_figures_in_place_of_fios_writes() -> None:
    spec = load_workload("steady-state").phases[0]
    gold = Golden(Path("replica"), 1 << 30, [], [])
    before = Counters(0.0, {"rd_bytes": 0, "wr_bytes": 0, "rd_ops": 0, "wr_ops": 0}, {}, {})
    after = Counters(90.0, {"rd_bytes": 4 << 20, "wr_bytes": 6 << 20, "rd_ops": 64, "wr_ops": 48}, {}, {})
    fio: dict[str, Any] = {"jobs": [{d: _dir(0 if d == "write" else 2 << 20) for d in ("read", "write")}]}
    writes = {
        "writes": "FILE_SYNC (libnfs, O_SYNC)",
        "write_ios": 1536,
        "write_bytes": 12 << 20,
        "write_lat_ms": {"p50": 1.5, "p95": 4.0, "p99": 9.0},
        "errors": [],
        "extents": [[(0.5, 0, 4096)]],
    }
    stack = ApplianceStack.__new__(ApplianceStack)
    row = metrics.phase(spec, stack, before, after, fio, gold, compression=1.6, writes=writes)
    assert row["client"]["write_bytes"] == 12 << 20 and row["client"]["write_lat_ms"]["p95"] == 4.0
    assert row["client"]["writes"].startswith("FILE_SYNC") and row["write_offload"] == 2.0
    assert row["client"]["read_bytes"] == 2 << 20  # the readers are still fio's
    assert "write_bound" not in row  # no model: no bound
    assert "extents" not in row["client"] and "extents" in writes  # the log stays out of the JSON


def test_the_write_bound_counts_each_dirtied_record_once_per_txg() -> None:
    kib = 1024
    desktop_a = [
        (0.5, 0, 4 * kib),  # record 0
        (1.0, 4 * kib, 8 * kib),  # 4K-12K: record 0 still
        (4.9, 12 * kib, 8 * kib),  # 12K-20K: records 0 and 1
        (5.1, 0, 4 * kib),  # the next txg: record 0 again
    ]
    desktop_b = [(0.2, 0, 4 * kib)]  # another file: its own record 0
    assert metrics.dirtied([desktop_a, desktop_b], 16 * kib, 5.0) == (2 + 1 + 1) * 16 * kib
    assert metrics.dirtied([desktop_a, desktop_b], 16 * kib, 10.0) == (2 + 1) * 16 * kib
    assert metrics.dirtied([desktop_a], 4 * kib, 5.0) == (1 + 2 + 2 + 1) * 4 * kib

    spec = load_workload("steady-state").phases[0]
    gold = Golden(Path("replica"), 1 << 30, [], [])
    before = Counters(0.0, {"rd_bytes": 0, "wr_bytes": 0, "rd_ops": 0, "wr_ops": 0}, {}, {})
    after = Counters(90.0, {"rd_bytes": 0, "wr_bytes": 96 * kib, "rd_ops": 0, "wr_ops": 3}, {}, {})
    fio: dict[str, Any] = {"jobs": [{d: _dir(0) for d in ("read", "write")}]}
    writes = {
        "writes": "FILE_SYNC (libnfs, O_SYNC)",
        "write_ios": 5,
        "write_bytes": 28 * kib,
        "write_lat_ms": {"p50": 1.0, "p95": 2.0, "p99": 3.0},
        "errors": [],
        "extents": [desktop_a, desktop_b],
    }
    model = WriteModel(record_bytes=16 * kib, txg_seconds=5.0)
    stack = ApplianceStack.__new__(ApplianceStack)
    row = metrics.phase(spec, stack, before, after, fio, gold, compression=2.0, writes=writes, model=model)
    assert row["dirtied_bytes"] == 64 * kib and row["write_model"]["txg_seconds"] == 5.0
    # 28 KiB written, 64 KiB of records dirtied, stored at 1/2: at best 28 / 32 on the LUN
    assert row["write_bound"] == round(28 / 32, 2) and row["write_offload"] == round(28 / 96, 2)
    assert "extents" not in row["client"]
    line = report.write_bounds({"arcvsa": {"phases": [row]}})
    assert line and "16K records, 5 s txgs" in line[0] and "0.88x bound" in line[0]


def _dir(io_bytes: int) -> dict[str, Any]:
    ios = io_bytes // 16384
    return {"io_bytes": io_bytes, "total_ios": ios, "clat_ns": {"percentile": {"95.000000": 2e6}}}


def test_a_desktop_that_cannot_reach_its_server_says_so(tmp_path: Path) -> None:
    sample = tmp_path / "s.bin"
    sample.write_bytes(bytes(range(256)) * 64)
    plan = syncwrite.Plan(
        url="nfs://127.0.0.1/tank/vdi?nfsport=9&mountport=9",  # nothing listens on port 9 here
        files=["delta-000.raw"],
        seconds=1,
        iops=5,
        sizes=[(4096, 100)],
        delta_bytes=1 << 20,
        spread="random",
        samples=[sample],
    )
    writers = syncwrite.Desktops(plan)
    writers.start()
    result = writers.join()
    assert result["write_ios"] == 0 and result["errors"] and "mount" in result["errors"][0]


def test_a_clone_that_cannot_reach_its_server_says_so(tmp_path: Path) -> None:
    sample = tmp_path / "s.bin"
    sample.write_bytes(bytes(range(256)) * 64)
    plan = replay.Plan(
        url="nfs://127.0.0.1/tank/vdi?nfsport=9&mountport=9",  # nothing listens on port 9 here
        replica="replica.raw",
        deltas=["delta-000.raw", "delta-001.raw"],
        ops=[(0.0, "r", 0, 4096), (0.1, "w", 0, 4096)],
        samples=[sample],
    )
    clones = replay.Clones(plan)
    clones.start()
    result = clones.join(timeout=120)
    assert result["read_ios"] == result["write_ios"] == 0 and result["read_lat_ms"] == {}
    assert len(result["errors"]) == 2 and all("mount" in e for e in result["errors"])
