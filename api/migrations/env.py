"""Alembic environment: runs on the connection the app hands over (api.db.migrate)."""

from alembic import context

from api.auth import tables as _auth  # noqa: F401  (registers tables)
from api.calibration import table as _calibration  # noqa: F401
from api.db import Base
from api.deployments import table as _deployments  # noqa: F401
from api.iscsi import table as _iscsi  # noqa: F401
from api.jobs import table as _jobs  # noqa: F401
from api.notify import table as _notify  # noqa: F401
from api.tuning import table as _tuning  # noqa: F401
from api.vcenters import table as _vcenters  # noqa: F401

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
