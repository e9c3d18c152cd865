"""An arcvsa appliance's own api, as the fleet drives it: TLS pinned, bearer login, storage reconcile.

TLS: an appliance makes a self-signed certificate at first boot, so there is no CA to check it against.
The plan may carry its SHA-256 thumbprint; when it does not, the certificate presented on first contact
is pinned (`first_contact`, from provisioning.health's wait), reported to the caller to record (the api
keeps it in the stored plan), and every connection accepts that certificate only: none goes unverified.

Storage: `ensure_storage` gives an appliance its datastore in three idempotent steps, each a GET first
and a create only of what is missing, so a resumed apply never fails on "already exists":
pool (a stripe of the plan's data LUN disks, with the SLOG and L2ARC SSDs among its disks) → dataset
(tuned by the pool type's profile) → NFS export to the ESXi hosts (created, or its clients and protocol
updated when they differ).

Which guest disk is which LUN disk: ESXi shows a VMDK's uuid as the disk's WWN inside the guest when the
VM has `disk.EnableUUID = TRUE` (the fleet sets it when it attaches the disks), and a physical-mode RDM
passes the LUN's own NAA id through. `wwn_of_vmdk` / `wwn_of_naa` turn the vCenter side into the `wwn`
that GET /api/storage/disks reports, and `guest_paths` picks the /dev/disk/by-id path of each. A plan can
name the guest path of a disk itself (LunDisk.guest_path) where that does not hold (the lab appliance).

Full clones through ZFS clones (`prepare_clones`, `clone_desktop`): the golden VM's folder on the arcvsa
datastore is a dataset of its own; it is snapshotted once ('<dataset>@arcvsa-<vSphere snapshot>') and
cloned to '<datastore dataset>/<desktop>', whose mount point is the desktop's folder on the datastore.
"""

from __future__ import annotations

import http.client
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal

from provisioning import cancel
from provisioning.appliance_errors import (
    ApplianceApiError,
    ApplianceBadAnswer,
    ApplianceCertificateMismatch,
    ApplianceLoginFailed,
    ApplianceRequestRefused,
    ApplianceUnreachable,
)
from provisioning.certificate import fetch_certificate, pinned_context, translate_transport_error
from provisioning.errors import NotAVCenter, ThumbprintMismatch, VCenterError

ADMIN = "admin"  # first boot makes this user with the OVF admin_password
STORAGE = "/api/storage"
# A started appliance answers its reads 503 state_pending until its first state is published: seconds,
# longer on a slow host. How long a read waits that out, and how often it asks.
PENDING_WAIT = 120.0
PENDING_RETRY = 2.0


class DiskNotVisible(ApplianceApiError):
    """A LUN disk the plan attached is not among the disks the appliance sees."""


def split_endpoint(endpoint: str) -> tuple[str, int]:
    """('host', port) of 'host:port' or '[v6]:port'."""
    host, _, port = endpoint.rpartition(":")
    return host.strip("[]"), int(port)


def first_contact(endpoint: str, timeout: float, name: str = "") -> str:
    """The SHA-256 thumbprint of the certificate `endpoint` presents now, to pin (trust on first use).

    Raises ApplianceUnreachable or ApplianceBadAnswer while nothing answers TLS there (still booting).
    """
    host, port = split_endpoint(endpoint)
    try:
        return fetch_certificate(host, port, timeout).thumbprint_sha256
    except VCenterError as fault:  # the shared certificate reader speaks of vCenter: say appliance
        raise appliance_fault(fault, fault.__cause__ or fault, name or endpoint, endpoint) from fault


