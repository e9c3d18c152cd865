"""The tuning plan in a backup: the ZFS module parameters held in effect and at module load.

Restored, a plan this appliance's zfs accepts replaces the stored one and is held by the same reconcile
the poller runs; one it cannot take (a parameter this zfs does not have, a value out of range) is
reported and the appliance keeps its own plan.
"""

from __future__ import annotations

import contextlib

from pydantic import BaseModel, Field

from api.backup.section import Context, Restoring, Section, Skipped
from api.tuning import service as tuning
from appliance.control.errors import ControlError


class Tuning(BaseModel):
    parameters: dict[str, int] = Field(description="ZFS module parameters held in effect and at module load")


class TuningSection(Section):
    key = "tuning"
    title = "ZFS tuning"
    model = Tuning

    def collect(self, ctx: Context, skipped: list[Skipped]) -> Tuning:
        return Tuning(parameters=tuning.plan(ctx.db))

    def prepare(self, ctx: Context) -> None:
        with tuning.changing(ctx.settings):
            tuning.adopted_plan(ctx.files, ctx.db)

    def store(self, ctx: Context, value: Tuning | None, restoring: Restoring) -> list[str]:
        wanted = value.parameters if value is not None else {}
        try:
            tuning.check(ctx.files, wanted)
        except ControlError as err:
            restoring.lost("tuning", ",".join(sorted(wanted)), f"{err} (this appliance's plan is kept)")
            return [f"{name}={value}" for name, value in sorted(tuning.plan(ctx.db).items())]
        if wanted != tuning.plan(ctx.db):  # an unchanged plan is the poller's to hold, as it was
            tuning.store(ctx.db, wanted)
            restoring.converge(self)
        return [f"{name}={value}" for name, value in sorted(wanted.items())]

    def changing(self, ctx: Context) -> contextlib.AbstractContextManager[object]:
        return tuning.changing(ctx.settings)

    def converge(self, ctx: Context, value: object) -> list[str]:
        return tuning.reconcile(ctx.files, ctx.db)


SECTION = TuningSection()
