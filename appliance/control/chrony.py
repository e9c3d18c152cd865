"""chronyd's view of the clock, read with ``chronyc -n -c tracking`` (CSV, one line), and the uptime since boot.

ESXi hosts, vCenter and the appliance must agree on the time: NFSv4 leases, Kerberos, TLS certificates
and log correlation all assume it. chronyd (Debian's chrony, sources from first boot's
/etc/chrony/sources.d/arcvsa.sources) keeps it; this module only reads what chronyd says.

``chronyc`` exits 0 with the tracking line while chronyd runs, synchronised or not, and exits 1 printing
"506 Cannot talk to daemon" on its stdout when chronyd is not running: that answer is ServiceDown.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from appliance.control.errors import BadOutput, CommandFailed, ServiceDown
from appliance.control.files import Files
from appliance.control.gateway import Gateway

# -n: the source's address as is; a reverse DNS lookup would make every alert read wait on the resolver.
TRACKING = ["chronyc", "-n", "-c", "tracking"]
# chronyc answers from a local socket at once; a daemon that does not answer is given up on sooner.
CHRONYC_TIMEOUT = 15.0
NOT_RUNNING = "506 Cannot talk to daemon"
UPTIME = "/proc/uptime"
# chronyc's CSV tracking line: reference id, name, stratum, reference time, system time offset, last
# offset, RMS offset, frequency, residual frequency, skew, root delay, root dispersion, update interval,
# leap status.
FIELDS = 14
UNSYNCHRONISED = "Not synchronised"


class Tracking(BaseModel):
    """What ``chronyc tracking`` tells of the system clock."""

    reference: str = Field(description="the source it follows (name or address), empty when none")
    stratum: int = Field(description="0 while it follows nothing")
    reference_time: float = Field(description="Unix time of the last update from the source (0: never)")
    offset: float = Field(description="seconds between the system clock and NTP time now (System time)")
    last_offset: float = Field(description="the offset measured at the last clock update, seconds")
    leap_status: str = Field(description="Normal, Insert second, Delete second or Not synchronised")

    @property
    def synchronised(self) -> bool:
        """chronyd follows a source (leap status is anything but "Not synchronised")."""
        return self.leap_status != UNSYNCHRONISED


def parse_tracking(text: str) -> Tracking:
    """The one CSV line of ``chronyc -c tracking``; BadOutput for anything else."""
    lines = text.strip().splitlines()
    fields = lines[0].split(",") if len(lines) == 1 else []
    if len(fields) != FIELDS:
        raise BadOutput(f"chronyc tracking: expected one line of {FIELDS} fields, got {text.strip()[:200]!r}")
    try:
        return Tracking(
            reference=fields[1] or fields[0].lstrip("0"),
            stratum=int(fields[2]),
            reference_time=float(fields[3]),
            offset=float(fields[4]),
            last_offset=float(fields[5]),
            leap_status=fields[13],
        )
    except ValueError:
        raise BadOutput(f"chronyc tracking: not numbers where expected in {text.strip()[:200]!r}") from None


def tracking(gw: Gateway) -> Tracking:
    """chronyd's tracking now; ServiceDown when chronyd is not running."""
    result = gw.query(TRACKING, timeout=CHRONYC_TIMEOUT, ok_codes=(0, 1))
    if result.exit_code == 0:
        return parse_tracking(result.stdout)
    said = (result.stdout + result.stderr).strip()
    if NOT_RUNNING in said:
        raise ServiceDown("chronyd is not running (chronyc: 506 Cannot talk to daemon)")
    raise CommandFailed(TRACKING, result.exit_code, said)


def uptime(files: Files) -> float | None:
    """Seconds since boot (the first number of /proc/uptime); None where there is no such file."""
    text = files.read(UPTIME)
    if text is None:
        return None
    try:
        return float(text.split()[0])
    except (IndexError, ValueError):
        raise BadOutput(f"{UPTIME}: unexpected {text.strip()[:100]!r}") from None
