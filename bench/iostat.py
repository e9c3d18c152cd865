"""The sizes of the writes a pool issued to its data LUN, from ``zpool iostat -r -v -p -H``.

Write aggregation (bench.metrics) is the LUN's mean write size over the client's. The mean does not
say why it is what it is: whether the pool wrote a few big runs and many small blocks, or merged
neighbours (ZFS joins adjacent queued I/Os up to zfs_vdev_aggregation_limit). The request-size
histograms do: per vdev, a row per power-of-two size (the row's value is the bucket's lower bound,
bytes), two columns (individual, aggregated) per I/O class in the order sync_read, sync_write,
async_read, async_write, scrub, trim, rebuild. An individual I/O went to the disk alone, an aggregated
one is the merge of several; together they are the I/Os the disk saw from ZFS.
"""

from __future__ import annotations

CLASSES = ("sync_read", "sync_write", "async_read", "async_write", "scrub", "trim", "rebuild")
WRITES = ("sync_write", "async_write")
COLUMNS = 1 + 2 * len(CLASSES)
# each write class's (individual, aggregated) columns, after the bucket's
ALONE = tuple(1 + 2 * CLASSES.index(c) for c in WRITES)
MERGED = tuple(i + 1 for i in ALONE)
Sizes = dict[int, tuple[int, int]]  # bucket (bytes) -> (individual, aggregated) writes


class IostatError(ValueError):
    """The text did not read as request-size histograms with the wanted vdev in them."""


def write_sizes(text: str, vdev: str) -> Sizes:
    """``vdev``'s writes: bucket (bytes) -> (individual, aggregated), sync and async together."""
    rows = _section(text, vdev)
    sizes: Sizes = {}
    for fields in rows:
        if len(fields) != COLUMNS:
            raise IostatError(f"{vdev}: a histogram row of {len(fields)} fields: {' '.join(fields)!r}")
        try:
            counts = [int(f) for f in fields]
        except ValueError as err:
            raise IostatError(f"{vdev}: {err}") from err
        sizes[counts[0]] = (sum(counts[i] for i in ALONE), sum(counts[i] for i in MERGED))
    return sizes


def since(after: Sizes, before: Sizes) -> Sizes:
    """The writes between two readings, buckets with none left out. Counts start again at each import:
    a count that went down means the pool was imported in between, and ``after`` is all there is."""
    if any(n < m for b, pair in before.items() for n, m in zip(after.get(b, (0, 0)), pair, strict=True)):
        before = {}
    out = {}
    for bucket, (alone, merged) in after.items():
        was = before.get(bucket, (0, 0))
        moved = (alone - was[0], merged - was[1])
        if moved != (0, 0):
            out[bucket] = moved
    return out


def _section(text: str, vdev: str) -> list[list[str]]:
    """The rows under the line naming ``vdev`` (a pool, or a device as zpool names it), up to a blank."""
    rows: list[list[str]] = []
    inside = False
    for line in text.splitlines():
        if not inside:
            inside = line.strip() == vdev
            continue
        if not line.strip():
            break
        rows.append(line.split())
    if not inside:
        raise IostatError(f"no histograms for {vdev!r} in: {text[:200]!r}")
    if not rows:
        raise IostatError(f"{vdev}: no histogram rows")
    return rows
