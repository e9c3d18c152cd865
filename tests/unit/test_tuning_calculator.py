"""The sizing calculator: ARC, L2ARC, SLOG, module parameters, offload; each value with its why."""

from __future__ import annotations

import pytest
from zfs_tuning import calculator as calc
from zfs_tuning.calculator import GIB, MIB, SizingInput, plan


def sizing(**overrides: object) -> SizingInput:
    base: dict[str, object] = {
        "pool_type": "stateless-linked",
        "desktops": 100,
        "desktop_gib": 5,
        "golden_gib": 40,
        "ram_gib": 16,
        "l2arc_ssd_gib": 200,
        "slog_ssd_gib": 8,
        "write_mib_s": 50,
    }
    return SizingInput.model_validate(base | overrides)


def test_arc_leaves_room_for_the_system() -> None:
    arc_max, arc_min, reserve = calc.arc_sizes(16 * GIB)
    assert arc_max + reserve == 16 * GIB
    assert reserve == int(0.2 * 16 * GIB)
    assert arc_min == arc_max // 4
    small_max, _, small_reserve = calc.arc_sizes(4 * GIB)
    assert small_reserve == int(1.5 * GIB) and small_max == int(2.5 * GIB)


def test_slog_is_write_rate_times_txg_times_three_with_margin() -> None:
    # 50 MiB/s x 5 s x 3 x 1.5 = 1125 MiB -> 2 GiB
    assert calc.slog_bytes(50, 5) == 2 * GIB
    assert calc.slog_bytes(1, 5) == 1 * GIB
    assert calc.slog_bytes(400, 5) == 9 * GIB


def test_plan_has_every_figure_with_a_why() -> None:
    result = plan(sizing())
    names = [r.name for r in result.recommendations]
    for wanted in (
        "zfs_arc_max",
        "zfs_arc_min",
        "l2arc_size",
        "l2arc_write_max",
        "slog_size",
        "zfs_txg_timeout",
        "recordsize",
        "zfs_prefetch_disable",
        "expected_read_offload",
        "zio_dva_throttle_enabled",
    ):
        assert wanted in names
    assert all(r.why for r in result.recommendations)
    assert result.module["zfs_arc_max"] == calc.arc_sizes(16 * GIB)[0]
    # SAN LUNs: no allocation throttle holding a txg's blocks back from the vdev queue's merging
    assert result.module["zio_dva_throttle_enabled"] == 0
    assert result.dataset["sync"] == "standard"
    assert result.dataset["recordsize"] == "16K"
    assert result.warnings == []


def test_l2arc_is_capped_by_header_cost_with_a_warning() -> None:
    result = plan(sizing(ram_gib=4, l2arc_ssd_gib=2000))
    l2arc = next(r.value for r in result.recommendations if r.name == "l2arc_size")
    arc_max = result.module["zfs_arc_max"]
    assert isinstance(l2arc, int) and l2arc < 2000 * GIB
    assert l2arc / (16 * 1024) * calc.L2ARC_HEADER_BYTES <= arc_max / 8 + 1
    assert any("crowd the ARC" in w for w in result.warnings)


def test_feed_rate_is_bounded() -> None:
    assert plan(sizing(l2arc_ssd_gib=1)).module["l2arc_write_max"] == 8 * MIB
    assert plan(sizing(l2arc_ssd_gib=200)).module["l2arc_write_max"] == 64 * MIB
    assert plan(sizing(l2arc_ssd_gib=0)).module["l2arc_write_boost"] == 16 * MIB


def test_missing_or_small_slog_is_warned() -> None:
    assert any("no SLOG" in w for w in plan(sizing(slog_ssd_gib=0)).warnings)
    assert any("smaller than" in w for w in plan(sizing(slog_ssd_gib=1, write_mib_s=200)).warnings)


def test_offload_grows_with_cache_and_shrinks_with_desktops() -> None:
    small = plan(sizing(ram_gib=4, l2arc_ssd_gib=0, desktops=500)).expected_read_offload
    big = plan(sizing(ram_gib=64, l2arc_ssd_gib=400, desktops=500)).expected_read_offload
    assert 1 <= small < big <= 100


def test_linked_clones_count_the_golden_image_once() -> None:
    linked = plan(sizing(pool_type="stateless-linked"))
    full = plan(sizing(pool_type="persistent-full"))
    assert linked.hot_set_bytes == int((100 * 5 * GIB * 0.1 + 40 * GIB) / 1.7)
    assert full.hot_set_bytes == int(100 * 5 * GIB * 0.1 / 1.7)


def test_dedup_table_cost() -> None:
    assert calc.dedup_table_bytes(1 * GIB, 16384) == 65536 * 320


