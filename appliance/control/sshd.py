"""The SSH service switched on or off (ssh.service enabled and running, or neither).

The image leaves it off; an administrator turns it on from the api, keys only (sshd's drop-in allows no
passwords). The firewall opens 22 to the management networks only while it is on.
"""

from __future__ import annotations

from appliance.control.errors import BadOutput, CommandFailed
from appliance.control.gateway import Gateway

UNIT = "ssh.service"
SYSTEMCTL_TIMEOUT = 60.0
# systemctl(1) is-enabled: the state it prints. Exit 1 also means systemctl itself failed (no answer from
# PID 1 on the bus), with nothing on stdout: that is no "off", which the firewall would write down and
# act on (closing 22 and stopping sshd on an appliance that was deployed with SSH on).
ON = frozenset({"enabled", "enabled-runtime"})
OFF = frozenset({"disabled", "masked", "masked-runtime"})


def enabled(gw: Gateway) -> bool:
    """Whether ssh.service starts at boot; a typed error when systemctl gave no such answer."""
    argv = ["systemctl", "is-enabled", UNIT]
    result = gw.query(argv, timeout=SYSTEMCTL_TIMEOUT, ok_codes=(0, 1))
    state = result.stdout.strip()
    if state in ON:
        return True
    if state in OFF:
        return False
    if result.exit_code != 0:
        raise CommandFailed(argv, result.exit_code, result.stderr)
    raise BadOutput(f"systemctl is-enabled {UNIT}: unexpected state {state!r}")


def switch(gw: Gateway, on: bool) -> bool:
    """ssh.service enabled and started (on) or disabled and stopped; True when that changed anything."""
    if enabled(gw) == on:
        return False
    verb = "enable" if on else "disable"
    gw.run(["systemctl", verb, "--now", UNIT], timeout=SYSTEMCTL_TIMEOUT)
    return True
