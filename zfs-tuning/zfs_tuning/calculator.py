"""The pure sizing calculator: from the desktop pool and the appliance to module parameters and caches.

Every recommendation carries a one-line "why" for the wizard. Rules of thumb, stated where used:
- the OS, ganesha and the api keep max(1.5 GiB, 20 % of RAM); the ARC gets the rest;
- each L2ARC record costs ~96 bytes of ARC for its header (OpenZFS 2.x), so L2ARC is capped where
  headers would take more than 1/8 of the ARC;
- the ZIL holds at most ~3 transaction groups of sync writes (open, quiescing, syncing), so the SLOG
  needs write rate x txg timeout x 3, with 50 % margin;
- a classic dedup table entry costs ~320 bytes of RAM per unique block.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, Field

from zfs_tuning.profiles import load
from zfs_tuning.schema import DesktopPoolType, parse_size

GIB = 1 << 30
MIB = 1 << 20
L2ARC_HEADER_BYTES = 96
DDT_ENTRY_BYTES = 320
TXGS_IN_FLIGHT = 3
SLOG_MARGIN = 1.5
MAX_HIT = 0.99
# The allocation throttle off: an appliance's data vdevs are LUNs of one array (the recommendation says why).
DVA_THROTTLE = 0


class SizingInput(BaseModel):
    """What the wizard knows about the desktop pool and the appliance."""

    pool_type: DesktopPoolType = Field(description="desktop pool type (selects the profile)")
    desktops: int = Field(ge=1, le=100_000, description="number of desktops on this appliance")
    desktop_gib: float = Field(
        gt=0, le=65536, description="per desktop: its own bytes (delta disk or full clone), GiB"
    )
    golden_gib: float = Field(gt=0, le=65536, description="golden image size, GiB")
    ram_gib: float = Field(ge=2, le=65536, description="appliance memory, GiB")
    l2arc_ssd_gib: float = Field(
        0, ge=0, le=1 << 20, description="SSD space for the read cache, GiB (0: none)"
    )
    slog_ssd_gib: float = Field(0, ge=0, le=1 << 20, description="SSD space for the write log, GiB (0: none)")
    write_mib_s: float = Field(
        20, ge=0, le=1 << 20, description="expected peak sync write rate from the hosts, MiB/s"
    )
    compression_ratio: float = Field(
        1.7, ge=1, le=100, description="expected compression (whitepaper: 1.7-1.86x)"
    )


class Recommendation(BaseModel):
    """One value with its reason."""

    name: str = Field(description="module parameter, dataset property or derived figure")
    value: int | float | str = Field(description="the recommended value (bytes for sizes)")
    why: str = Field(description="one line for the UI")


class Plan(BaseModel):
    """The calculator's answer."""

    pool_type: DesktopPoolType = Field(description="the profile used")
    module: dict[str, int] = Field(description="module parameters to apply (name: value)")
    dataset: dict[str, str] = Field(description="dataset properties from the profile")
    recommendations: list[Recommendation] = Field(description="every value with its why, in UI order")
    hot_set_bytes: int = Field(description="bytes the desktops read again and again (compressed)")
    expected_read_offload: float = Field(description="client read bytes per SAN read byte in steady state")
    warnings: list[str] = Field(description="things the user should know before applying")


def _gib(value: float) -> str:
    return f"{value / GIB:.1f} GiB"


