"""Making a support bundle: a verb the control service runs as root (api.privileged), since it runs the
appliance's tools (zpool history, the journal) and reads what only root may."""

from __future__ import annotations

import base64

from pydantic import Base64Bytes, BaseModel, Field

from api.privileged.host import Host
from api.support import service


class Made(BaseModel):
    filename: str = Field(description="the name to save the archive under")
    data: Base64Bytes = Field(description="the gzip-compressed tar archive")


def bundle(host: Host, by: str) -> Made:
    """``by``: who asked, named in the bundle's manifest."""
    settings = host.settings
    with host.sessionmaker() as db:
        made = service.build(
            host.storage_gateway, host.storage_files, db, host.secretbox, settings,
            by=by, published=host.snapshot.read(),
        )  # fmt: skip
    return Made(filename=made.filename, data=base64.b64encode(made.data))  # validated: decoded again


VERBS = (bundle,)
