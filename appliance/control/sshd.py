"""The SSH service switched on or off (ssh.service enabled and running, or neither).

The image leaves it off; an administrator turns it on from the api, keys only (sshd's drop-in allows no
passwords). The firewall opens 22 to the management networks only while it is on.
"""

from __future__ import annotations

from appliance.control.gateway import Gateway

UNIT = "ssh.service"
SYSTEMCTL_TIMEOUT = 60.0


def enabled(gw: Gateway) -> bool:
    """Whether ssh.service starts at boot (``systemctl is-enabled``: 0 enabled, 1 disabled or masked)."""
    result = gw.query(["systemctl", "is-enabled", UNIT], timeout=SYSTEMCTL_TIMEOUT, ok_codes=(0, 1))
    return result.exit_code == 0 and result.stdout.strip() == "enabled"


def switch(gw: Gateway, on: bool) -> bool:
    """ssh.service enabled and started (on) or disabled and stopped; True when that changed anything."""
    if enabled(gw) == on:
        return False
    verb = "enable" if on else "disable"
    gw.run(["systemctl", verb, "--now", UNIT], timeout=SYSTEMCTL_TIMEOUT)
    return True
