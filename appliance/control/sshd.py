"""The SSH service switched on or off by Debian's own switch file, /etc/ssh/sshd_not_to_be_run.

ssh.service stays enabled; its unit starts only while that file is absent (``ConditionPathExists=!``,
checked when its start job runs). The sealed image has the file (SSH off); first boot removes it when
the OVF gives a key, and this module when an administrator turns SSH on. So turning SSH on or off never
enables or disables a unit: no daemon-reload, and first boot queues no job of its own (ssh.service is in
the boot's transaction, ordered after first boot). Keys only either way (sshd's drop-in allows no
passwords); the firewall opens 22 to the management networks only while SSH is on.

Administrators log in as the arcvsa account. root may log in with a key only while ROOT_FILE exists (for
automation with no terminal, which the admin account's first login cannot serve): it comes before the
image's drop-in, whose PermitRootLogin is no, and sshd keeps the first value it reads. root then takes
the admin account's keys, so there is one list of keys to keep.
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
ROOT_FILE = "/etc/ssh/sshd_config.d/40-arcvsa-root.conf"
ROOT_TEXT = (
    "# arcvsa's Settings (Firewall and SSH): root may log in with a key, the arcvsa account's keys, for\n"
    "# automation that has no terminal. Removed when turned off; 50-arcvsa.conf then keeps root out.\n"
    "PermitRootLogin prohibit-password\n"
)
ADMIN_KEYS = "/home/arcvsa/.ssh/authorized_keys"
ROOT_KEYS = "/root/.ssh/authorized_keys"
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


def root_login(files: Files) -> bool:
    """Whether root may log in with a key: ROOT_FILE is there."""
    return files.read(ROOT_FILE) is not None


def switch_root(gw: Gateway, files: Files, on: bool) -> bool:
    """root's key login on (ROOT_FILE written, root given the admin account's keys as they are now) or
    off (both removed); sshd reloads when its settings changed, if it runs. True when anything changed.
    Run again, it brings root's keys back in line with the admin account's."""
    if on:
        keys = files.write(ROOT_KEYS, files.read(ADMIN_KEYS) or "", mode=0o600)
        changed = files.write(ROOT_FILE, ROOT_TEXT)
    else:
        keys = files.remove(ROOT_KEYS)
        changed = files.remove(ROOT_FILE)
    if changed:
        # sshd reads its settings once; a reload keeps the sessions open now (a stopped sshd stays stopped)
        gw.run(["systemctl", "try-reload-or-restart", UNIT], timeout=SYSTEMCTL_TIMEOUT)
    return changed or keys
