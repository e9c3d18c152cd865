"""Provisioning: deployments (a stored DeploymentPlan per vCenter), their jobs and the jobs' events.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "deployments",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column(
            "vcenter_id", sa.Integer, sa.ForeignKey("vcenters.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("plan_json", sa.Text, nullable=False),
        # OVF property values marked password in the plan, sealed like vCenter passwords (api.secretbox)
        sa.Column("secrets_sealed", sa.LargeBinary, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_deployments_vcenter_id", "deployments", ["vcenter_id"])
    op.create_table(
        "jobs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "deployment_id", sa.Integer, sa.ForeignKey("deployments.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("cancel_requested", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("runs", sa.Integer, nullable=False, server_default="0"),
        sa.Column("done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("total", sa.Integer, nullable=False, server_default="0"),
        sa.Column("message", sa.Text, nullable=False, server_default=""),
        sa.Column("failures_json", sa.Text, nullable=False, server_default="[]"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_jobs_deployment_id", "jobs", ["deployment_id"])
    op.create_index("ix_jobs_state", "jobs", ["state"])
    op.create_table(
        "job_events",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("job_id", sa.Integer, sa.ForeignKey("jobs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("object", sa.String(255), nullable=True),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
    )
    op.create_index("ix_job_events_job_id", "job_events", ["job_id"])


def downgrade() -> None:
    op.drop_index("ix_job_events_job_id", "job_events")
    op.drop_table("job_events")
    op.drop_index("ix_jobs_state", "jobs")
    op.drop_index("ix_jobs_deployment_id", "jobs")
    op.drop_table("jobs")
    op.drop_index("ix_deployments_vcenter_id", "deployments")
    op.drop_table("deployments")
