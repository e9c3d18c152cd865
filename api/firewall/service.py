"""The firewall as desired state: settings stored in SQLite, the rule set rendered from them and from what
the appliance serves (the exports' hosts, whether an iSCSI target exists), and SSH switched to match.

A change of the management networks could cut off the administrator who makes it (an address seen
through NAT, a proxy): it is refused when the caller's own address is left out, and otherwise goes on
trial. The rules are live at once, the previous ones come back by themselves after TRIAL_SECONDS
(appliance.control.firewall arms a systemd timer, so it happens even if the api is gone), and only a
confirmation sent through the new rules stores the change. The trial is kept in the database, so the
poller's reconcile (another process) leaves the rules on trial alone.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import time
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api.appliance import config as appliance_json
from api.errors import Conflict, WouldLockOut
from api.exports import service as exports
from api.firewall.schemas import Allowed, FirewallSettings, FirewallView, StorageNetwork, Trial
from api.firewall.table import FirewallConfig
from api.iscsi.table import IscsiTarget
from api.settings import Settings
from appliance.control import firewall, lock, sshd
from appliance.control.errors import ControlError
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.nfs.model import Protocol

log = logging.getLogger(__name__)
TRIAL_SECONDS = 90  # long enough for a browser to send its confirmation, short for one cut off
EVERYWHERE = ["0.0.0.0/0", "::/0"]


def changing(settings: Settings) -> contextlib.AbstractContextManager[None]:
    """Held by every change of the rule set: the api's routes, a restore, the poller's reconcile."""
    return lock.held(settings.data_dir / "firewall.lock")


def defaults(settings: Settings, ssh: bool = False, ssh_root: bool = False) -> FirewallSettings:
    """Before an administrator saves any: the management networks first boot was given (the
    management_networks vApp property, in appliance.json), else every address; no iSCSI network; SSH
    and root's key login as given."""
    try:
        given = FirewallSettings(management=appliance_json.read(settings)["management_networks"]).management
    except (KeyError, ValueError):  # none given, or an appliance.json before them
        given = []
    return FirewallSettings(management=given or EVERYWHERE, iscsi=[], ssh=ssh, ssh_root=ssh_root)


def stored(db: Session) -> FirewallSettings | None:
    row = db.get(FirewallConfig, 1)
    if row is None or row.settings_json is None:
        return None
    return FirewallSettings.model_validate_json(row.settings_json)


def _row(db: Session) -> FirewallConfig:
    row = db.get(FirewallConfig, 1)
    if row is None:
        row = FirewallConfig(id=1)
        db.add(row)
    return row


def trial(db: Session, at: float | None = None) -> Trial | None:
    """The change on trial, None when there is none or its time is up (the previous rules are back)."""
    row = db.get(FirewallConfig, 1)
    if row is None or row.trial_json is None or row.trial_until is None:
        return None
    now = time.time() if at is None else at
    # A trial lasts TRIAL_SECONDS from its start: one that ends later was not armed here (the api's
    # user writes this table) and must not hold the reconcile off for ever.
    if row.trial_until <= now or row.trial_until > now + TRIAL_SECONDS + 1:
        return None
    return Trial(
        settings=FirewallSettings.model_validate_json(row.trial_json),
        until=datetime.fromtimestamp(row.trial_until, UTC),
    )


def storage_network(settings: Settings) -> StorageNetwork | None:
    """The storage network first boot configured (appliance.json), None without one or an unreadable
    entry (the management NIC then serves everything, as with one NIC)."""
    try:
        return StorageNetwork.model_validate(appliance_json.read(settings).get("storage_network"))
    except ValueError:
        return None


def _clear_trial(row: FirewallConfig) -> None:
    row.trial_json = None
    row.trial_until = None


