"""Bring the appliance to its desired state: each noun's reconciler given what is stored for it in SQLite
(the exports, the tuning plan, the iSCSI targets, the firewall).

The poller runs this at its first pass (boot) and every RECONCILE_EVERY passes after; the api's routes
reconcile the noun they change before they store it. The outcome is published with the state, and a noun
that could not be converged raises an alert until a later reconcile converges it.
"""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from api.exports import service as exports
from api.firewall import service as firewall
from api.iscsi import service as iscsi
from api.secretbox import SecretBox
from api.settings import Settings
from api.state.snapshot import now
from api.tuning import service as tuning
from appliance.control import ownership
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.nfs import backends
from appliance.control.reconciled import Noun, Reconciled, attempt

RECONCILE_EVERY = 6  # passes of the poller: a minute at its default interval


def nfs_exports(gw: Gateway, files: Files, factory: sessionmaker[Session], settings: Settings) -> list[str]:
    """The chosen NFS server's export set back to the stored exports (backends.converge)."""
    with exports.changing(settings), factory() as db:  # the desired set read after any change committed
        chosen = exports.backend(db, settings)
        done = backends.converge(gw, files, chosen, exports.desired(db))
    return exports.said(done, chosen)


def zfs_parameters(files: Files, factory: sessionmaker[Session], settings: Settings) -> list[str]:
    """The stored tuning plan in effect and in modprobe.d (api.tuning.service.reconcile)."""
    with tuning.changing(settings), factory() as db:
        return tuning.reconcile(files, db)


def iscsi_targets(gw: Gateway, files: Files, factory: sessionmaker[Session], settings: Settings) -> list[str]:
    """LIO back to the stored iSCSI targets (api.iscsi.service.reconcile)."""
    with iscsi.changing(settings), factory() as db:
        return iscsi.reconcile(gw, files, db, SecretBox(settings.key_file))


def firewall_rules(
    gw: Gateway, files: Files, factory: sessionmaker[Session], settings: Settings
) -> list[str]:
    """The rule set and SSH back to the stored firewall settings (api.firewall.service.reconcile)."""
    with factory() as db:
        return firewall.reconcile(gw, files, db, settings)


def everything(
    gw: Gateway, files: Files, factory: sessionmaker[Session], settings: Settings
) -> list[Reconciled]:
    """Reconcile every noun, each on its own: one that fails does not keep the others from converging."""
    return [
        attempt(Noun.nfs_exports, now, lambda: nfs_exports(gw, files, factory, settings)),
        attempt(Noun.zfs_parameters, now, lambda: zfs_parameters(files, factory, settings)),
        attempt(Noun.iscsi_targets, now, lambda: iscsi_targets(gw, files, factory, settings)),
        # last: it opens the ports of what the nouns above serve
        attempt(Noun.firewall, now, lambda: firewall_rules(gw, files, factory, settings)),
        attempt(Noun.api_folder, now, lambda: ownership.reconcile(settings.data_dir)),
    ]
