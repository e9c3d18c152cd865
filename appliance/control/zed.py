"""ZFS events wake the state poller: a zedlet ZED runs for each event leaves a file named by the event's id
where the poller looks between its passes, so a vdev that faults or a scrub that ends is published within
a second or two instead of at the poller's next pass.

One file per event, not one file for the last: ZED runs zedlets side by side, so the zedlets of two
events close together (a short scrub's start and end) finish in either order. The poller takes the files
it found before its pass reads the pools; an event whose file lands after that wakes the next pass.

Events of arcvsa's own commands (``history_event``, ``config_sync``: every zfs create or set) are skipped:
the api refreshes what it changed itself. The poller writes the zedlet at its start, as it is not part of
/etc an in-place upgrade installs; ZED reads its zedlets when it starts, so a new one restarts ZED (it only
notifies: no I/O waits on it).
"""

from __future__ import annotations

import logging

from appliance.control.files import Files
from appliance.control.gateway import Gateway

log = logging.getLogger(__name__)
ZEDLET = "/etc/zfs/zed.d/all-arcvsa-wake.sh"  # all-*: ZED runs it for every class of event
EVENTS = "/run/arcvsa-zfs-events"  # tmpfs: none carried over a boot
ZEDLET_TEXT = f"""\
#!/bin/sh
# Written by arcvsa (appliance.control.zed) at each start of its state poller: a file named by the id of
# each ZFS event that is not arcvsa's own command, where the poller looks between its passes.
case "$ZEVENT_SUBCLASS" in
history_event | config_sync) exit 0 ;;
esac
mkdir -p {EVENTS}
printf '%s\\n' "$ZEVENT_SUBCLASS" > "{EVENTS}/$ZEVENT_EID"
"""


def hold_zedlet(gw: Gateway, files: Files) -> None:
    """The zedlet in place (root's, 0755: ZED runs no other), ZED restarted when it was not."""
    if files.write(ZEDLET, ZEDLET_TEXT, mode=0o755):
        gw.run(["systemctl", "try-restart", "zfs-zed.service"])
        log.info("ZFS events now wake the state poller (%s written, ZED restarted)", ZEDLET)


def take_events(files: Files) -> list[str]:
    """The events the zedlet left since the last take ("<id> <class>", oldest first), their files removed;
    empty when there are none."""
    taken = []
    for eid in sorted(files.listdir(EVENTS), key=lambda name: (len(name), name)):  # ids: numeric order
        subclass = (files.read(f"{EVENTS}/{eid}") or "").strip()  # empty: read while the zedlet wrote it
        files.remove(f"{EVENTS}/{eid}")
        taken.append(f"{eid} {subclass}".rstrip())
    return taken
