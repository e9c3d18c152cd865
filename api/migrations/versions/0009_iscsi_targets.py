"""The desired iSCSI targets (CHAP secret sealed), which appliance.control.lio converges LIO on.

Targets an older release made in LIO alone are adopted by the first reconcile (api.iscsi.service), from
LIO's saved configuration, which this migration cannot see.

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "iscsi_targets",
        sa.Column("iqn", sa.String(223), primary_key=True),
        sa.Column("zvol", sa.String(512), nullable=False, unique=True),  # one target per zvol
        sa.Column("initiators_json", sa.Text, nullable=False),
        sa.Column("chap_user", sa.String(255), nullable=True),
        sa.Column("chap_secret", sa.LargeBinary, nullable=True),
        sa.Column("wwn", sa.String(64), nullable=True),  # the LUN's unit serial: ESXi's NAA id of it
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("iscsi_targets")