@pytest.mark.parametrize("field,value", [("desktops", 0), ("ram_gib", 1), ("pool_type", "raid0")])
def test_bad_inputs_are_refused(field: str, value: object) -> None:
    with pytest.raises(ValueError):
        sizing(**{field: value})


# ---- each applied module parameter by name and value, each formula against a value worked by hand ----


def _rec(result: calc.Plan, name: str) -> calc.Recommendation:
    return next(r for r in result.recommendations if r.name == name)


def test_every_module_parameter_by_name_and_value() -> None:
    """stateless-linked, 100 x 5 GiB + 40 GiB golden, 16 GiB RAM, 20 GiB L2ARC, 2 GiB SLOG, 50 MiB/s."""
    result = plan(sizing(l2arc_ssd_gib=20, slog_ssd_gib=2))
    assert result.module == {
        # reserve 20 % of 16 GiB = 3.2 GiB = 3435973836 B; ARC = 17179869184 - 3435973836
        "zfs_arc_max": 13743895348,
        # a quarter of the ARC: 13743895348 // 4
        "zfs_arc_min": 3435973837,
        # 20 GiB / 600 s = 21474836480 // 600 (34.1 MiB: between the 8 and 64 MiB bounds)
        "l2arc_write_max": 35791394,
        "l2arc_write_boost": 71582788,
        "l2arc_noprefetch": 0,  # stateless-linked.yaml: prefetched replica blocks belong on the SSD
        "zfs_prefetch_disable": 0,
        "zfs_txg_timeout": 5,
        "l2arc_rebuild_enabled": 1,  # a reboot keeps the warm SSD cache
        "zio_dva_throttle_enabled": 0,
    }
    assert result.pool_type == "stateless-linked"
    # 2 GiB of log SSD is exactly the 2 GiB needed (1125 MiB rounded up): no warning at the edge
    assert result.warnings == []


def test_other_profiles_apply_their_own_prefetch_choices() -> None:
    generic = plan(sizing(pool_type="generic"))
    assert generic.module["l2arc_noprefetch"] == 1 and generic.module["zfs_prefetch_disable"] == 0
    assert _rec(generic, "l2arc_noprefetch").value == 1
    assert _rec(generic, "recordsize").value == "64K"


def test_recommendations_in_ui_order_with_values() -> None:
    result = plan(sizing(l2arc_ssd_gib=20, slog_ssd_gib=2))
    assert [r.name for r in result.recommendations] == [
        "zfs_arc_max",
        "zfs_arc_min",
        "l2arc_size",
        "l2arc_write_max",
        "l2arc_write_boost",
        "slog_size",
        "zfs_txg_timeout",
        "recordsize",
        "zfs_prefetch_disable",
        "l2arc_noprefetch",
        "zio_dva_throttle_enabled",
        "expected_read_offload",
    ]
    values = {r.name: r.value for r in result.recommendations}
    assert values == {
        "zfs_arc_max": 13743895348,
        "zfs_arc_min": 3435973837,
        "l2arc_size": 20 * GIB,  # under the cap (12.8 GiB ARC / 8 / 96 B x 16K = 273 GiB)
        "l2arc_write_max": 35791394,
        "l2arc_write_boost": 71582788,
        "slog_size": 2 * GIB,  # 50 MiB/s x 5 s x 3 x 1.5 = 1125 MiB, rounded up to whole GiB
        "zfs_txg_timeout": 5,
        "recordsize": "16K",
        "zfs_prefetch_disable": 0,
        "l2arc_noprefetch": 0,
        "zio_dva_throttle_enabled": 0,
        # hot set (50 + 40) GiB / 1.7 = 52.94 GiB; cache 12.8 + 20 = 32.8 GiB;
        # hits 32.8 / 52.94 x 0.99 = 0.6134; 1 / (1 - 0.6134) = 2.59 -> 2.6
        "expected_read_offload": 2.6,
    }
    assert result.expected_read_offload == 2.6
    # (100 x 5 x 0.1 + 40) GiB = 96636764160 B, / 1.7
    assert result.hot_set_bytes == 56845155388


