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