def arc_sizes(ram_bytes: int) -> tuple[int, int, int]:
    """(arc_max, arc_min, reserve) for an appliance with ``ram_bytes`` of memory."""
    reserve = max(int(1.5 * GIB), int(0.2 * ram_bytes))
    arc_max = max(256 * MIB, ram_bytes - reserve)
    arc_min = max(128 * MIB, arc_max // 4)
    return arc_max, arc_min, reserve


def slog_bytes(write_mib_s: float, txg_timeout: int) -> int:
    """SLOG size: write rate x txg timeout x txgs in flight x margin, rounded up to 1 GiB."""
    need = write_mib_s * MIB * txg_timeout * TXGS_IN_FLIGHT * SLOG_MARGIN
    return max(1, math.ceil(need / GIB)) * GIB


def dedup_table_bytes(unique_bytes: int, recordsize: int) -> int:
    """RAM the dedup table needs for ``unique_bytes`` of unique data in ``recordsize`` blocks."""
    return math.ceil(unique_bytes / recordsize) * DDT_ENTRY_BYTES


def hit_ratio(cache_bytes: int, hot_set_bytes: int) -> float:
    """Steady-state read hit ratio when a hot set of this size is read uniformly (capped at 99 %)."""
    if hot_set_bytes <= 0:
        return MAX_HIT
    return min(MAX_HIT, cache_bytes / hot_set_bytes * MAX_HIT)


def plan(inp: SizingInput) -> Plan:
    """Size ARC, L2ARC, SLOG and the module parameters for one appliance."""
    profile = load(inp.pool_type)
    recordsize = parse_size(profile.dataset.recordsize or "128K")
    ram = int(inp.ram_gib * GIB)
    arc_max, arc_min, reserve = arc_sizes(ram)
    recs = [
        Recommendation(
            name="zfs_arc_max",
            value=arc_max,
            why=f"RAM minus {_gib(reserve)} for the OS, ganesha and the api: the ARC is the fastest cache.",
        ),
        Recommendation(
            name="zfs_arc_min",
            value=arc_min,
            why="A quarter of the ARC kept under memory pressure so boot storms still hit RAM.",
        ),
    ]
    warnings: list[str] = []

    own = inp.desktops * inp.desktop_gib * GIB * profile.workload.hot_fraction
    golden = inp.golden_gib * GIB if profile.workload.shared_golden else 0
    hot_set = int((own + golden) / inp.compression_ratio)

    l2arc_cap = int(arc_max / 8 / L2ARC_HEADER_BYTES * recordsize)
    l2arc = min(int(inp.l2arc_ssd_gib * GIB), l2arc_cap)
    if inp.l2arc_ssd_gib and l2arc < inp.l2arc_ssd_gib * GIB:
        warnings.append(
            f"only {_gib(l2arc)} of the {inp.l2arc_ssd_gib:g} GiB cache SSD is worth using: "
            "more L2ARC headers would crowd the ARC (add RAM to use it all)"
        )
    recs.append(
        Recommendation(
            name="l2arc_size",
            value=l2arc,
            why=f"{_gib(l2arc)} of SSD: headers cost {L2ARC_HEADER_BYTES} B of ARC per {recordsize // 1024}K record; capped at 1/8 of the ARC.",
        )
    )
    # Fill the L2ARC in about ten minutes, within what a SATA SSD sustains beside its reads.
    feed = min(64 * MIB, max(8 * MIB, l2arc // 600)) if l2arc else 8 * MIB
    recs.append(
        Recommendation(
            name="l2arc_write_max",
            value=feed,
            why=f"{feed // MIB} MiB per feed interval fills the cache SSD in ~10 min without starving its reads.",
        )
    )
    recs.append(
        Recommendation(
            name="l2arc_write_boost",
            value=feed * 2,
            why="Double feed while the ARC is still warming up (after a boot or import).",
        )
    )

    txg = profile.module.zfs_txg_timeout
    slog = slog_bytes(inp.write_mib_s, txg)
    recs.append(
        Recommendation(
            name="slog_size",
            value=slog,
            why=f"{inp.write_mib_s:g} MiB/s x {txg} s txg x {TXGS_IN_FLIGHT} txgs in flight x {SLOG_MARGIN} margin.",
        )
    )
    if inp.slog_ssd_gib == 0:
        warnings.append("no SLOG: ESXi's synchronous NFS writes will wait for the SAN LUNs")
    elif inp.slog_ssd_gib * GIB < slog:
        warnings.append(f"the log SSD ({inp.slog_ssd_gib:g} GiB) is smaller than the {_gib(slog)} needed")
    recs.append(
        Recommendation(
            name="zfs_txg_timeout", value=txg, why=profile.why.get("zfs_txg_timeout", "profile default")
        )
    )
    recs.append(
        Recommendation(
            name="recordsize",
            value=profile.dataset.recordsize or "128K",
            why=profile.why.get("recordsize", ""),
        )
    )
    for name in ("zfs_prefetch_disable", "l2arc_noprefetch"):
        recs.append(
            Recommendation(name=name, value=getattr(profile.module, name), why=profile.why.get(name, ""))
        )

    recs.append(
        Recommendation(
            name="zio_dva_throttle_enabled",
            value=DVA_THROTTLE,
            why="The data vdevs are LUNs of one SAN array: the allocation throttle, which spreads writes over "
            "vdevs by their speed, only holds a txg's blocks back from the queue where ZFS merges neighbours "
            "into one LUN write; off, the SAN gets fewer, larger writes.",
        )
    )

    hits = hit_ratio(arc_max + l2arc, hot_set)
    offload = round(1 / (1 - hits), 1)
    recs.append(
        Recommendation(
            name="expected_read_offload",
            value=offload,
            why=f"Hot set {_gib(hot_set)} (compressed) vs {_gib(arc_max + l2arc)} of cache: ~{hits:.0%} of reads never reach the SAN.",
        )
    )
    module = {
        "zfs_arc_max": arc_max,
        "zfs_arc_min": arc_min,
        "l2arc_write_max": feed,
        "l2arc_write_boost": feed * 2,
        "l2arc_noprefetch": profile.module.l2arc_noprefetch,
        "zfs_prefetch_disable": profile.module.zfs_prefetch_disable,
        "zfs_txg_timeout": txg,
        "l2arc_rebuild_enabled": 1,
        "zio_dva_throttle_enabled": DVA_THROTTLE,
    }
    return Plan(
        pool_type=inp.pool_type,
        module=module,
        dataset=profile.dataset.as_zfs(),
        recommendations=recs,
        hot_set_bytes=hot_set,
        expected_read_offload=offload,
        warnings=warnings,
    )