def test_whys_carry_the_figures_they_explain() -> None:
    result = plan(sizing(l2arc_ssd_gib=20, slog_ssd_gib=2))
    assert _rec(result, "zfs_arc_max").why.startswith("RAM minus 3.2 GiB for the OS")
    assert _rec(result, "l2arc_size").why.startswith(
        "20.0 GiB of SSD: headers cost 96 B of ARC per 16K record"
    )
    assert _rec(result, "l2arc_write_max").why.startswith("34 MiB per feed interval")
    assert _rec(result, "slog_size").why == "50 MiB/s x 5 s txg x 3 txgs in flight x 1.5 margin."
    assert _rec(result, "expected_read_offload").why == (
        "Hot set 52.9 GiB (compressed) vs 32.8 GiB of cache: ~61% of reads never reach the SAN."
    )
    profile = calc.load("stateless-linked")
    for name in ("zfs_txg_timeout", "recordsize", "zfs_prefetch_disable", "l2arc_noprefetch"):
        assert _rec(result, name).why == profile.why[name]


def test_l2arc_cap_is_an_eighth_of_the_arc_in_headers() -> None:
    result = plan(sizing(ram_gib=4, l2arc_ssd_gib=2000))
    # ARC 4 - 1.5 = 2.5 GiB; 1/8 of it = 320 MiB of headers; / 96 B = 3495253.3 records;
    # x 16 KiB = 2.5 x 2^30 x 16384 / 768 = 160/3 GiB = 57266230613.3 B
    assert _rec(result, "l2arc_size").value == 57266230613
    # 53.3 GiB / 600 s = 91 MiB per feed: held at the 64 MiB ceiling
    assert result.module["l2arc_write_max"] == 64 * MIB
    assert result.module["l2arc_write_boost"] == 128 * MIB
    assert result.warnings == [
        "only 53.3 GiB of the 2000 GiB cache SSD is worth using: "
        "more L2ARC headers would crowd the ARC (add RAM to use it all)"
    ]
    assert _rec(result, "l2arc_size").why.startswith("53.3 GiB of SSD")
    # cache 2.5 + 53.3 GiB covers the 52.9 GiB hot set: hits cap at 99 %, 1 / 0.01 = 100
    assert result.expected_read_offload == 100.0


def test_smallest_appliance_without_caches() -> None:
    """generic (hot 20 %, own blocks only), 10 x 1 GiB, 2 GiB RAM, no SSDs, default write rate."""
    inp = SizingInput.model_validate(
        {"pool_type": "generic", "desktops": 10, "desktop_gib": 1, "golden_gib": 40, "ram_gib": 2,
         "compression_ratio": 1}
    )  # fmt: skip
    result = plan(inp)
    # reserve 1.5 GiB (20 % of 2 GiB is less); ARC 512 MiB; a quarter is 128 MiB, the floor itself
    assert result.module["zfs_arc_max"] == 512 * MIB
    assert result.module["zfs_arc_min"] == 128 * MIB
    assert _rec(result, "l2arc_size").value == 0
    # no L2ARC: the feed stays at its 8 MiB floor, boost twice that
    assert result.module["l2arc_write_max"] == 8 * MIB
    assert _rec(result, "l2arc_write_max").value == 8 * MIB
    assert _rec(result, "l2arc_write_boost").value == 16 * MIB
    assert _rec(result, "l2arc_size").why.startswith(
        "0.0 GiB of SSD: headers cost 96 B of ARC per 64K record"
    )
    # default 20 MiB/s x 5 s x 3 x 1.5 = 450 MiB -> 1 GiB
    assert _rec(result, "slog_size").value == GIB
    assert result.warnings == ["no SLOG: ESXi's synchronous NFS writes will wait for the SAN LUNs"]
    # 10 x 1 GiB x 0.2, uncompressed = 2 GiB; no golden image counted
    assert result.hot_set_bytes == 2 * GIB
    # 512 MiB / 2 GiB = 0.25 x 0.99 = 0.2475; 1 / 0.7525 = 1.329 -> 1.3
    assert result.expected_read_offload == 1.3


def test_a_profile_without_recordsize_sizes_with_the_zfs_default(monkeypatch: pytest.MonkeyPatch) -> None:
    generic = calc.load("generic")
    bare = generic.model_copy(update={"dataset": generic.dataset.model_copy(update={"recordsize": None})})
    monkeypatch.setattr(calc, "load", lambda kind: bare)
    result = plan(sizing(pool_type="generic", ram_gib=4, l2arc_ssd_gib=2000))
    assert _rec(result, "recordsize").value == "128K"
    assert "recordsize" not in result.dataset
    # 2.5 GiB ARC / 8 / 96 B x 128 KiB = 2.5 x 128 / 768 GiB = 1280/3 GiB = 458129844906.7 B
    assert _rec(result, "l2arc_size").value == 458129844906
    assert "per 128K record" in _rec(result, "l2arc_size").why


