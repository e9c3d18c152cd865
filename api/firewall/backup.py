"""The firewall's settings in a backup: management and iSCSI networks, SSH on or off.

Restored, they replace this appliance's, but never so as to cut off the administrator restoring: when
the backup's management networks leave out the address the restore came from (another site, another
network), this appliance's management networks stay and the report says so.
"""

from __future__ import annotations

from api.backup.section import Context, Restoring, Section, Skipped
from api.errors import WouldLockOut
from api.firewall import service as firewall
from api.firewall.schemas import FirewallSettings
from api.firewall.table import FirewallConfig


class FirewallSection(Section):
    key = "firewall"
    title = "Firewall"
    model = FirewallSettings

    def collect(self, ctx: Context, skipped: list[Skipped]) -> FirewallSettings | None:
        return firewall.stored(ctx.db)

    def store(self, ctx: Context, value: FirewallSettings | None, restoring: Restoring) -> list[str]:
        current = firewall.stored(ctx.db)
        row = ctx.db.get(FirewallConfig, 1)
        if row is None:
            row = FirewallConfig(id=1)
            ctx.db.add(row)
        row.trial_json = row.trial_until = None  # an armed rollback then loads what converge wrote
        if value is None:  # none in the backup: the next reconcile adopts the defaults, as on a new appliance
            row.settings_json = None
            return []
        restoring.converge(self)
        if ctx.address:
            try:
                firewall.refuse_lockout(value, ctx.address)
            except WouldLockOut as exc:
                kept = current or firewall.defaults(ctx.settings)
                restoring.lost("firewall", "management networks", f"{exc}: this appliance's are kept")
                value = value.model_copy(update={"management": kept.management})
        row.settings_json = value.model_dump_json()
        return [
            "management networks",
            *(["iSCSI networks"] if value.iscsi else []),
            *(["SSH"] if value.ssh else []),
            *(["SSH as root with the key"] if value.ssh_root else []),
        ]

    def converge(self, ctx: Context, value: object) -> list[str]:
        # no section lock (the base class's none): reconcile takes the firewall's own
        return firewall.reconcile(ctx.gw, ctx.files, ctx.db, ctx.settings)


SECTION = FirewallSection()
