"""The notification settings in a backup: SMTP and syslog, the SMTP password opened from the secret box.

Restored, they replace this appliance's (none in the backup: alerts go nowhere, as on a new appliance),
and log forwarding is made what they say, as saving them through the api does.
"""

from __future__ import annotations

import contextlib

from pydantic import BaseModel, Field
from sqlalchemy import delete

from api.backup.section import Context, Restoring, Section, Skipped, opened
from api.notify import service as notify
from api.notify.schemas import NotifySettings
from api.notify.table import NotifyConfig


class BackupNotify(BaseModel):
    """Notification settings with the SMTP password opened from the secretbox."""

    settings: NotifySettings = Field(description="SMTP and syslog settings")
    smtp_password: str | None = Field(repr=False, description="SMTP password, None when none is stored")


class NotifySection(Section):
    key = "notify"
    title = "Notifications"
    model = BackupNotify

    def collect(self, ctx: Context, skipped: list[Skipped]) -> BackupNotify | None:
        if ctx.db.get(NotifyConfig, 1) is None:
            return None
        settings, sealed = notify.load(ctx.db)
        plain = settings.model_copy(update={"smtp_password_set": False})
        password = opened(ctx.box, sealed, "smtp_password", "notify", skipped) if sealed is not None else None
        return BackupNotify(settings=plain, smtp_password=password)

    def store(self, ctx: Context, value: BackupNotify | None, restoring: Restoring) -> list[str]:
        ctx.db.execute(delete(NotifyConfig))
        restoring.converge(self)  # log forwarding as the backup says: off when it has no settings
        if value is None:
            return []
        settings = NotifySettings(smtp=value.settings.smtp, syslog=value.settings.syslog)
        sealed = ctx.box.seal(value.smtp_password) if value.smtp_password else None
        ctx.db.add(NotifyConfig(id=1, settings_json=settings.model_dump_json(), smtp_password=sealed))
        on = [
            name
            for name, channel in (("email", settings.smtp), ("syslog", settings.syslog))
            if channel.enabled
        ]
        return on + (["log forwarding"] if settings.syslog.forward_logs else [])

    def changing(self, ctx: Context) -> contextlib.AbstractContextManager[object]:
        return notify.CHANGES

    def converge(self, ctx: Context, value: object) -> list[str]:
        syslog = notify.load(ctx.db)[0].syslog
        if not notify.apply_forwarding(ctx.gw, ctx.files, syslog):
            return []
        return [f"log forwarding {'on' if syslog.forward_logs else 'off'}: rsyslog restarted"]


SECTION = NotifySection()