def rules(db: Session, settings: Settings, wanted: FirewallSettings) -> firewall.Rules:
    """What the rule set allows under ``wanted``, with the stored exports' hosts and targets, NFS and
    iSCSI on the storage network's NIC alone when first boot configured one."""
    served = exports.desired(db)
    targets = db.scalar(select(func.count()).select_from(IscsiTarget)) or 0
    storage = storage_network(settings)
    return firewall.Rules(
        storage_interface=None if storage is None else storage.interface,
        management=[ipaddress.ip_network(n) for n in wanted.management],
        ssh=wanted.ssh,
        nfs3=[ipaddress.ip_address(c) for e in served if e.protocol == Protocol.v3 for c in e.clients],
        nfs4=[ipaddress.ip_address(c) for e in served if e.protocol != Protocol.v3 for c in e.clients],
        iscsi=[ipaddress.ip_network(n) for n in wanted.iscsi] if targets else [],
    )


def allowed(applied: firewall.Rules) -> list[Allowed]:
    """The accept rules of ``applied``, as a person reads them."""

    def text(items: list[firewall.Network] | list[firewall.Address]) -> list[str]:
        return sorted({str(i) for i in items})

    management = text(applied.management)
    nic = applied.storage_interface
    off_storage = f"not {nic}" if nic else None
    listed = [
        Allowed(service="web interface", ports=[firewall.HTTPS], sources=management, interface=off_storage)
    ]
    if applied.ssh:
        listed.append(Allowed(service="SSH", ports=[firewall.SSH], sources=management, interface=off_storage))
    listed += [
        Allowed(
            service="NFSv3", ports=sorted(firewall.NFS3_PORTS), sources=text(applied.nfs3), interface=nic
        ),
        Allowed(
            service="NFSv4.1", ports=list(firewall.NFS4_PORTS), sources=text(applied.nfs4), interface=nic
        ),
        Allowed(service="iSCSI", ports=[firewall.ISCSI], sources=text(applied.iscsi), interface=nic),
    ]
    return listed


def view(db: Session, settings: Settings, client: str) -> FirewallView:
    """The settings in effect (stored, else the defaults), their rules and any change on trial."""
    shown = stored(db) or defaults(settings)
    return FirewallView(
        settings=shown,
        allowed=allowed(rules(db, settings, shown)),
        trial=trial(db),
        your_address=client,
        storage_network=storage_network(settings),
    )


