"""The parts of a configuration backup, listed here so that api.backup knows no domain's tables: each
domain gives its section (api/<domain>/backup.py). The api and the control service (which restores)
both take the list from here."""

from __future__ import annotations

from api.certificate import backup as certificate_backup
from api.exports import backup as exports_backup
from api.firewall import backup as firewall_backup
from api.iscsi import backup as iscsi_backup
from api.notify import backup as notify_backup
from api.prometheus import backup as scrape_tokens_backup
from api.tuning import backup as tuning_backup
from api.users import backup as users_backup
from api.vcenters import backup as vcenters_backup

# What a configuration backup holds, in the order a restore stores and converges it: the exports are
# served before the iSCSI targets are made, and the certificate goes last (served after a restart).
BACKUP_SECTIONS = (
    users_backup.SECTION,
    vcenters_backup.SECTION,
    scrape_tokens_backup.SECTION,
    exports_backup.SECTION,
    iscsi_backup.SECTION,
    tuning_backup.SECTION,
    firewall_backup.SECTION,
    notify_backup.SECTION,
    certificate_backup.SECTION,
)
