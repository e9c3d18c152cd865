"""Storage: the desired NFS exports, and storage settings (the chosen NFS backend).

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nfs_exports",
        # ganesha Export_Id and knfsd fsid: stable for the export's life (ESXi file handles carry it)
        sa.Column("export_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("dataset", sa.String(512), nullable=False),
        sa.Column("path", sa.String(512), nullable=False),
        sa.Column("protocol", sa.String(8), nullable=False),
        sa.Column("clients_json", sa.Text, nullable=False),
        sa.Column("insecure_ports", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_nfs_exports_dataset", "nfs_exports", ["dataset"])
    op.create_table(
        "storage_settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("storage_settings")
    op.drop_index("ix_nfs_exports_dataset", "nfs_exports")
    op.drop_table("nfs_exports")
