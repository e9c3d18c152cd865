"""ZFS events wake the state poller: a zedlet ZED runs for each event leaves the event's id where the
poller looks between its passes, so a vdev that faults or a scrub that ends is published within a second
or two instead of at the poller's next pass.

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
EVENT = "/run/arcvsa-zfs-event"
ZEDLET_TEXT = f"""\
#!/bin/sh
# Written by arcvsa (appliance.control.zed) at each start of its state poller: the id of each ZFS event
# that is not arcvsa's own command, where the poller looks between its passes.
case "$ZEVENT_SUBCLASS" in
history_event | config_sync) exit 0 ;;
esac
printf '%s %s\\n' "$ZEVENT_EID" "$ZEVENT_SUBCLASS" > {EVENT}
"""


def hold_zedlet(gw: Gateway, files: Files) -> None:
    """The zedlet in place (root's, 0755: ZED runs no other), ZED restarted when it was not."""
    if files.write(ZEDLET, ZEDLET_TEXT, mode=0o755):
        gw.run(["systemctl", "try-restart", "zfs-zed.service"])
        log.info("ZFS events now wake the state poller (%s written, ZED restarted)", ZEDLET)


def last_event(files: Files) -> str | None:
    """The last event the zedlet saw ("<id> <class>"), None before the first one of this boot."""
    text = files.read(EVENT)
    return text.strip() if text is not None else None
