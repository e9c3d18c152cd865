"""Metrics: one row per sample of the storage counters (bounded by the sampler's pruning).

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "metric_samples",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        # the raw cumulative counters (api.metrics.schemas.Sample); rates are computed when read
        sa.Column("sample_json", sa.Text, nullable=False),
    )
    op.create_index("ix_metric_samples_at", "metric_samples", ["at"])


def downgrade() -> None:
    op.drop_index("ix_metric_samples_at", "metric_samples")
    op.drop_table("metric_samples")
