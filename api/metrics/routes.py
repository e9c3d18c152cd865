"""/api/storage/metrics: rates computed from the stored samples when asked (the sampler stores counters)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Query

from api.deps import AppSettings, Db
from api.metrics import series, store
from api.metrics.schemas import MetricSeries, Summary

router = APIRouter(prefix="/api/storage/metrics", tags=["metrics"])


@router.get("")
def get_series(
    db: Db,
    settings: AppSettings,
    minutes: Annotated[int, Query(ge=1, le=7 * 24 * 60, description="span to return, up to now")] = 60,
) -> MetricSeries:
    """Rates per interval over the last ``minutes``: ARC, client and LUN I/O, offload, latency."""
    samples = store.since(db, datetime.now(UTC) - timedelta(minutes=minutes))
    return MetricSeries(interval_seconds=settings.metrics_interval_seconds, points=series.points(samples))


@router.get("/summary")
async def get_summary(db: Db) -> Summary:
    """The latest sample: a card per export (space, compression, client rates) and the ARC figures.

    On the event loop: two rows of SQLite (WAL: never waiting for the sampler's writes) cost less than
    the hop to a worker thread under a dashboard's polling."""
    return series.summary(store.latest(db, 2))
