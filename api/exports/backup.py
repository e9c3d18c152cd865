"""The NFS exports and the chosen NFS server in a backup.

Restored, an export is stored at its dataset's mount point on this appliance (looked up by the restore,
which imported the pool first); one whose dataset is missing, or is not a mounted file system, is
reported and not stored. Converging serves the stored set from the chosen server alone, as choosing a
server through the api does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from pydantic import BaseModel, Field
from sqlalchemy import delete

from api.backup.section import Context, Restoring, Section, Skipped
from api.exports import service as exports
from api.exports.table import NfsExport, StorageSetting
from appliance.control.nfs import backends
from appliance.control.nfs.backends import Backend
from appliance.control.nfs.model import Export, check_set
from appliance.control.observed import Part


class Nfs(BaseModel):
    backend: Backend | None = Field(description="the NFS server chosen (None: never chosen)")
    exports: list[Export] = Field(description="NFS exports (each path looked up again on restore)")


class NfsSection(Section):
    key = "nfs"
    title = "NFS exports"
    model = Nfs
    touches = (Part.nfs, Part.services)

    def collect(self, ctx: Context, skipped: list[Skipped]) -> Nfs:
        chosen = ctx.db.get(StorageSetting, exports.BACKEND_KEY)
        return Nfs(
            backend=Backend(chosen.value) if chosen is not None else None,
            exports=exports.desired(ctx.db),
        )

    def needs(self, value: Nfs) -> Iterable[str]:
        return (e.dataset for e in value.exports)

    def held(self, ctx: Context) -> str | None:
        count = len(exports.desired(ctx.db))
        return f"{count} NFS export(s)" if count else None

    def store(self, ctx: Context, value: Nfs | None, restoring: Restoring) -> list[str]:
        kept = []
        for e in value.exports if value is not None else []:
            found = restoring.found.get(e.dataset)
            reason = (
                f"its dataset {e.dataset} is missing"
                if found is None
                else exports.unexportable(e.dataset, found)
            )
            if reason is not None:
                restoring.lost("export", str(e.export_id), reason)
            else:
                kept.append(e)
        check_set(kept)
        if kept or exports.desired(ctx.db):  # served now, or this appliance's to stop serving
            restoring.converge(self)
        ctx.db.execute(delete(NfsExport))
        for export in kept:
            exports.store(ctx.db, export)
        if value is not None and value.backend is not None:
            exports.choose(ctx.db, value.backend)
        return [str(e.export_id) for e in kept]

    def changing(self, ctx: Context) -> contextlib.AbstractContextManager[object]:
        return exports.changing(ctx.settings)

    def converge(self, ctx: Context, value: object) -> list[str]:
        chosen = exports.backend(ctx.db, ctx.settings)
        return exports.said(backends.activate(ctx.gw, ctx.files, chosen, exports.desired(ctx.db)), chosen)


SECTION = NfsSection()
