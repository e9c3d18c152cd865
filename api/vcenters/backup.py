"""The vCenter connections in a backup, each with its password opened from the secret box (sealed again
by the restoring appliance's box).

Restored, a connection of the same name is updated in place (deployments refer to it by id); one the
backup does not hold is removed unless a deployment on this appliance still uses it.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field
from sqlalchemy import select

from api.backup.section import Context, Restoring, Section, Skipped, opened
from api.deployments.table import Deployment
from api.vcenters.table import VCenter


class BackupVCenter(BaseModel):
    """A vCenter connection, its password in plain text (only inside the encrypted file)."""

    name: str = Field(description="connection name")
    host: str = Field(description="vCenter address")
    port: int = Field(description="vCenter HTTPS port")
    username: str = Field(description="vCenter login")
    password: str = Field(repr=False, description="vCenter password")
    thumbprint_sha256: str | None = Field(description="pinned certificate thumbprint")
    created_at: datetime = Field(description="when the connection was added")


class VCenters(BaseModel):
    vcenters: list[BackupVCenter] = Field(description="vCenter connections")


class VCentersSection(Section):
    key = "vcenters"
    title = "vCenter connections"
    model = VCenters

    def collect(self, ctx: Context, skipped: list[Skipped]) -> VCenters:
        out = []
        for v in ctx.db.scalars(select(VCenter).order_by(VCenter.name)):
            password = opened(ctx.box, v.password_sealed, "vcenter", v.name, skipped)
            if password is None:
                continue
            out.append(
                BackupVCenter(
                    name=v.name,
                    host=v.host,
                    port=v.port,
                    username=v.username,
                    password=password,
                    thumbprint_sha256=v.thumbprint_sha256,
                    created_at=v.created_at,
                )
            )
        return VCenters(vcenters=out)

    def held(self, ctx: Context) -> str | None:
        count = len(list(ctx.db.scalars(select(VCenter.id))))
        return f"{count} vCenter connection(s)" if count else None

    def store(self, ctx: Context, value: VCenters | None, restoring: Restoring) -> list[str]:
        existing = {v.name: v for v in ctx.db.scalars(select(VCenter))}
        kept = []
        for item in value.vcenters if value is not None else []:
            row = existing.pop(item.name, None)
            if row is None:
                row = VCenter(name=item.name, created_at=item.created_at)
                ctx.db.add(row)
            row.host, row.port, row.username = item.host, item.port, item.username
            row.password_sealed, row.thumbprint_sha256 = ctx.box.seal(item.password), item.thumbprint_sha256
            kept.append(item.name)
        for row in existing.values():
            if (
                ctx.db.scalar(select(Deployment.id).where(Deployment.vcenter_id == row.id).limit(1))
                is not None
            ):
                reason = "kept: not in the backup, but deployments on this appliance use it"
                restoring.lost("vcenter", row.name, reason)
                kept.append(row.name)
            else:
                ctx.db.delete(row)
        return sorted(kept)


SECTION = VCentersSection()
