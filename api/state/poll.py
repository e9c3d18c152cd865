"""Observe, derive the alerts, publish: one pass of the state poller, or a refresh after a change.

The poller (the metrics service) runs a full pass on a timer; the api refreshes the parts a change
touched before it answers the change; the api also publishes once at start when this boot has no
snapshot yet. All of them go through :func:`refresh`, under the snapshot's one writers' lock.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from api import startup
from api.alerts import service as alerts
from api.exports import service as exports
from api.settings import Settings
from api.state.snapshot import Published, Store, boot_id, now
from api.storage import presence
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.observed import EVERY_PART, Observed, Part, observe
from appliance.control.reconciled import Reconciled

log = logging.getLogger(__name__)
# Parts a pass of the poller reads every time; the rest (imports: zpool import reads every disk's
# labels) every SLOW_EVERY passes, and after the changes that can alter them.
EVERY_PASS = frozenset(EVERY_PART - {Part.imports})
SLOW_EVERY = 6


def refresh(
    store: Store,
    gw: Gateway,
    files: Files,
    factory: sessionmaker[Session],
    settings: Settings,
    parts: Iterable[Part] = EVERY_PART,
    reconciled: list[Reconciled] | None = None,
) -> Published:
    """Observe ``parts``, merge them into the published state, derive its alerts and publish it;
    ``reconciled``: a reconcile's outcome, published in place of the last one."""
    wanted = frozenset(parts)
    with store.writing():
        with factory() as db:
            chosen = exports.backend(db, settings)  # the alerts look at its service alone
        seen = observe(gw, files, wanted, services=(chosen,))
        before = store.read()
        state = (
            before.observed.merged(seen, wanted) if before is not None else Observed().merged(seen, wanted)
        )
        if reconciled is None:
            reconciled = before.reconciled if before is not None else []
        with factory() as db:
            found = alerts.derive(state, db, settings, files, reconciled)
        taken = now()
        polled = taken if wanted >= EVERY_PASS else (before.polled_at if before is not None else None)
        published = Published(
            boot_id=boot_id(),
            taken_at=taken,
            polled_at=polled,
            observed=state,
            alerts=found,
            reconciled=reconciled,
        )
        store.write(published)
    return published


def after_change(app_state: Any, parts: Iterable[Part]) -> None:
    """Refresh ``parts`` after a change through the api, before it answers (see the module docstring)."""
    refresh(
        app_state.snapshot,
        app_state.storage_gateway,
        app_state.storage_files,
        app_state.sessionmaker,
        app_state.settings,
        parts,
    )


def start(app_state: Any) -> threading.Thread | None:
    """At api start on a machine with storage of its own (an appliance, or first boot's role says so)
    and no snapshot of this boot yet: publish one, in a thread, so the pages answer as soon as the tools
    have (or with the tools' own errors where they are missing). The poller's first pass may come first,
    which is as good."""
    settings: Settings = app_state.settings
    own = settings.build_manifest.is_file() or presence.detect(settings, app_state.storage_gateway).present
    if not own or app_state.snapshot.read() is not None:
        return None
    return startup.in_background(
        "state-first-pass",
        lambda: _start(app_state),
        log,
        "the appliance's state could not be published at start; the poller retries every pass",
    )


def _start(app_state: Any) -> None:
    if app_state.snapshot.read() is None:
        after_change(app_state, EVERY_PART)
