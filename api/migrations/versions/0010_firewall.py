"""The firewall's settings (management and iSCSI networks, SSH on or off) and a change on trial.

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "firewall_config",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("settings_json", sa.Text, nullable=True),
        sa.Column("trial_json", sa.Text, nullable=True),
        sa.Column("trial_until", sa.Float, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("firewall_config")
