"""Alerts from the pools' health: a suspended or degraded pool, a LUN with errors, a lost SLOG or L2ARC;
with the stored samples and the served certificate (when given): a full pool, an ARC hit ratio that
collapsed, a slow LUN, a certificate near expiry; with the appliance's files, a clock not kept to NTP.

Derived afresh, so an alert clears itself when its cause goes (a LUN replaced, a pool cleared). The api's
list is shared like the pool reads it is made of (see ``shared``).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from api.alerts.capacity import capacity_alert
from api.alerts.certificate import certificate_alert
from api.alerts.nfs_service import nfs_alert
from api.alerts.samples import ARC_LOOKBACK, arc_alert, lun_alerts
from api.alerts.schemas import Alert
from api.alerts.timesync import timesync_alert
from api.exports import service as exports
from api.metrics import store
from api.settings import Settings
from appliance.control import pools
from appliance.control.errors import NotFound, SystemFault
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.pools import PoolHealth, VdevHealth

# OpenZFS prints SUSPENDED for a pool whose I/O failed under failmode=wait (the default).
SUSPENDED = "SUSPENDED"
BAD_POOL_STATES = {"DEGRADED", "FAULTED", "UNAVAIL", "REMOVED", "OFFLINE"}
ROLE_NAMES = {"log": "SLOG", "cache": "L2ARC", "spare": "spare", "data": "LUN"}


def current(
    gw: Gateway,
    db: Session | None = None,
    data_dir: Path | None = None,
    now: dt.datetime | None = None,
    spaces: list[pools.PoolSpace] | None = None,
    settings: Settings | None = None,
    files: Files | None = None,
) -> list[Alert]:
    """Every alert now, critical first; the sample and certificate alerts only with ``db``/``data_dir``,
    the NFS server's with ``db`` and ``settings`` (the chosen backend, the exports it must serve).
    ``spaces``: the pools' ``zpool list`` when the caller has just read it (a scrape), else read here.
    The clock's (chronyd's) with ``files``, where /proc/uptime tells an appliance (see api.alerts.timesync)."""
    now = now or dt.datetime.now(dt.UTC)
    found: list[Alert] = []
    for space in pools.space(gw) if spaces is None else spaces:
        name = space.name
        if (full := capacity_alert(space)) is not None:
            found.append(full)
        try:
            found += pool_alerts(pools.status(gw, name))
        except NotFound:
            continue  # exported or destroyed since the listing: nothing left to alert on
        except SystemFault as exc:
            found.append(
                Alert(
                    key=f"pool/{name}/status",
                    severity="critical",
                    subject=f"pool {name}",
                    message=f"the pool's status could not be read: {exc}",
                )
            )
    if db is not None:
        samples = store.since(db, now - ARC_LOOKBACK)
        found += lun_alerts(samples)
        if (arc := arc_alert(samples)) is not None:
            found.append(arc)
        if settings is not None:
            chosen = exports.backend(db, settings)
            if (nfs := nfs_alert(gw, chosen, len(exports.desired(db)))) is not None:
                found.append(nfs)
    if files is not None and (clock := timesync_alert(gw, files)) is not None:
        found.append(clock)
    if data_dir is not None and (cert := certificate_alert(data_dir, now)) is not None:
        found.append(cert)
    return sorted(found, key=lambda a: a.severity != "critical")  # stable: each pool's own order kept


SHARED = ("api.alerts",)  # its key among the gateway's shared reads (argv tuples: never a clash)


def shared(
    gw: Gateway,
    factory: sessionmaker[Session],
    data_dir: Path,
    *,
    settings: Settings,
    files: Files,
) -> list[Alert]:
    """``current``'s full list, shared through the gateway's reads: a dozen dashboards polling alerts cost
    one derivation per ``reads_fresh_for`` (on a loaded appliance, the samples' half hour and the checks
    cost the api far more than the reads they share), a stale list is refreshed in the background as the
    reads are, and any change through the gateway ends it at once. Its own session: a background refresh
    outlives the request that started it."""

    def derive() -> list[Alert]:
        with factory() as db:
            return current(gw, db, data_dir, settings=settings, files=files)

    return list(gw.reads.get(SHARED, derive))


def pool_alerts(health: PoolHealth) -> list[Alert]:
    """The alerts one pool's health raises."""
    pool = health.name
    out: list[Alert] = []
    if health.state == SUSPENDED:
        out.append(
            Alert(
                key=f"pool/{pool}/suspended",
                severity="critical",
                subject=f"pool {pool}",
                message=(
                    "I/O is suspended: a LUN stopped answering and the pool has no redundancy for it. "
                    "Nothing acknowledged is lost; bring the LUN back, then clear the pool to resume."
                ),
            )
        )
    elif health.state in BAD_POOL_STATES:
        out.append(
            Alert(
                key=f"pool/{pool}/{health.state.lower()}",
                severity="critical" if health.state != "DEGRADED" else "warning",
                subject=f"pool {pool}",
                message=f"the pool is {health.state}: replace the failed device (its resilver restores redundancy)",
            )
        )
    if health.error_count and health.state != SUSPENDED:  # a suspended pool's stalled I/O counts too
        out.append(
            Alert(
                key=f"pool/{pool}/data-errors",
                severity="critical",
                subject=f"pool {pool}",
                message=(
                    f"{health.error_count} data errors logged (zpool status -v names the files): scrub the "
                    "pool; errors from a LUN outage that healed clear once scrubs find nothing"
                ),
            )
        )
    out += [alert for vdev in health.vdevs if (alert := vdev_alert(pool, vdev)) is not None]
    return out


def vdev_alert(pool: str, vdev: VdevHealth) -> Alert | None:
    """A leaf device that is not ONLINE, or that counted errors."""
    if vdev.path is None:  # groups (mirror-0 ...) show through their leaves and the pool state
        return None
    kind = ROLE_NAMES.get(vdev.role, vdev.role)
    subject = f"pool {pool}: {kind} {vdev.name}"
    if vdev.state != "ONLINE":
        lost = vdev.role in ("log", "cache")
        return Alert(
            key=f"pool/{pool}/device/{vdev.name}/{vdev.state.lower()}",
            severity="warning" if lost or vdev.state == "OFFLINE" else "critical",
            subject=subject,
            message=(
                f"the {kind} is {vdev.state}"
                + (" (the pool runs on without it, slower)" if lost else ": replace it")
            ),
        )
    errors = vdev.read_errors + vdev.write_errors + vdev.checksum_errors
    if errors:
        return Alert(
            key=f"pool/{pool}/device/{vdev.name}/errors",
            severity="warning",
            subject=subject,
            message=(
                f"{vdev.read_errors} read, {vdev.write_errors} write and {vdev.checksum_errors} checksum "
                "errors: check the LUN's path and array; clear the pool once it is sound"
            ),
        )
    return None