def test_largest_records_stretch_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    generic = calc.load("generic")
    large = generic.model_copy(update={"dataset": generic.dataset.model_copy(update={"recordsize": "1M"})})
    monkeypatch.setattr(calc, "load", lambda kind: large)
    result = plan(sizing(pool_type="generic", ram_gib=4, l2arc_ssd_gib=2000))
    # 2.5 GiB ARC / 8 / 96 B x 1 MiB = 2.5 x 1024 / 768 GiB = 3413 GiB: all 2000 GiB are worth using
    assert _rec(result, "l2arc_size").value == 2000 * GIB
    assert result.warnings == []
    assert "per 1024K record" in _rec(result, "l2arc_size").why


def test_a_choice_without_a_why_gets_no_made_up_one(monkeypatch: pytest.MonkeyPatch) -> None:
    mute = calc.load("generic").model_copy(update={"why": {}})
    monkeypatch.setattr(calc, "load", lambda kind: mute)
    result = plan(sizing(pool_type="generic"))
    assert _rec(result, "zfs_txg_timeout").why == "profile default"
    for name in ("recordsize", "zfs_prefetch_disable", "l2arc_noprefetch"):
        assert _rec(result, name).why == ""


def test_slog_warning_names_both_sizes() -> None:
    result = plan(sizing(slog_ssd_gib=1.5, write_mib_s=50))
    assert result.warnings == ["the log SSD (1.5 GiB) is smaller than the 2.0 GiB needed"]


def test_arc_floors_and_the_switch_to_a_fifth_of_ram() -> None:
    # 1 GiB: RAM minus 1.5 GiB is negative, so the ARC floors at 256 MiB and its minimum at 128 MiB
    assert calc.arc_sizes(GIB) == (256 * MIB, 128 * MIB, 3 * GIB // 2)
    # 8 GiB: a fifth (1.6 GiB = 1717986918 B) beats 1.5 GiB; ARC 6.4 GiB; min a quarter of it
    assert calc.arc_sizes(8 * GIB) == (6871947674, 1717986918, 1717986918)


def test_slog_never_below_one_gib() -> None:
    assert calc.slog_bytes(0, 5) == GIB
    # 100 MiB/s x 30 s x 3 x 1.5 = 13500 MiB = 13.2 GiB -> 14 GiB
    assert calc.slog_bytes(100, 30) == 14 * GIB


def test_dedup_table_rounds_a_partial_block_up() -> None:
    # 16385 B in 16 KiB blocks is 2 blocks: 2 x 320 B
    assert calc.dedup_table_bytes(16385, 16384) == 640


def test_hit_ratio_by_hand() -> None:
    assert calc.hit_ratio(1, 2) == pytest.approx(0.495)  # half the hot set cached, x 0.99
    assert calc.hit_ratio(0, GIB) == 0
    assert calc.hit_ratio(0, 1) == 0  # even a one-byte hot set misses without a cache
    assert calc.hit_ratio(3 * GIB, GIB) == 0.99  # more cache than hot set: the 99 % cap
    assert calc.hit_ratio(5, 0) == 0.99  # nothing hot: every read can hit


def test_sizing_input_defaults() -> None:
    inp = SizingInput(pool_type="generic", desktops=1, desktop_gib=1, golden_gib=1, ram_gib=2)  # type: ignore[arg-type]
    assert (inp.l2arc_ssd_gib, inp.slog_ssd_gib, inp.write_mib_s, inp.compression_ratio) == (0, 0, 20, 1.7)


BOUNDS = [
    # field, largest/smallest accepted, first refused beyond it
    ("desktops", 1, 0),
    ("desktops", 100_000, 100_001),
    ("desktop_gib", 0.001, 0),
    ("desktop_gib", 65536, 65536.5),
    ("golden_gib", 0.001, 0),
    ("golden_gib", 65536, 65536.5),
    ("ram_gib", 2, 1.99),
    ("ram_gib", 65536, 65536.5),
    ("l2arc_ssd_gib", 0, -0.5),
    ("l2arc_ssd_gib", 1 << 20, (1 << 20) + 0.5),
    ("slog_ssd_gib", 0, -0.5),
    ("slog_ssd_gib", 1 << 20, (1 << 20) + 0.5),
    ("write_mib_s", 0, -0.5),
    ("write_mib_s", 1 << 20, (1 << 20) + 0.5),
    ("compression_ratio", 1, 0.99),
    ("compression_ratio", 100, 100.5),
]


@pytest.mark.parametrize("field,accepted,refused", BOUNDS)
def test_every_bound_at_its_edge(field: str, accepted: float, refused: float) -> None:
    assert getattr(sizing(**{field: accepted}), field) == accepted
    with pytest.raises(ValueError, match=field):
        sizing(**{field: refused})
