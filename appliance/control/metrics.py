"""Metrics: ARC/L2ARC from arcstats, per-vdev I/O with latency from ``zpool iostat``, compression.

arcstats is read directly (as zarcsummary does): a kstat table "name type value" after two header lines.
``zpool iostat`` has no JSON in 2.3: ``-H -p`` gives tab-separated exact numbers, latencies in ns.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from appliance.control import names
from appliance.control.errors import BadOutput
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.pools import RULES as POOL_RULES

ARCSTATS = "/proc/spl/kstat/zfs/arcstats"
# -l adds: total_wait r/w, disk_wait r/w, syncq_wait r/w, asyncq_wait r/w, scrub_wait, trim_wait, rebuild_wait
IOSTAT_FIELDS = [
    "name",
    "alloc",
    "free",
    "read_ops",
    "write_ops",
    "read_bytes",
    "write_bytes",
    "total_wait_r",
    "total_wait_w",
    "disk_wait_r",
    "disk_wait_w",
    "syncq_wait_r",
    "syncq_wait_w",
    "asyncq_wait_r",
    "asyncq_wait_w",
    "scrub_wait",
    "trim_wait",
    "rebuild_wait",
]


def _ratio(hits: int, misses: int) -> float:
    return hits / (hits + misses) if hits + misses else 0.0


class Arc(BaseModel):
    """ARC and L2ARC counters and the ratios the dashboard shows."""

    size: int = Field(description="ARC size in bytes")
    target: int = Field(description="ARC target size (c)")
    max: int = Field(description="ARC maximum (c_max)")
    hits: int = Field(description="ARC hits")
    misses: int = Field(description="ARC misses")
    hit_ratio: float = Field(description="hits / (hits + misses)")
    demand_efficiency: float = Field(description="demand data hit ratio")
    prefetch_efficiency: float = Field(description="prefetch data hit ratio")
    l2_size: int = Field(description="L2ARC logical bytes")
    l2_asize: int = Field(description="L2ARC allocated bytes on the SSD")
    l2_hits: int = Field(description="L2ARC hits")
    l2_misses: int = Field(description="L2ARC misses")
    l2_hit_ratio: float = Field(description="L2ARC hits / (hits + misses)")
    l2_write_bytes: int = Field(description="bytes fed to the L2ARC")
    l2_read_bytes: int = Field(description="bytes read from the L2ARC")
    raw: dict[str, int] = Field(description="every counter of arcstats")


def parse_arcstats(text: str) -> Arc:
    """Arc from the text of /proc/spl/kstat/zfs/arcstats."""
    raw: dict[str, int] = {}
    for line in text.splitlines()[2:]:
        parts = line.split()
        if len(parts) == 3 and parts[2].lstrip("-").isdigit():
            raw[parts[0]] = int(parts[2])
    if "hits" not in raw or "size" not in raw:
        raise BadOutput("arcstats: no hits/size counters")
    get = raw.get
    return Arc(
        size=raw["size"],
        target=get("c", 0),
        max=get("c_max", 0),
        hits=raw["hits"],
        misses=get("misses", 0),
        hit_ratio=_ratio(raw["hits"], get("misses", 0)),
        demand_efficiency=_ratio(get("demand_data_hits", 0), get("demand_data_misses", 0)),
        prefetch_efficiency=_ratio(get("prefetch_data_hits", 0), get("prefetch_data_misses", 0)),
        l2_size=get("l2_size", 0),
        l2_asize=get("l2_asize", 0),
        l2_hits=get("l2_hits", 0),
        l2_misses=get("l2_misses", 0),
        l2_hit_ratio=_ratio(get("l2_hits", 0), get("l2_misses", 0)),
        l2_write_bytes=get("l2_write_bytes", 0),
        l2_read_bytes=get("l2_read_bytes", 0),
        raw=raw,
    )


def arc(files: Files) -> Arc:
    """ARC counters now."""
    text = files.read(ARCSTATS)
    if text is None:
        raise BadOutput(f"{ARCSTATS} missing: is zfs loaded?")
    return parse_arcstats(text)


class VdevIO(BaseModel):
    """I/O rates of one vdev (or the pool, first row); zpool reports per-second averages, latencies in ns."""

    name: str = Field(description="pool or vdev name")
    read_ops: int = Field(description="read operations per second")
    write_ops: int = Field(description="write operations per second")
    read_bytes: int = Field(description="bytes read per second")
    write_bytes: int = Field(description="bytes written per second")
    total_wait_r_ns: int | None = Field(description="average read latency incl. queueing, ns")
    total_wait_w_ns: int | None = Field(description="average write latency incl. queueing, ns")
    disk_wait_r_ns: int | None = Field(description="average read latency at the device, ns")
    disk_wait_w_ns: int | None = Field(description="average write latency at the device, ns")


def _num(text: str) -> int | None:
    return None if text == "-" else int(text)


def parse_iostat(stdout: str) -> list[VdevIO]:
    """Rows of ``zpool iostat -H -p -v -l POOL`` (blank separator lines skipped)."""
    rows = []
    for line in stdout.splitlines():
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) < len(IOSTAT_FIELDS) - 1:
            raise BadOutput(f"zpool iostat: {len(cols)} columns in {line!r}")
        rec = dict(zip(IOSTAT_FIELDS, cols, strict=False))
        rows.append(
            VdevIO(
                name=rec["name"].strip(),
                read_ops=int(rec["read_ops"]),
                write_ops=int(rec["write_ops"]),
                read_bytes=int(rec["read_bytes"]),
                write_bytes=int(rec["write_bytes"]),
                total_wait_r_ns=_num(rec["total_wait_r"]),
                total_wait_w_ns=_num(rec["total_wait_w"]),
                disk_wait_r_ns=_num(rec["disk_wait_r"]),
                disk_wait_w_ns=_num(rec["disk_wait_w"]),
            )
        )
    return rows


def iostat(gw: Gateway, pool: str, interval: int | None = None) -> list[VdevIO]:
    """Per-vdev I/O rates of a pool: averaged since import, or over the next ``interval`` seconds."""
    argv = ["zpool", "iostat", "-H", "-p", "-v", "-l"]
    if interval is None:
        return parse_iostat(gw.query([*argv, names.pool(pool)], rules=POOL_RULES).stdout)
    if not 1 <= interval <= 300:
        raise ValueError("interval must be 1..300 seconds")
    # -y skips the since-import report; one report over the interval follows.
    argv += ["-y", names.pool(pool), str(interval), "1"]
    return parse_iostat(gw.query(argv, rules=POOL_RULES, timeout=interval + 60).stdout)


# Cumulative LUN counters. ``zpool iostat`` without an interval prints per-second *averages* since import,
# rounded to whole numbers (seen on 2.3.9: read_ops 0, write_ops 13 on a busy pool), and neither
# ``zpool status -j`` nor /proc/spl/kstat/zfs/<pool>/ carries per-vdev byte or op totals in 2.3 (the pool
# ``io`` kstat is gone; ``iostats`` counts trims and ARC traffic; ``txgs`` is a short per-txg history).
# The block layer keeps exact totals per device: /proc/diskstats, what the SAN sees of each vdev, read in
# one go without a subprocess. Sampling it and diffing gives rates and latency over any interval.
DISKSTATS = "/proc/diskstats"
SECTOR = 512  # diskstats counts 512-byte sectors whatever the device's sector size


class BlockIO(BaseModel):
    """Cumulative I/O of one block device since boot (/proc/diskstats)."""

    read_ops: int = Field(description="reads completed")
    read_bytes: int = Field(description="bytes read")
    read_ms: int = Field(description="milliseconds spent on reads (summed over the reads)")
    write_ops: int = Field(description="writes completed")
    write_bytes: int = Field(description="bytes written")
    write_ms: int = Field(description="milliseconds spent on writes (summed over the writes)")


def parse_diskstats(text: str) -> dict[str, BlockIO]:
    """{kernel name: BlockIO} from /proc/diskstats."""
    out = {}
    for line in text.splitlines():
        cols = line.split()
        if len(cols) < 14 or not all(c.isdigit() for c in cols[3:11]):
            continue
        out[cols[2]] = BlockIO(
            read_ops=int(cols[3]),
            read_bytes=int(cols[5]) * SECTOR,
            read_ms=int(cols[6]),
            write_ops=int(cols[7]),
            write_bytes=int(cols[9]) * SECTOR,
            write_ms=int(cols[10]),
        )
    if not out:
        raise BadOutput(f"{DISKSTATS}: no devices")
    return out


def block_io(files: Files) -> dict[str, BlockIO]:
    """Cumulative I/O of every block device now."""
    text = files.read(DISKSTATS)
    if text is None:
        raise BadOutput(f"{DISKSTATS} missing")
    return parse_diskstats(text)


def kernel_names(gw: Gateway, paths: list[str]) -> dict[str, str]:
    """{device path: kernel name} for vdev paths (by-id links resolved by ``realpath``; vdb1, dm-3 ...).

    Paths that are not block devices (file vdevs) are left out: they have no diskstats.
    """
    if not paths:
        return {}
    result = gw.query(["realpath", "-e", "--", *paths], ok_codes=(0, 1))
    resolved = result.stdout.splitlines()
    if result.exit_code or len(resolved) != len(paths):
        # -e drops the lines of missing devices: resolve one by one so the rest still count.
        resolved = [gw.query(["realpath", "-e", "--", p], ok_codes=(0, 1)).stdout.strip() for p in paths]
    return {
        path: real.removeprefix("/dev/")
        for path, real in zip(paths, resolved, strict=True)
        if real.startswith("/dev/") and "/" not in real.removeprefix("/dev/")
    }
