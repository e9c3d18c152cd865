"""Alert notifications: their settings (SMTP password sealed) and the alerts each channel was sent.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notify_config",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("settings_json", sa.Text, nullable=False),
        sa.Column("smtp_password", sa.LargeBinary, nullable=True),
    )
    op.create_table(
        "notify_sent",
        sa.Column("channel", sa.String(16), primary_key=True),
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("severity", sa.String(16), nullable=False),
        sa.Column("alert_json", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("notify_sent")
    op.drop_table("notify_config")
