"""An alert when the api's TLS certificate (the file it serves) nears its end or has expired."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from api.alerts.schemas import Alert
from api.certificate import service as certificates

# Browsers and vCenter refuse an expired certificate outright: a month gives time to get one signed,
# a week is the last call.
WARN_DAYS = 30
CRITICAL_DAYS = 7


def certificate_alert(data_dir: Path, now: dt.datetime) -> Alert | None:
    """Warning under 30 days left, critical under 7 or expired; none without a readable certificate."""
    chain = certificates.installed(data_dir)
    if not chain:
        return None  # the api makes one when it starts; nothing served, nothing to expire
    end = min(c.not_valid_after_utc for c in chain)  # the chain is only as good as its first to expire
    left = end - now
    if left >= dt.timedelta(days=WARN_DAYS):
        return None
    expired = left <= dt.timedelta(0)
    return Alert(
        key="certificate/expiry",
        severity="critical" if left < dt.timedelta(days=CRITICAL_DAYS) else "warning",
        subject="the api's TLS certificate",
        message=(
            f"the certificate {'expired' if expired else 'expires'} on {end:%Y-%m-%d %H:%M} UTC"
            + (": browsers and vCenter refuse it now" if expired else f" ({left.days} days left)")
            + "; renew it (a certificate this appliance made) or install a renewed one under Settings > TLS certificate"
        ),
    )
