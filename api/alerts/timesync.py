"""An alert when the appliance's clock is not kept to NTP: chronyd stopped, following no source, or off.

ESXi hosts and vCenter compare their clocks with the appliance's: NFSv4 leases, Kerberos (5 minutes'
tolerance), TLS certificates' validity and every log line a support case correlates assume one time.
A clock left alone drifts by seconds a day, so each cause is a warning, not an outage.
"""

from __future__ import annotations

from api.alerts.schemas import Alert
from appliance.control import chrony
from appliance.control.errors import ControlError, ServiceDown
from appliance.control.files import Files
from appliance.control.observed import Observed, Part

KEY = "time/sync"
SUBJECT = "time synchronisation"
# chronyd's first sync after boot takes a few seconds with reachable sources (iburst); an appliance just
# started, or one whose sources answer slowly, is not warned about before this many seconds of uptime.
GRACE_SECONDS = 180.0
# chronyd slews a clock this far off back slowly (or steps it at start): anything above is worth a look.
MAX_OFFSET_SECONDS = 1.0


def timesync_alert(observed: Observed, files: Files) -> Alert | None:
    """A warning while chronyd is not running, not synchronised (after GRACE_SECONDS of uptime), or the
    clock is more than MAX_OFFSET_SECONDS off NTP time, as last observed. None where /proc/uptime is
    missing (not an appliance: a test's file root) or the clock was not observed yet."""
    up = chrony.uptime(files)
    if up is None:
        return None
    try:
        if Part.clock not in observed.failures and observed.clock is None:
            return None
        tracking = observed.part(Part.clock, observed.clock)
    except ServiceDown:
        return _alert(
            "chronyd is not running: the clock is no longer kept to NTP and drifts from the ESXi hosts' "
            "(start chrony.service again, or restart the appliance)"
        )
    except ControlError as exc:
        return _alert(f"chronyd's state could not be read: {exc}")
    if not tracking.synchronised:
        if up < GRACE_SECONDS:
            return None
        return _alert(
            "chronyd follows no NTP source"
            + (" (none answered since it started)" if tracking.reference_time == 0 else "")
            + ": check the appliance's ntp_servers (OVF property) and that UDP port 123 reaches them"
        )
    if abs(tracking.offset) > MAX_OFFSET_SECONDS:
        return _alert(
            f"the clock is {abs(tracking.offset):.3f} s off NTP time (source {tracking.reference or '?'}): "
            "chronyd slews it back slowly; a clock this far off upsets NFSv4 leases and Kerberos"
        )
    return None


def _alert(message: str) -> Alert:
    return Alert(key=KEY, severity="warning", subject=SUBJECT, message=message)
