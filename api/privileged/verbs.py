"""The fixed set of verbs the control service runs, and the handling of one call: a name not in this set
is refused, arguments are validated by the verb's own types, and its value or typed error answered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from api.backup import changes as backup
from api.calibration import changes as calibration
from api.exports import changes as exports
from api.firewall import changes as firewall
from api.iscsi import changes as iscsi
from api.notify import changes as notify
from api.privileged import wire
from api.privileged.host import Host
from api.storage import changes as storage
from api.support import changes as support
from api.tuning import changes as tuning
from api.upgrades import changes as upgrades
from appliance.control.errors import Refused

DOMAINS = (storage, exports, iscsi, firewall, tuning, notify, upgrades, backup, calibration, support)
VERBS: dict[str, Callable[..., Any]] = {
    wire.name_of(verb): verb for domain in DOMAINS for verb in domain.VERBS
}


def handle(host: Host, line: bytes) -> bytes:
    """The answer line to one call line; an error without a type of its own (a fault in the code, a
    test's strict replay refusing a command) is raised, for the caller to log or fail on."""
    try:
        name, sent = wire.parse_call(line)
        verb = VERBS.get(name)
        if verb is None:
            raise Refused(f"{name!r:.200} is not a verb of the control service")
        return wire.answer(verb, verb(host, **wire.arguments(verb, sent)))
    except Exception as exc:
        if not wire.carried(exc):
            raise
        return wire.error(exc)
