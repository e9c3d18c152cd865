"""The fleet's figures (api.fleet.figures): ratios from sums, weights, buckets, one rule at a time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from api.fleet import figures

T0 = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def point(seconds: float = 0, **values: Any) -> dict[str, Any]:
    return {"t": T0 + timedelta(seconds=seconds), **values}


def test_an_offload_is_summed_bytes_over_summed_bytes_never_a_mean_of_ratios() -> None:
    busy = point(client_read_bytes=100.0, lun_read_bytes=1.0, client_write_bytes=30.0, lun_write_bytes=10.0)
    idle = point(client_read_bytes=10.0, lun_read_bytes=10.0, client_write_bytes=0.0, lun_write_bytes=0.0)
    fleet = figures.combine([busy, idle], summed=True)
    assert fleet["read_offload"] == 10.0  # 110 / 11; the mean of 100x and 1x would say 50.5x
    assert fleet["write_offload"] == 3.0  # the idle appliance wrote nothing: no share in the ratio
    assert fleet["client_read_bytes"] == 110.0 and fleet["lun_read_bytes"] == 11.0


def test_an_offload_with_nothing_at_the_lun_is_unknown_not_infinite() -> None:
    cached = figures.combine([point(client_read_bytes=50.0, lun_read_bytes=0.0)], summed=False)
    assert cached["read_offload"] is None
    assert figures.combine([point()], summed=False)["write_offload"] is None


def test_rates_are_a_mean_over_time_and_a_sum_across_appliances() -> None:
    pts = [
        point(0, client_read_ops=10.0, lun_write_ops=2.0),
        point(10, client_read_ops=30.0, lun_write_ops=0.0),
    ]
    over_time = figures.combine(pts, summed=False)
    assert (over_time["client_iops"], over_time["lun_iops"]) == (20.0, 1.0)
    side_by_side = figures.combine(pts, summed=True)
    assert (side_by_side["client_iops"], side_by_side["lun_iops"]) == (40.0, 2.0)
    assert figures.combine([], summed=False)["client_iops"] == 0.0


def test_a_latency_is_weighted_by_the_operations_it_timed() -> None:
    fast = point(client_read_ops=90.0, client_write_ops=0.0, client_latency_ms=1.0, lun_read_ops=1.0,
                 lun_read_latency_ms=5.0)  # fmt: skip
    slow = point(client_read_ops=5.0, client_write_ops=5.0, client_latency_ms=11.0, lun_read_ops=3.0,
                 lun_read_latency_ms=9.0)  # fmt: skip
    both = figures.combine([fast, slow], summed=True)
    assert both["client_latency_ms"] == 2.0  # (90 x 1 + 10 x 11) / 100; unweighted it would be 6
    assert both["lun_read_latency_ms"] == 8.0  # (1 x 5 + 3 x 9) / 4
    assert both["lun_write_latency_ms"] is None  # no LUN write timed anywhere


def test_a_latency_not_counted_leaves_its_appliance_out_of_the_mean() -> None:
    knfsd = point(client_read_ops=1000.0, client_latency_ms=None)  # the kernel server times nothing
    ganesha = point(client_read_ops=10.0, client_latency_ms=4.0)
    assert figures.combine([knfsd, ganesha], summed=True)["client_latency_ms"] == 4.0
    assert figures.combine([knfsd], summed=True)["client_latency_ms"] is None


def test_hit_ratios_are_weighted_by_client_reads_and_idle_ones_fall_back_to_their_mean() -> None:
    reading = point(client_read_ops=99.0, arc_hit_ratio=1.0, l2_hit_ratio=None)
    missing = point(client_read_ops=1.0, arc_hit_ratio=0.0, l2_hit_ratio=0.5)
    assert figures.combine([reading, missing], summed=True)["arc_hit_ratio"] == 0.99
    assert figures.combine([reading, missing], summed=True)["l2_hit_ratio"] == 0.5
    idle = [point(client_read_ops=0.0, arc_hit_ratio=0.8), point(client_read_ops=0.0, arc_hit_ratio=0.4)]
    assert figures.combine(idle, summed=True)["arc_hit_ratio"] == pytest.approx(0.6)
    assert figures.combine([point()], summed=True)["arc_hit_ratio"] is None


def test_compression_is_the_mean_of_the_ratios_known() -> None:
    pts = [point(compressratio=1.5), point(compressratio=None), point(compressratio=2.0)]
    assert figures.combine(pts, summed=True)["compressratio"] == 1.75
    assert figures.combine([point()], summed=True)["compressratio"] is None


@pytest.mark.parametrize(
    ("minutes", "interval", "width"),
    [(5, 10.0, 10), (10, 10.0, 10), (11, 10.0, 11), (15, 10.0, 15), (60, 10.0, 60), (1440, 10.0, 1440),
     (60, 120.0, 120)],
)  # fmt: skip
def test_a_window_has_at_most_max_buckets_and_none_narrower_than_the_interval(
    minutes: int, interval: float, width: int
) -> None:
    assert figures.bucket_seconds(minutes, interval) == width
    assert minutes * 60 / width <= figures.MAX_BUCKETS or width == interval


def test_buckets_line_up_on_the_epoch_and_average_their_points() -> None:
    pts = [point(0, client_read_ops=10.0), point(10, client_read_ops=20.0), point(20, client_read_ops=60.0)]
    got = figures.buckets(pts, 15)
    assert [b["t"] for b in got] == [T0, T0 + timedelta(seconds=15)]  # 12:00:00 is a multiple of 15 s
    assert [b["client_iops"] for b in got] == [15.0, 60.0]
    as_text = [{**p, "t": p["t"].isoformat()} for p in pts]  # as an appliance's JSON gives them
    assert figures.buckets(as_text, 15) == got
    late = figures.buckets([point(7, client_read_ops=1.0)], 15)
    assert late[0]["t"] == T0, "a point belongs to the bucket that holds it, whatever its second"


def test_the_fleet_series_sums_the_appliances_present_in_each_bucket() -> None:
    one = figures.buckets([point(0, client_read_ops=10.0), point(60, client_read_ops=10.0)], 60)
    two = figures.buckets([point(0, client_read_ops=5.0, lun_read_bytes=4.0, client_read_bytes=8.0)], 60)
    fleet = figures.fleet_series([one, two])
    assert [(p["appliances"], p["client_iops"]) for p in fleet] == [(2, 15.0), (1, 10.0)]
    assert fleet[0]["read_offload"] == 2.0 and fleet[1]["read_offload"] is None
    assert figures.fleet_series([]) == []
