"""The metric_samples table: one row per sample, the raw counters as JSON; bounded by pruning."""

from __future__ import annotations

import functools
from datetime import datetime

from sqlalchemy import DateTime, Text, delete, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from api.db import Base
from api.metrics.schemas import Sample


class MetricSample(Base):
    __tablename__ = "metric_samples"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    sample_json: Mapped[str] = mapped_column(Text)


def add(db: Session, sample: Sample) -> None:
    """Store one sample (the caller commits)."""
    db.add(MetricSample(at=sample.t, sample_json=sample.model_dump_json()))


def prune(db: Session, keep: int) -> int:
    """Delete all but the newest ``keep`` rows; how many went."""
    db.flush()
    newest = select(MetricSample.id).order_by(MetricSample.id.desc()).offset(keep - 1).limit(1)
    cutoff = db.scalar(newest)
    if cutoff is None:
        return 0
    result = db.execute(delete(MetricSample).where(MetricSample.id < cutoff))
    return int(getattr(result, "rowcount", 0) or 0)


@functools.lru_cache(maxsize=1024)
def _sample(text: str) -> Sample:
    """A stored sample, parsed once: rows never change, and parsing (pydantic, holding the GIL) was what
    reading them cost. The alerts read the last half hour (180 samples) every few seconds under polling,
    which would stall every other request of the api. Shared: callers never change a Sample."""
    return Sample.model_validate_json(text)


def since(db: Session, start: datetime) -> list[Sample]:
    """Samples taken at or after ``start`` plus the one before (the first interval needs it), oldest first."""
    texts = list(
        db.scalars(select(MetricSample.sample_json).where(MetricSample.at >= start).order_by(MetricSample.id))
    )
    before = db.scalar(
        select(MetricSample.sample_json)
        .where(MetricSample.at < start)
        .order_by(MetricSample.id.desc())
        .limit(1)
    )
    return [_sample(t) for t in ([before] if before is not None else []) + texts]


def latest(db: Session, count: int = 2) -> list[Sample]:
    """The newest ``count`` samples, oldest first."""
    texts = list(db.scalars(select(MetricSample.sample_json).order_by(MetricSample.id.desc()).limit(count)))
    return [_sample(t) for t in reversed(texts)]
