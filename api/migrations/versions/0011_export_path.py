"""An export's path is its dataset's mount point, derived and no longer stored.

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("nfs_exports") as batch:
        batch.drop_column("path")


def downgrade() -> None:
    # A release before this one reads the column; every stored export was at its dataset's mount point.
    with op.batch_alter_table("nfs_exports") as batch:
        batch.add_column(sa.Column("path", sa.String(512), nullable=False, server_default=""))
    op.execute("UPDATE nfs_exports SET path = '/' || dataset")
