"""The SSH service switched on or off by Debian's own switch file, /etc/ssh/sshd_not_to_be_run.

ssh.service stays enabled; its unit starts only while that file is absent (``ConditionPathExists=!``,
checked when its start job runs). The sealed image has the file (SSH off); first boot removes it when
the OVF gives a key, and this module when an administrator turns SSH on. So turning SSH on or off never
enables or disables a unit: no daemon-reload, and first boot queues no job of its own (ssh.service is in
the boot's transaction, ordered after first boot). Keys only either way (sshd's drop-in allows no
passwords); the firewall opens 22 to the management networks only while SSH is on.
"""

from __future__ import annotations

from appliance.control.files import Files
from appliance.control.gateway import Gateway

UNIT = "ssh.service"
OFF_FILE = "/etc/ssh/sshd_not_to_be_run"
OFF_TEXT = (
    "# While this file exists ssh.service does not start (its ConditionPathExists=!). arcvsa's Settings\n"
    "# (Firewall and SSH) remove it to turn SSH on and write it to turn SSH off.\n"
)
SYSTEMCTL_TIMEOUT = 60.0


def enabled(files: Files) -> bool:
    """Whether SSH is on: its switch file is absent."""
    return files.read(OFF_FILE) is None


def switch(gw: Gateway, files: Files, on: bool) -> bool:
    """SSH on (switch file removed, sshd started) or off (file written, sshd stopped; sessions open
    now keep going, as after any stop of sshd); True when that changed anything."""
    if enabled(files) == on:
        return False
    if on:
        files.remove(OFF_FILE)
        gw.run(["systemctl", "start", UNIT], timeout=SYSTEMCTL_TIMEOUT)
    else:
        files.write(OFF_FILE, OFF_TEXT)
        gw.run(["systemctl", "stop", UNIT], timeout=SYSTEMCTL_TIMEOUT)
    return True