def _address(client: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    try:
        return ipaddress.ip_address(client)
    except ValueError:
        raise WouldLockOut(
            f"the appliance cannot tell the address your requests come from ({client!r}), so it cannot "
            "check that the new management networks still let you in",
            field="management",
        ) from None


def refuse_lockout(wanted: FirewallSettings, client: str) -> None:
    """WouldLockOut unless ``client`` is still allowed to the web interface under ``wanted``."""
    address = _address(client)
    if address.is_loopback:  # loopback is always let in (the console, an SSH tunnel)
        return
    networks = [ipaddress.ip_network(n) for n in wanted.management]
    if not firewall.allows(networks, address):
        raise WouldLockOut(
            f"your address {address} is in none of the management networks: saving them would cut you off "
            "the web interface; add your address or its network",
            field="management",
            your_address=str(address),
        )


def save(
    gw: Gateway, files: Files, db: Session, settings: Settings, wanted: FirewallSettings, client: str
) -> FirewallView:
    """Apply and store ``wanted``; a change of the management networks goes on trial instead."""
    refuse_lockout(wanted, client)
    with changing(settings):
        row = _row(db)
        pending = trial(db)
        if pending is not None:
            raise Conflict(
                f"a firewall change waits for confirmation until {pending.until:%H:%M:%S} UTC: confirm or "
                "cancel it first",
                field="management",
            )
        current = stored(db) or defaults(settings, sshd.enabled(files), sshd.root_login(files))
        if set(wanted.management) != set(current.management):
            firewall.try_out(gw, rules(db, settings, wanted), TRIAL_SECONDS)
            row.trial_json = wanted.model_dump_json()
            row.trial_until = time.time() + TRIAL_SECONDS
            db.commit()
            log.info("firewall: management networks %s on trial for %ds", wanted.management, TRIAL_SECONDS)
            return view(db, settings, client)
        _converge(gw, files, db, settings, wanted)
        row.settings_json = wanted.model_dump_json()
        _clear_trial(row)
        db.commit()
    log.info(
        "firewall saved: iSCSI networks %s, SSH %s, root's key login %s",
        wanted.iscsi,
        "on" if wanted.ssh else "off",
        "on" if wanted.ssh_root else "off",
    )
    return view(db, settings, client)


def confirm(gw: Gateway, files: Files, db: Session, settings: Settings, client: str) -> FirewallView:
    """Keep the change on trial: its rules in the boot file, its settings stored."""
    with changing(settings):
        row = _row(db)
        pending = trial(db)
        if pending is None:
            expired = row.trial_json is not None
            _clear_trial(row)
            db.commit()
            raise Conflict(
                "the change was not confirmed in time: the previous rules are back"
                if expired
                else "no firewall change waits for confirmation"
            )
        _converge(gw, files, db, settings, pending.settings, keep=True)
        row.settings_json = pending.settings.model_dump_json()
        _clear_trial(row)
        db.commit()
    log.info("firewall: management networks %s confirmed", pending.settings.management)
    return view(db, settings, client)


def cancel(gw: Gateway, files: Files, db: Session, settings: Settings, client: str) -> FirewallView:
    """Drop the change on trial now: the stored rules back at once."""
    with changing(settings):
        row = _row(db)
        if trial(db) is None:
            raise Conflict("no firewall change waits for confirmation")
        firewall.roll_back(gw, files)
        _clear_trial(row)
        db.commit()
    return view(db, settings, client)


def _converge(
    gw: Gateway, files: Files, db: Session, settings: Settings, wanted: FirewallSettings, keep: bool = False
) -> list[str]:
    changes = []
    if sshd.switch_root(gw, files, wanted.ssh_root):
        changes.append(f"root's SSH key login {'on' if wanted.ssh_root else 'off'}")
    if sshd.switch(gw, files, wanted.ssh):
        changes.append(f"SSH turned {'on' if wanted.ssh else 'off'}")
    applied = rules(db, settings, wanted)
    if keep:
        firewall.keep(gw, files, applied)
        changes.append("rule set kept")
    elif firewall.apply(gw, files, applied):
        changes.append("rule set loaded")
    return changes


def reconcile(gw: Gateway, files: Files, db: Session, settings: Settings) -> list[str]:
    """The rule set and SSH back to the stored settings; nothing while a change is on trial.

    With no settings stored yet, the defaults are stored with SSH as first boot left it (on when the OVF
    gave a key), so what runs is written down before anything is changed.
    """
    with changing(settings):
        row = _row(db)
        if trial(db) is not None:
            return []
        _clear_trial(row)
        wanted = stored(db)
        if wanted is None:  # SSH as found needs no switch: the rule set alone follows it
            wanted = defaults(settings, sshd.enabled(files), sshd.root_login(files))
            row.settings_json = wanted.model_dump_json()
            changes = ["rule set loaded"] if firewall.apply(gw, files, rules(db, settings, wanted)) else []
        else:
            if "ssh_root" not in wanted.model_fields_set:
                # stored by a release whose image let root's keys in: an automation that uses them keeps
                # working (turning it off is one Settings change), one with no key for root stays off
                root_keys = (files.read(sshd.ROOT_KEYS) or "").strip()
                wanted = wanted.model_copy(update={"ssh_root": wanted.ssh and bool(root_keys)})
                row.settings_json = wanted.model_dump_json()
            changes = _converge(gw, files, db, settings, wanted)
        db.commit()
        return changes


def follow(gw: Gateway, files: Files, db: Session, settings: Settings) -> None:
    """After an export or target changed: the rule set follows at once (a fault is left to the poller's
    reconcile, which alerts on it; the storage change itself stands). Before the first reconcile has
    adopted the firewall (stored its settings) there is nothing to follow: that reconcile renders it."""
    if stored(db) is None:
        return
    try:
        changes = reconcile(gw, files, db, settings)
    except ControlError as exc:
        log.warning("firewall not brought up to date after a storage change: %s", exc)
        return
    if changes:
        log.info("firewall: %s", "; ".join(changes))
