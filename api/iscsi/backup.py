"""The iSCSI targets in a backup: each one's zvol, initiators, CHAP (secret opened from the secret box)
and the LUN's unit serial, so ESXi knows a restored LUN as the same one.

Restored, a target whose zvol is there is stored and converged into LIO by the reconcile the poller runs
too; one whose IQN LIO holds already is left as it is (it may carry a live LUN), and one whose zvol is
missing is reported. This appliance's own stored targets stay stored: removing one is an explicit
verb, never a side effect of a restore. LIO targets arcvsa did not make (several LUNs, a backstore not named after a zvol)
cannot be carried: the backup names them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from pydantic import BaseModel, Field
from sqlalchemy import select

from api.backup.section import Context, Restoring, Section, Skipped
from api.iscsi import service as iscsi
from api.iscsi.table import IscsiTarget
from appliance.control import lio
from appliance.control.iscsi import Chap, TargetSpec


class BackupTarget(BaseModel):
    """An iSCSI target arcvsa made: one LUN on a zvol, its initiators and CHAP (secret included)."""

    iqn: str = Field(description="target IQN")
    zvol: str = Field(description="the zvol behind the LUN")
    initiators: list[str] = Field(description="initiator IQNs allowed in")
    chap: Chap | None = Field(description="one-way CHAP user and secret, None when off")
    wwn: str | None = Field(
        None, description="the LUN's unit serial, so ESXi knows the restored LUN as the same one"
    )


class Targets(BaseModel):
    targets: list[BackupTarget] = Field(description="iSCSI targets")


class IscsiSection(Section):
    key = "iscsi"
    title = "iSCSI targets"
    model = Targets

    def collect(self, ctx: Context, skipped: list[Skipped]) -> Targets:
        specs = iscsi.stored(ctx.db, ctx.box, ctx.files, ctx.settings)
        held = {t.iqn for t in specs}
        reason = "not made by arcvsa (one LUN on a zvol): recreate it with targetcli"
        skipped += [
            Skipped(kind="iscsi_target", name=t.iqn, reason=reason)
            for t in iscsi.targets()
            if t.iqn not in held
        ]
        return Targets(
            targets=[
                BackupTarget(iqn=t.iqn, zvol=t.zvol, initiators=t.initiators, chap=t.chap, wwn=t.wwn)
                for t in specs
            ]
        )

    def needs(self, value: Targets) -> Iterable[str]:
        return (t.zvol for t in value.targets)

    def held(self, ctx: Context) -> str | None:
        count = len(iscsi.saved_targets(ctx.files))
        return f"{count} iSCSI target(s)" if count else None

    def prepare(self, ctx: Context) -> None:
        with iscsi.changing(ctx.settings):
            iscsi.adopt(ctx.db, ctx.box, ctx.files)

    def store(self, ctx: Context, value: Targets | None, restoring: Restoring) -> list[str]:
        in_lio = {t.iqn for t in iscsi.saved_targets(ctx.files)} | {t.iqn for t in iscsi.targets()}
        rows = {row.iqn: row for row in ctx.db.scalars(select(IscsiTarget))}
        for t in value.targets if value is not None else []:
            found = restoring.found.get(t.zvol)
            taken = next((row.iqn for row in rows.values() if row.zvol == t.zvol and row.iqn != t.iqn), None)
            if t.iqn in in_lio:  # this appliance's own target of that IQN stays as it is: it may be in use
                restoring.lost("iscsi_target", t.iqn, "LIO has a target of this IQN already: kept as it is")
            elif found is None:
                restoring.lost("iscsi_target", t.iqn, f"its zvol {t.zvol} is missing")
            elif found.type != "VOLUME":
                restoring.lost("iscsi_target", t.iqn, f"{t.zvol} is not a zvol (type {found.type})")
            elif taken is not None:
                restoring.lost("iscsi_target", t.iqn, f"{t.zvol} is exported already by {taken}")
            else:
                if t.iqn in rows:  # stored here but gone from LIO: the backup's replaces it
                    ctx.db.delete(rows.pop(t.iqn))
                    ctx.db.flush()
                spec = TargetSpec(
                    iqn=t.iqn,
                    zvol=t.zvol,
                    backstore=iscsi.backstore(t.zvol),
                    initiators=t.initiators,
                    chap=t.chap,
                    wwn=t.wwn,
                )
                rows[t.iqn] = iscsi.stored_row(spec, ctx.box)
                ctx.db.add(rows[t.iqn])
                restoring.converge(self)
        return sorted(rows)

    def changing(self, ctx: Context) -> contextlib.AbstractContextManager[object]:
        return iscsi.changing(ctx.settings)

    def converge(self, ctx: Context, value: object) -> list[str]:
        for spec in iscsi.desired(ctx.db, ctx.box):  # udev links a pool's zvols a moment after its import
            lio.wait_for_block_device(spec.dev)
        return iscsi.reconcile(ctx.gw, ctx.files, ctx.db, ctx.box)


SECTION = IscsiSection()