def appliance_fault(fault: VCenterError, exc: BaseException, name: str, endpoint: str) -> ApplianceApiError:
    """The appliance fault for a socket, TLS or HTTP failure (``exc``, translated as ``fault`` by the
    shared transport translation) talking to the api of `name` at `endpoint`."""
    if isinstance(fault, ThumbprintMismatch):
        return ApplianceCertificateMismatch(
            f"{name}: its api at {endpoint} presented a certificate with SHA-256 {fault.thumbprint}, not the "
            "one pinned for this appliance. Another machine may hold its address, or the appliance was "
            "deployed again and made a new certificate: if you trust the new one, clear the appliance's "
            "thumbprint in the plan and resume.",
            thumbprint=fault.thumbprint,
        )
    if isinstance(fault, NotAVCenter):
        return ApplianceBadAnswer(
            f"{name}: {endpoint} does not answer as an arcvsa appliance's api ({exc}). Another service may "
            "hold this address or port: correct the appliance's api address in the plan, then resume."
        )
    return ApplianceUnreachable(
        f"{name}: its api at {endpoint} cannot be reached ({fault}). Check that the appliance VM is "
        "powered on and that this machine can reach that address, then resume."
    )


class ApplianceApi:
    """JSON over HTTPS to one appliance, pinned to one certificate; `login` adds the bearer token.

    `cancelled`: the run's cancel switch, looked at before every request (provisioning.cancel).
    """

    def __init__(
        self,
        endpoint: str,
        thumbprint: str,
        *,
        name: str = "",
        timeout: float = 60.0,
        cancelled: cancel.Switch = cancel.never,
    ) -> None:
        self.endpoint, self.thumbprint, self.timeout = endpoint, thumbprint, timeout
        self.name = name or endpoint
        self.token: str | None = None
        self.cancelled = cancelled

    def exchange(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """(status, decoded JSON or None); transport faults become typed ApplianceApiErrors. A read an
        appliance answers 503 state_pending (it has started and not yet published its state: "try again in
        a few seconds") is asked again for up to PENDING_WAIT seconds."""
        deadline = time.monotonic() + PENDING_WAIT
        while True:
            status, data = self._exchange(method, path, body)
            pending = status == 503 and isinstance(data, dict) and data.get("code") == "state_pending"
            if not pending or method != "GET" or time.monotonic() >= deadline:
                return status, data
            cancel.sleep(PENDING_RETRY, self.cancelled, f"waiting for {self.name} to publish its state")

    def exchange_once(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One request, its answer as it comes (503 state_pending too): for a caller that shows it."""
        return self._exchange(method, path, body)

    def upload(self, method: str, path: str, source: Path) -> Any:
        """Send a file as the request's body (application/octet-stream), read as it goes out; the
        answer as ``call`` gives it."""
        with source.open("rb") as stream:
            status, data = self._exchange(method, path, None, (stream, source.stat().st_size))
        return self.answer(method, path, status, data)

    def _exchange(
        self, method: str, path: str, body: Any, upload: tuple[BinaryIO, int] | None = None
    ) -> tuple[int, Any]:
        cancel.check(self.cancelled, f"before {method} {path} on {self.name}")
        host, port = split_endpoint(self.endpoint)
        ctx = pinned_context(self.thumbprint)
        conn = http.client.HTTPSConnection(host, port, context=ctx, timeout=self.timeout)
        headers = {"Accept": "application/json"}
        data: bytes | BinaryIO | None = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        elif upload is not None:
            data = upload[0]
            headers["Content-Type"] = "application/octet-stream"
            headers["Content-Length"] = str(upload[1])
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            raw = response.read()
        except Exception as exc:
            fault = translate_transport_error(exc, self.endpoint)
            if fault is None:
                raise
            raise appliance_fault(fault, exc, self.name, self.endpoint) from exc
        finally:
            conn.close()
        try:
            return response.status, json.loads(raw) if raw else None
        except ValueError:
            return response.status, {"detail": raw[:200].decode(errors="replace")}

    def call(self, method: str, path: str, body: Any = None) -> Any:
        """The answer of a request that must succeed; ApplianceRequestRefused with the api's code otherwise."""
        status, data = self.exchange(method, path, body)
        return self.answer(method, path, status, data)

    def answer(self, method: str, path: str, status: int, data: Any) -> Any:
        """``data`` when ``status`` says success, else ApplianceRequestRefused with the api's code."""
        if status < 400:
            return data
        detail = data.get("detail") if isinstance(data, dict) else data
        code = str(data.get("code") or "") if isinstance(data, dict) else ""
        cls = ApplianceLoginFailed if status == 401 and path.endswith("/token") else ApplianceRequestRefused
        raise cls(
            f"{self.name}: {method} {path} answered {status} {code}: {detail}".replace(" :", ":"),
            status=status,
            code=code,
        )

    def login(self, password: str, username: str = ADMIN) -> None:
        """Log in as a script (POST /api/auth/token); the token goes on every later request.

        Raises ApplianceLoginFailed at once when the appliance refuses the password: trying again only
        counts towards its lockout.
        """
        try:
            answer = self.call("POST", "/api/auth/token", {"username": username, "password": password})
        except ApplianceLoginFailed as exc:
            raise ApplianceLoginFailed(
                f"{self.name}: the admin password you entered is not this appliance's (its api refused "
                f"the login as {username!r}). Enter the admin password this appliance was deployed with "
                "(its OVF admin_password), then resume.",
                status=exc.status,
                code=exc.code,
            ) from exc
        self.token = str(answer["token"])

    def health(self) -> dict[str, Any]:
        return dict(self.call("GET", "/api/health"))

    def disks(self) -> list[dict[str, Any]]:
        return list(self.call("GET", f"{STORAGE}/disks"))

    def pool(self, name: str) -> dict[str, Any] | None:
        """The pool's health, or None when there is no such pool.

        Only the storage's own 404 (not_found) means no such pool: a machine without storage answers 404
        too, and that is an error, not a missing pool."""
        status, data = self.exchange("GET", f"{STORAGE}/pools/{name}")
        if status == 404 and isinstance(data, dict) and data.get("code") == "not_found":
            return None
        if status >= 400:
            return dict(self.call("GET", f"{STORAGE}/pools/{name}"))  # raises with the api's words
        return dict(data)

    def datasets(self, pool: str) -> list[dict[str, Any]]:
        return list(self.call("GET", f"{STORAGE}/pools/{pool}/datasets"))

    def exports(self) -> list[dict[str, Any]]:
        return list(self.call("GET", f"{STORAGE}/exports"))

    def clone(self, snapshot: str, target: str) -> dict[str, Any]:
        return dict(self.call("POST", f"{STORAGE}/clones", {"snapshot": snapshot, "target": target}))

    def destroy(self, name: str) -> bool:
        """Destroy a dataset or a snapshot ('ds@tag'); False when it is gone already (404)."""
        path = f"{STORAGE}/snapshots/{name}" if "@" in name else f"{STORAGE}/datasets/{name}"
        status, _ = self.exchange("DELETE", path)
        if status == 404:
            return False
        if status >= 400:
            self.call("DELETE", path)  # raises with the api's words
        return True


# --- which guest disk is which ----------------------------------------------------------------------------


def wwn_of_vmdk(uuid: str) -> str:
    """The WWN a guest sees for a VMDK with disk.EnableUUID: '6000C29a-...-...' → '0x6000c29a...'."""
    return "0x" + uuid.replace("-", "").replace(" ", "").lower()


def wwn_of_naa(canonical_name: str) -> str:
    """The WWN a guest sees through a physical-mode RDM of LUN 'naa.600a0b80...' → '0x600a0b80...'."""
    return "0x" + canonical_name.removeprefix("naa.").lower()


def guest_paths(
    appliance: str, wanted: Sequence[tuple[str | None, str | None]], seen: Sequence[Any]
) -> list[str]:
    """The /dev/disk/by-id path of each wanted disk, given as (guest path from the plan, WWN).

    `seen` is GET /api/storage/disks. A plan's own guest path is taken as it is (the appliance checks
    it when it creates the pool); a WWN must match exactly one disk the appliance sees, else
    DiskNotVisible names it before anything is created.
    """
    by_wwn: dict[str, list[str]] = {}
    for disk in seen:
        seen_wwn = str(disk.get("wwn") or "").lower()
        if seen_wwn:
            by_wwn.setdefault(seen_wwn, []).append(str(disk["path"]))
    paths: list[str] = []
    for i, (given, wwn) in enumerate(wanted):
        if given:
            paths.append(given)
            continue
        found = by_wwn.get((wwn or "").lower(), [])
        if len(found) != 1:
            have = ", ".join(sorted(by_wwn)) or "none"
            raise DiskNotVisible(
                f"{appliance}: LUN disk #{i} (WWN {wwn}) is not one disk the appliance sees "
                f"(WWNs it sees: {have}); ESXi shows a VMDK's uuid as its WWN only with "
                "disk.EnableUUID=TRUE, or give the disk's guest_path in the plan",
                field="fleet.appliances",
            )
        paths.append(found[0])
    return paths


# --- the storage an appliance serves ----------------------------------------------------------------------


@dataclass
class StorageTarget:
    """What one appliance must serve: a pool on its LUN disks (`devices`, the pool's data) with its SLOG
    (`log`: one SSD, or two as a mirror) and L2ARC (`cache`) SSDs, a tuned dataset, its NFS export."""

    pool: str
    devices: list[str]
    dataset: str
    profile: str
    protocol: Literal["3", "4.1"]
    clients: list[str]
    log: list[str] = field(default_factory=list)
    cache: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)


def by_role(roles: Sequence[str], paths: Sequence[str]) -> dict[str, list[str]]:
    """Each guest path under its disk's role ('data', 'log', 'cache'), in the plan's order."""
    split: dict[str, list[str]] = {"data": [], "log": [], "cache": []}
    for role, path in zip(roles, paths, strict=True):
        split[role].append(path)
    return split


def pool_words(pool: str, data: int, log: int = 0, cache: int = 0) -> str:
    """'pool tank on 2 LUN disks, SLOG on 1 SSD, L2ARC on 1 SSD': a pool's make-up, in words."""
    words = f"pool {pool} on {data} LUN disks"
    if log:
        words += ", SLOG on a mirror of 2 SSDs" if log == 2 else f", SLOG on {log} SSD"
    if cache:
        words += f", L2ARC on {cache} SSD" + ("s" if cache > 1 else "")
    return words


def signature(dataset: str, protocol: str, clients: Sequence[str]) -> str:
    """What the appliance VM's storage mark records: a change of any part makes apply ensure again."""
    return f"{dataset} NFS {protocol} to {','.join(sorted(set(clients)))}"


def ensure_storage(
    api: ApplianceApi, target: StorageTarget, on_step: Callable[[str], None] | None = None
) -> list[str]:
    """Create what is missing of pool → dataset → export; update the export's clients/protocol.

    Returns what changed, in words ([] when everything was in place); `on_step` hears each step's outcome
    as it happens. Errors are ApplianceApiError with the appliance's own code (device_in_use, not_found ...).
    """
    say = on_step or (lambda words: None)
    changed: list[str] = []
    if api.pool(target.pool) is None:
        spec = {
            "name": target.pool,
            "layout": "stripe",
            "data": target.devices,
            "log": target.log,
            "cache": target.cache,
        }
        api.call("POST", f"{STORAGE}/pools", spec)
        changed.append(pool_words(target.pool, len(target.devices), len(target.log), len(target.cache)))
        say(f"pool built: {changed[-1]}")
    else:
        say(f"pool {target.pool} in place")
    if not any(d.get("name") == target.dataset for d in api.datasets(target.pool)):
        api.call("POST", f"{STORAGE}/datasets", {"name": target.dataset, "profile": target.profile})
        changed.append(f"dataset {target.dataset} ({target.profile})")
        say(f"dataset made: {changed[-1]}")
    clients = sorted(set(target.clients))
    mine = [e for e in api.exports() if e.get("dataset") == target.dataset]
    if not mine:
        body = {"dataset": target.dataset, "protocol": target.protocol, "clients": clients}
        api.call("POST", f"{STORAGE}/exports", body)
        changed.append(f"NFS {target.protocol} export of {target.dataset}")
        say(f"export made: {changed[-1]} to {', '.join(clients)}")
    else:
        export = mine[0]
        if export.get("protocol") != target.protocol or sorted(export.get("clients") or []) != clients:
            body = {"clients": clients, "protocol": target.protocol}
            api.call("PUT", f"{STORAGE}/exports/{export['export_id']}", body)
            changed.append(f"NFS export {export['export_id']} now NFS {target.protocol} to {clients}")
            say(f"export updated: {changed[-1]}")
        else:
            say(f"export of {target.dataset} in place")
    target.changed = changed
    return changed


# --- full clones through ZFS clones -----------------------------------------------------------------------


class GoldenNotADataset(ApplianceApiError):
    """The golden VM's folder on the arcvsa datastore is a plain folder, not a dataset of its own."""

    field = "pool.full_copy"


def zfs_snapshot_name(dataset: str, vsphere_snapshot: str) -> str:
    """'tank/vdi/golden@arcvsa-base' for the golden's dataset and the plan's vSphere snapshot name."""
    return f"{dataset}@arcvsa-{re.sub(r'[^A-Za-z0-9_.:-]', '_', vsphere_snapshot)}"


@dataclass
class CloneSource:
    """The golden image's snapshot desktops are cloned from, and the datasets made from it already."""

    snapshot: str
    existing: set[str]
    snapshot_taken: bool


def prepare_clones(api: ApplianceApi, pool: str, golden_dataset: str, vsphere_snapshot: str) -> CloneSource:
    """One look at the pool's datasets, then the golden's snapshot taken if nothing is cloned from it yet.

    The golden VM's folder must be a dataset of its own (GoldenNotADataset otherwise): a ZFS clone copies
    a dataset, and the desktop's folder on the datastore is its clone's mount point.
    """
    listed = {str(d.get("name")): d for d in api.datasets(pool)}
    if golden_dataset not in listed:
        raise GoldenNotADataset(
            f"{api.name}: the golden VM's folder is not a dataset ({golden_dataset} does not exist): create "
            "the dataset first and keep the golden VM's files in it, or copy through vSphere (pool.full_copy)"
        )
    snap = zfs_snapshot_name(golden_dataset, vsphere_snapshot)
    existing = {name for name, d in listed.items() if d.get("origin") == snap}
    taken = False
    if not existing:
        status, data = api.exchange("POST", f"{STORAGE}/snapshots", {"name": snap})
        if status == 409 and isinstance(data, dict) and data.get("code") == "already_exists":
            pass  # taken by an apply that stopped before its first clone
        elif status >= 400:
            api.call("POST", f"{STORAGE}/snapshots", {"name": snap})  # raises with the api's words
        else:
            taken = True
    return CloneSource(snapshot=snap, existing=existing, snapshot_taken=taken)


def clone_desktop(api: ApplianceApi, source: CloneSource, target: str) -> bool:
    """Clone the golden's snapshot to `target` unless that clone exists; whether one was made."""
    if target in source.existing:
        return False
    api.clone(source.snapshot, target)
    source.existing.add(target)
    return True


def remove_clones(api: ApplianceApi, pool: str, dataset: str, desktops: Sequence[str]) -> list[str]:
    """Destroy the ZFS clones of these desktops, then the arcvsa snapshot they came from once unused.

    Ownership by name: a clone is '<dataset>/<desktop>' for a desktop arcvsa made and destroys, cloned
    from a snapshot arcvsa named ('...@arcvsa-...'); anything else on the pool stays, and so does the
    snapshot while any other dataset is still cloned from it. Idempotent: what is gone already is skipped.
    Returns what was destroyed.
    """
    listed = {str(d.get("name")): d for d in api.datasets(pool)}
    removed: list[str] = []
    origins: set[str] = set()
    for desktop in desktops:
        target = f"{dataset}/{desktop}"
        origin = str((listed.get(target) or {}).get("origin") or "")
        if "@arcvsa-" not in origin:
            continue  # not there, or not a clone arcvsa made
        origins.add(origin)
        if api.destroy(target):
            removed.append(target)
        listed.pop(target, None)
    for snap in sorted(origins):
        if not any(d.get("origin") == snap for d in listed.values()) and api.destroy(snap):
            removed.append(snap)
    return removed
