"""Rates, offload, aggregation and latency from cumulative counters: pure functions on sample pairs,
then on the counters the sampler recorded in the lab VM around real NFS I/O (ganesha and knfsd)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fixtures.appliance.replay import UnrecordedCommand, replay_log

from api.metrics import sampler, series
from api.metrics.schemas import ClientCounters, DatasetSpace, ExportCounters, LunCounters, Sample
from appliance.control import metrics
from appliance.control.errors import BadOutput
from appliance.control.nfs import knfsd

T0 = datetime(2026, 11, 22, 6, 0, tzinfo=UTC)
MIB = 1 << 20


def sample(seconds: float, **fields: object) -> Sample:
    base: dict[str, object] = {
        "t": T0 + timedelta(seconds=seconds),
        "arc_hits": 0,
        "arc_misses": 0,
        "l2_hits": 0,
        "l2_misses": 0,
        "arc_size": 1 << 30,
        "l2_size": 0,
    }
    return Sample.model_validate(base | fields)


def test_counter_growth_and_reset() -> None:
    assert series.delta(100, 250) == 150
    assert series.delta(100, 40) == 40  # reset (ganesha restarted): counted from zero since


def test_rates_offload_aggregation_and_latency_over_an_interval() -> None:
    before = sample(
        0,
        arc_hits=900,
        arc_misses=100,
        clients={
            "export:101": ClientCounters(read_ops=10, read_bytes=1 * MIB, write_ops=100, write_bytes=1 * MIB)
        },
        luns={"tank/vdb1": LunCounters(read_ops=5, read_bytes=MIB, write_ops=10, write_bytes=MIB)},
    )
    after = sample(
        10,
        arc_hits=1890,
        arc_misses=110,
        clients={"export:101": ClientCounters(read_ops=1290, read_bytes=41 * MIB, write_ops=2660, write_bytes=21 * MIB)},
        luns={
            "tank/vdb1": LunCounters(
                read_ops=6, read_bytes=MIB + (128 << 10), write_ops=30, write_bytes=6 * MIB, read_ms=9, write_ms=40
            ),
            "tank/vdc1": LunCounters(write_ops=20, write_bytes=5 * MIB, write_ms=60),  # appeared: from zero
        },
    )  # fmt: skip
    p = series.point(before, after)
    assert p is not None
    assert p.t == after.t
    assert p.arc_hit_ratio == pytest.approx(990 / 1000)
    assert p.l2_hit_ratio is None  # no L2ARC lookups in the interval
    assert p.client_read_bytes == pytest.approx(40 * MIB / 10)
    assert p.client_write_ops == pytest.approx(256)
    assert p.lun_read_bytes == pytest.approx((128 << 10) / 10)
    assert p.lun_write_bytes == pytest.approx(10 * MIB / 10)
    assert p.read_offload == pytest.approx(40 * MIB / (128 << 10))  # 320x
    assert p.write_offload == pytest.approx(2.0)
    # clients wrote 8 KiB on average, the LUNs got 256 KiB writes: 32x aggregation
    assert p.write_aggregation == pytest.approx((10 * MIB / 40) / (20 * MIB / 2560))
    assert p.lun_read_latency_ms == pytest.approx(9.0)
    assert p.lun_write_latency_ms == pytest.approx(100 / 40)
    assert p.client_latency_ms is None


def test_no_lun_traffic_leaves_offload_and_latency_unknown() -> None:
    before = sample(0, clients={"server": ClientCounters(read_ops=1, read_bytes=4096)})
    after = sample(10, clients={"server": ClientCounters(read_ops=2, read_bytes=8192)})
    p = series.point(before, after)
    assert p is not None
    assert p.read_offload is None and p.write_offload is None and p.write_aggregation is None
    assert p.lun_read_latency_ms is None and p.arc_hit_ratio is None
    assert p.client_read_bytes == pytest.approx(409.6)


def test_points_skip_pairs_out_of_time_order() -> None:
    samples = [sample(0), sample(10), sample(10), sample(20)]
    assert [p.t for p in series.points(samples)] == [T0 + timedelta(seconds=10), T0 + timedelta(seconds=20)]
    assert series.points(samples[:1]) == []


def test_compressratio_is_weighted_over_the_pools() -> None:
    s = sample(
        0,
        pool_roots=["a", "b"],
        datasets=[
            DatasetSpace(name="a", used=1, logical_used=200, compressratio=2.0),  # 100 physical
            DatasetSpace(name="b", used=1, logical_used=100, compressratio=1.0),  # 100 physical
            DatasetSpace(
                name="a/ds", used=1, logical_used=200, compressratio=4.0
            ),  # inside a: not counted twice
        ],
    )
    assert series.compressratio(s) == pytest.approx(1.5)
    assert series.compressratio(sample(0)) is None


def test_summary_cards_per_export() -> None:
    ds = DatasetSpace(name="tank/ds1", mountpoint="/tank/ds1", used=10, logical_used=18, compressratio=1.8)
    export = ExportCounters(export_id=101, path="/tank/ds1", dataset="tank/ds1")
    before = sample(0, clients={"export:101": ClientCounters()}, exports=[export], datasets=[ds])
    moved = export.model_copy(update={"read_bytes": 50 * MIB, "write_bytes": 5 * MIB})
    other = ExportCounters(export_id=102, path="/tank/gone")  # dataset not found, not counted
    after = sample(
        10,
        arc_hits=9,
        arc_misses=1,
        backend="ganesha",
        clients={"export:101": ClientCounters(read_bytes=50 * MIB, write_bytes=5 * MIB)},
        exports=[moved, other],
        datasets=[ds],
    )
    got = series.summary([before, after])
    assert got.t == after.t and got.backend == "ganesha" and got.arc_hit_ratio == pytest.approx(0.9)
    first, second = got.exports
    assert (first.export_id, first.dataset, first.compressratio, first.used, first.logical_used) == (
        101,
        "tank/ds1",
        1.8,
        10,
        18,
    )
    assert first.client_read_bytes == pytest.approx(5 * MIB) and first.client_write_bytes == pytest.approx(
        MIB / 2
    )
    assert second.dataset is None and second.client_read_bytes is None
    only_one = series.summary([after])
    assert only_one.exports[0].client_read_bytes is None and only_one.arc_hit_ratio is None
    empty = series.summary([])
    assert empty.t is None and empty.exports == []


def test_garbage_counters_are_bad_output() -> None:
    with pytest.raises(BadOutput):
        metrics.parse_diskstats("not a diskstats line\n")
    with pytest.raises(BadOutput):
        knfsd.parse_rpc_stats("rc 0 0 0\nproc3 22 0\n")


# --- the counters the sampler read in the lab VM (tests/fixtures/appliance/record.py metrics_series) ---

WRITTEN = (4 << 20) + len(b"arcvsa metrics series, compressible half. ") * 100_000


def recorded(scenario: str, passes: int, root: Path) -> list[Sample]:
    gw, files, _ = replay_log(scenario, root)
    return [sampler.take(gw, files, T0 + timedelta(seconds=10 * i)) for i in range(passes)]


def test_sampler_reads_data_luns_and_ganesha_exports(tmp_path: Path) -> None:
    idle, written, read_warm, read_cold = recorded("metrics_series", 4, tmp_path)
    # two data LUNs; the SLOG and the L2ARC SSD are not LUN traffic
    assert len(idle.luns) == 2 and all(k.startswith("tank/") for k in idle.luns)
    assert idle.backend == "ganesha" and [e.export_id for e in idle.exports] == [101]
    assert idle.exports[0].dataset == "tank/ds1" and idle.pool_roots == ["tank"]
    assert {d.name for d in idle.datasets} == {"tank", "tank/ds1"}

    write = series.point(idle, written)
    assert write is not None
    # the client wrote the file once; the LUNs got it compressed (half of it compresses well)
    assert write.client_write_bytes * 10 >= WRITTEN
    assert 0 < write.lun_write_bytes * 10 < write.client_write_bytes * 10
    assert write.write_offload is not None and write.write_offload > 1.0
    assert write.lun_write_latency_ms is not None and write.lun_write_latency_ms > 0
    # ganesha timed the client's writes (its total ns per operation, from the recorded DBus replies)
    assert write.client_latency_ms is not None and write.client_latency_ms > 0
    assert series.compressratio(written) is not None and series.compressratio(written) > 1.2  # type: ignore[operator]

    warm = series.point(written, read_warm)
    assert warm is not None
    assert warm.client_read_bytes * 10 >= WRITTEN
    assert warm.read_offload is None or warm.read_offload > 10  # served from the ARC
    assert warm.arc_hit_ratio is not None and warm.arc_hit_ratio > 0.5

    cold = series.point(read_warm, read_cold)
    assert cold is not None
    assert cold.client_read_bytes * 10 >= WRITTEN  # a new ganesha export: its counters started again


def test_sampler_reads_the_kernel_servers_counters(tmp_path: Path) -> None:
    before, after = recorded("metrics_knfsd", 2, tmp_path)
    assert before.backend == after.backend == "knfsd" and set(after.clients) == {"server"}
    assert [(e.export_id, e.path, e.dataset) for e in after.exports] == [(102, "/tank/ds1", "tank/ds1")]
    p = series.point(before, after)
    assert p is not None
    assert p.client_write_bytes * 10 >= 2 << 20 and p.client_read_bytes * 10 >= 2 << 20
    assert p.client_write_ops > 0 and p.client_read_ops > 0
    assert p.client_latency_ms is None  # knfsd keeps no latency counter
    card = series.summary([before, after]).exports[0]
    assert card.client_read_bytes is None  # knfsd counts per server, not per export


def test_a_pass_beyond_the_recording_fails_loudly(tmp_path: Path) -> None:
    with pytest.raises(UnrecordedCommand):
        recorded("metrics_knfsd", 3, tmp_path)
