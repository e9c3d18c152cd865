"""The tuning plan (ZFS module parameters) as rows: the desired state modprobe.d is rendered from.

An appliance upgraded from a release that kept the plan in modprobe.d alone has its file adopted by the
first reconcile (api.tuning.service.reconcile), which reads the file this migration cannot see.

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "zfs_parameters",
        sa.Column("name", sa.String(80), primary_key=True),
        sa.Column("value", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("zfs_parameters")
