"""Alerts from the pools' health: a suspended or degraded pool, a LUN with errors, a lost SLOG or L2ARC;
with the stored samples and the served certificate (when given): a full pool, an ARC hit ratio that
collapsed, a slow LUN, a certificate near expiry; with the appliance's files, a clock not kept to NTP.

Derived afresh from each observation of the appliance (api.state), so an alert clears itself when its
cause goes (a LUN replaced, a pool cleared); the state poller publishes them with the state they come from.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from sqlalchemy.orm import Session

from api.alerts.capacity import capacity_alert
from api.alerts.certificate import certificate_alert
from api.alerts.drift import drift_alerts
from api.alerts.nfs_service import nfs_alert
from api.alerts.samples import ARC_LOOKBACK, arc_alert, lun_alerts
from api.alerts.schemas import Alert
from api.alerts.timesync import timesync_alert
from api.exports import service as exports
from api.metrics import store
from api.settings import Settings
from api.state.snapshot import Published
from appliance.control.files import Files
from appliance.control.observed import Observed, Part
from appliance.control.pools import VdevHealth, ZfsPoolHealth
from appliance.control.reconciled import Reconciled

# OpenZFS prints SUSPENDED for a pool whose I/O failed under failmode=wait (the default).
SUSPENDED = "SUSPENDED"
BAD_POOL_STATES = {"DEGRADED", "FAULTED", "UNAVAIL", "REMOVED", "OFFLINE"}
STALE_PASSES = 6  # intervals of the poller without a full observation before the state counts as stale
ROLE_NAMES = {"log": "SLOG", "cache": "L2ARC", "spare": "spare", "data": "LUN"}


def derive(
    observed: Observed, db: Session, settings: Settings, files: Files, reconciled: list[Reconciled]
) -> list[Alert]:
    """Every alert of the observed state, critical first: the pools', the samples' (in ``db``), the NFS
    server's (the chosen backend, the exports it must serve), the clock's (where /proc/uptime in
    ``files`` tells an appliance, see api.alerts.timesync) and the drift's of the last ``reconciled``
    outcome of each noun (api.alerts.drift). The certificate's is not among them: it is the api's own,
    read as it is asked for (``served``)."""
    now = dt.datetime.now(dt.UTC)
    found: list[Alert] = []
    if Part.pools in observed.failures:
        found.append(
            Alert(
                key="pools/status",
                severity="critical",
                subject="pools",
                message=f"the pools' state could not be read: {observed.failures[Part.pools].message}",
            )
        )
    healths = {h.name: h for h in observed.pools or []}
    for space in observed.spaces or []:
        name = space.name
        if (full := capacity_alert(space)) is not None:
            found.append(full)
        if name in observed.pool_failures:
            found.append(
                Alert(
                    key=f"pool/{name}/status",
                    severity="critical",
                    subject=f"pool {name}",
                    message=f"the pool's status could not be read: {observed.pool_failures[name].message}",
                )
            )
        elif name in healths:
            found += pool_alerts(healths[name])
    samples = store.since(db, now - ARC_LOOKBACK)
    found += lun_alerts(samples)
    if (arc := arc_alert(samples)) is not None:
        found.append(arc)
    chosen = exports.backend(db, settings)
    if (nfs := nfs_alert(observed.services, chosen, len(exports.desired(db)))) is not None:
        found.append(nfs)
    if (clock := timesync_alert(observed, files)) is not None:
        found.append(clock)
    found += drift_alerts(reconciled)
    return _ordered(found)


def served(
    published: Published | None, data_dir: Path, interval: float, now: dt.datetime | None = None
) -> list[Alert]:
    """What /api/alerts answers, critical first: the published alerts, the certificate's, and a critical
    one when the poller stopped publishing (its alerts would otherwise stand for a state nobody observes
    any more)."""
    now = now or dt.datetime.now(dt.UTC)
    found = list(published.alerts) if published is not None else []
    if published is not None and (stale := stale_alert(published, interval, now)) is not None:
        found.append(stale)
    if (cert := certificate_alert(data_dir, now)) is not None:
        found.append(cert)
    return _ordered(found)


def merged(*lists: list[Alert]) -> list[Alert]:
    """Several lists of alerts as one, critical first."""
    return _ordered([a for found in lists for a in found])


def stale_alert(published: Published, interval: float, now: dt.datetime) -> Alert | None:
    """Critical once the last full observation is older than STALE_PASSES intervals (at least a minute:
    one pass under load, a pool import scan, may take tens of seconds)."""
    last = published.polled_at or published.taken_at
    age = (now - last).total_seconds()
    if age <= max(STALE_PASSES * interval, 60.0):
        return None
    return Alert(
        key="state/stale",
        severity="critical",
        subject="state poller",
        message=(
            f"the appliance's state was last observed {age:.0f} s ago: arcvsa-metrics.service is not "
            "publishing (its journal is in the support bundle); these pages and alerts show that old state"
        ),
    )


def _ordered(found: list[Alert]) -> list[Alert]:
    return sorted(found, key=lambda a: a.severity != "critical")  # stable: each pool's own order kept


def pool_alerts(health: ZfsPoolHealth) -> list[Alert]:
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
