"""Power cuts in the middle of a reconcile: a burst of changes through the api, qemu killed while they
are in flight, and after the reboot everything acknowledged stored and in effect, the rest wholly in
effect or wholly absent (the rule: reliability.convergence).

On the run's appliance (reliability.powercut's Lab, after its power cuts and restarts) the case makes
four datasets and two zvols on ``tank``. Each cycle three clients send requests one after another, each
as soon as its last was answered, until the cut: the NFS client creates, updates (the host dropped from
or added to the clients) and deletes exports of those datasets and, once a cycle at most, switches the
NFS server between ganesha and knfsd; the tuning client puts a new plan (another txg timeout, another
L2ARC write size); the iSCSI client creates and deletes targets on the zvols. Every api change reconciles
its noun before it stores it, so the cut falls inside reconciles. The moment is drawn from the seeded RNG
within the burst's first BURST_S seconds; the choices of the clients come from it too.

After the reboot the case waits for the api's published state (503 state_pending until the poller's
first pass) and observes, every few seconds until it has converged or CONVERGE_S after the api
answered: the desired state through the api (GET /api/storage/nfs and /api/tuning/parameters; the
stored iSCSI targets from a configuration backup, the one answer that lists them), each watched dataset
listed over NFSv3 by libnfs from the host, the NFS servers' units, the module parameters in effect, LIO's
targets, the alerts and the pools.
"""

from __future__ import annotations

import json
import random
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from api.backup import envelope
from lab.appliance_api import ApiError
from process import ProcessError, run
from reliability.convergence import (
    NFS_SERVERS,
    Change,
    Desired,
    Expected,
    Observed,
    Problem,
    Scope,
    Sent,
    apply,
    expect,
    export_change,
    judge,
    plan_change,
    server_change,
    settled,
    target_change,
    verdict,
)
from reliability.powercut import POOLS, UNITS, Lab, Run, say

POOL = POOLS[0].name
DATASETS = tuple(f"{POOL}/rc{i}" for i in range(4))
ZVOLS = tuple(f"{POOL}/rclun{i}" for i in range(2))
ZVOL_BYTES = 32 << 20
EXPORT_IDS = {dataset: 301 + i for i, dataset in enumerate(DATASETS)}
IQNS = {zvol: f"iqn.2026-11.lab.arcvsa:rc-lun{i}" for i, zvol in enumerate(ZVOLS)}
INITIATOR = "iqn.2026-11.lab.arcvsa:esxi-a"
# Documentation addresses (RFC 5737): only names in a client list, never reached. An export keeps one
# when the host is dropped from it, so its list is never empty.
OTHERS = {dataset: f"192.0.2.{21 + i}" for i, dataset in enumerate(DATASETS)}
TXG_TIMEOUTS = (5, 6, 7, 8, 9, 10)
L2ARC_WRITE_MAX = (8 << 20, 16 << 20, 32 << 20, 64 << 20)
SWITCH_CHANCE = 0.2  # per request of the NFS client, until it has switched the server once this cycle
# Under TCG an export or target change takes 1-5 s and a server switch 10-30 s: within this window every
# client has had some answers and has one request in flight; from a second in, each has sent its first.
BURST_FROM_S, BURST_S = 1.0, 20.0
# The poller reconciles at its first pass and every minute after: once the api answers after a boot,
# one reconcile interval and one emulated pass.
CONVERGE_S = 120.0
OBSERVE_EVERY_S = 5.0
PAUSE_S = 1.0
# A served export lists in well under a second; a server still starting must not hold the observation
# (six datasets) past the limit.
LIST_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Request:
    """An HTTP request and the change of the desired state it asks for."""

    method: str
    path: str
    body: dict[str, Any] | None
    change: Change


def _request(method: str, path: str, body: dict[str, Any] | None, make: Callable[[str], Change]) -> Request:
    return Request(method, path, body, make(f"{method} {path}"))


def nfs_request(model: Desired, rng: random.Random, host: str, may_switch: bool) -> Request:
    """The NFS client's next change: switch the server (once), or create, update or delete an export."""
    if may_switch and rng.random() < SWITCH_CHANCE:
        other = "knfsd" if model.backend == "ganesha" else "ganesha"
        return _request(
            "PUT", "/api/storage/nfs/backend", {"backend": other}, lambda r: server_change(other, r)
        )
    dataset = rng.choice(DATASETS)
    export_id, other = EXPORT_IDS[dataset], OTHERS[dataset]
    clients = model.exports.get(dataset)
    if clients is None:
        body = {
            "dataset": dataset,
            "protocol": "3",
            "clients": [host, other],
            "insecure_ports": True,  # qemu's user-mode forwards reach the guest from ports above 1023
            "export_id": export_id,
        }
        return _request(
            "POST", "/api/storage/exports", body, lambda r: export_change(dataset, [host, other], r)
        )
    path = f"/api/storage/exports/{export_id}"
    if rng.random() < 0.5:
        new = [other] if host in clients else [host, other]
        return _request("PUT", path, {"clients": new}, lambda r: export_change(dataset, new, r))
    return _request("DELETE", path, None, lambda r: export_change(dataset, None, r))


def tuning_request(model: Desired, rng: random.Random) -> Request:
    """The tuning client's next plan: the stored one with another txg timeout and L2ARC write size."""
    plan = dict(model.plan)
    plan["zfs_txg_timeout"] = rng.choice([t for t in TXG_TIMEOUTS if t != plan.get("zfs_txg_timeout")])
    if "l2arc_write_max" in plan:
        plan["l2arc_write_max"] = rng.choice([v for v in L2ARC_WRITE_MAX if v != plan["l2arc_write_max"]])
    return _request("PUT", "/api/tuning/parameters", {"params": plan}, lambda r: plan_change(plan, r))


def iscsi_request(model: Desired, rng: random.Random) -> Request:
    """The iSCSI client's next change: a target on one of the zvols made, or removed where it is."""
    zvol = rng.choice(ZVOLS)
    iqn = IQNS[zvol]
    if iqn in model.targets:
        path = f"/api/storage/iscsi/targets/{iqn}"
        return _request("DELETE", path, None, lambda r: target_change(iqn, None, r))
    body = {"iqn": iqn, "zvol": zvol, "initiators": [INITIATOR]}
    return _request("POST", "/api/storage/iscsi/targets", body, lambda r: target_change(iqn, zvol, r))


@dataclass
class Client:
    """One api client of the burst: its next request from the state its answered requests left."""

    name: str
    lab: Lab
    rng: random.Random
    model: Desired
    started: float  # monotonic, the burst's start
    stop: threading.Event
    sent: list[Sent] = field(default_factory=list)
    switched: bool = False
    thread: threading.Thread | None = None

    def next(self) -> Request:
        if self.name == "nfs":
            return nfs_request(self.model, self.rng, self.lab.client, not self.switched)
        if self.name == "tuning":
            return tuning_request(self.model, self.rng)
        return iscsi_request(self.model, self.rng)

    def loop(self) -> None:
        while not self.stop.is_set():
            request = self.next()
            sent_s = time.monotonic() - self.started
            try:
                status, _ = self.lab.api.client.request(
                    request.method, request.path, request.body, token=self.lab.api.token
                )
            except Exception:  # the cut (reset, refused, TLS torn): whatever ended it, no answer came
                self.sent.append(Sent(request.change, round(sent_s, 3)))
                return
            answered = round(time.monotonic() - self.started, 3)
            self.sent.append(Sent(request.change, round(sent_s, 3), answered, status))
            if 200 <= status < 300:
                self.model = apply(self.model, request.change)
                self.switched |= request.change.key == "server"
            # a pause of up to a second: some cuts fall between a client's requests, not inside one
            self.stop.wait(self.rng.uniform(0.0, PAUSE_S))

    def start(self) -> None:
        self.thread = threading.Thread(target=self.loop, name=f"burst-{self.name}", daemon=True)
        self.thread.start()

    def join(self) -> None:
        if self.thread is not None:
            self.thread.join(timeout=120)


class Observer:
    """One observation of the appliance after a reboot (reliability.convergence.Observed), through its api,
    libnfs from the host and SSH."""

    def __init__(self, lab: Lab, scope: Scope) -> None:
        self.lab, self.scope = lab, scope
        self.passphrase = secrets.token_urlsafe(18)  # the backup never leaves this process

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        status, data = self.lab.api.client.request(method, path, body, token=self.lab.api.token)
        if status == 401:
            self.lab.api.login()
            status, data = self.lab.api.client.request(method, path, body, token=self.lab.api.token)
        return status, data

    def _read(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        status, data = self._call(method, path, body)
        if status != 200:
            raise NotYet(f"{method} {path} answered {status}: {data}")
        return data

    def stored_targets(self) -> dict[str, str]:
        """IQN: zvol of every stored target, from a configuration backup opened here."""
        sealed = self._read("POST", "/api/backup", {"passphrase": self.passphrase})
        payload = envelope.unseal(json.dumps(sealed).encode(), self.passphrase)
        return {t["iqn"]: t["zvol"] for t in payload["sections"]["iscsi"]["targets"]}

    def lists(self, dataset: str) -> bool:
        """Whether the host lists the dataset's mount point over NFSv3 (libnfs's nfs-ls)."""
        try:
            argv = ["nfs-ls", self.lab.vm.nfs_url(f"/{dataset}")]
            return run(argv, timeout=LIST_TIMEOUT_S, check=False).exit_code == 0
        except ProcessError:  # a timeout: not served to the host
            return False

    def running(self) -> frozenset[str]:
        """The NFS servers whose unit is active."""
        argv = ["systemctl", "show", "--property=ActiveState", "--value", *(UNITS[s] for s in NFS_SERVERS)]
        states = self.lab.vm.ssh(argv, timeout=60).split()
        return frozenset(s for s, state in zip(NFS_SERVERS, states, strict=True) if state == "active")

    def observe(self) -> Observed:
        """The appliance now; NotYet while the api has not published its state or does not answer."""
        try:
            nfs = self._read("GET", "/api/storage/nfs")
            parameters = self._read("GET", "/api/tuning/parameters")
            stored = Desired(
                backend=nfs["backend"],
                exports={e["dataset"]: tuple(sorted(e["clients"])) for e in nfs["exports"]},
                plan={p["name"]: p["persisted"] for p in parameters if p["persisted"] is not None},
                targets=self.stored_targets(),
            )
            in_lio = {
                t["iqn"]: t["luns"][0].removeprefix("/dev/zvol/") if t["luns"] else ""
                for t in self._read("GET", "/api/storage/iscsi/targets")
            }
            alerts = tuple(a["key"] for a in self._read("GET", "/api/alerts"))
            pools = {p["name"]: p["state"] for p in self._read("GET", "/api/storage/pools")}
            running = self.running()
        except (ApiError, ProcessError, ValueError) as err:  # ValueError: systemctl's answer cut short
            raise NotYet(str(err)) from err
        watched = sorted({*self.scope.datasets, *stored.exports})
        return Observed(
            stored=stored,
            listed={dataset: self.lists(dataset) for dataset in watched},
            active={e["dataset"]: bool(e["active"]) for e in nfs["exports"]},
            running=running,
            live={p["name"]: p["value"] for p in parameters},
            in_lio=in_lio,
            alerts=alerts,
            pools=pools,
        )


class NotYet(RuntimeError):
    """The appliance cannot be observed yet: its state is not published, or its api or SSH not up."""


def prepare(lab: Lab) -> tuple[Desired, Scope]:
    """The case's datasets and zvols on ``tank``; the desired state it starts from, once converged."""
    for dataset in DATASETS:
        body = {"name": dataset, "profile": "stateless-linked"}
        lab.api.call("POST", "/api/storage/datasets", body, expect=201)
    for zvol in ZVOLS:
        lab.api.call("POST", "/api/storage/volumes", {"name": zvol, "size_bytes": ZVOL_BYTES}, expect=201)
    scope = Scope(lab.client, DATASETS, tuple(IQNS.values()))
    observer, deadline = Observer(lab, scope), time.monotonic() + 300
    while True:
        try:
            seen = observer.observe()
            problems = judge(expect(seen.stored, []), seen, scope)
            if not problems:
                break
            why = str(problems)
        except NotYet as err:
            why = str(err)
        if time.monotonic() > deadline:
            raise RuntimeError(f"the appliance has not converged before the first cut: {why}")
        time.sleep(OBSERVE_EVERY_S)
    say(f"reconcile cuts on {', '.join(DATASETS)} and {', '.join(ZVOLS)}; backend {seen.stored.backend}")
    return seen.stored, scope


@dataclass
class Burst:
    """The requests of a burst sent before the cut, and when the cut fell (s after the burst began)."""

    sent: list[Sent]
    drawn_s: float
    kill_s: float


def burst(lab: Lab, rng: random.Random, base: Desired) -> Burst:
    """The three clients from ``base`` until qemu is SIGKILLed at a moment drawn from ``rng``."""
    drawn = round(rng.uniform(BURST_FROM_S, BURST_S), 2)
    seeds = [rng.randrange(1 << 30) for _ in range(3)]
    stop = threading.Event()
    started = time.monotonic()
    clients = [
        Client(name, lab, random.Random(seed), base, started, stop)  # noqa: S311 - replayable, not secret
        for name, seed in zip(("nfs", "tuning", "iscsi"), seeds, strict=True)
    ]
    for client in clients:
        client.start()
    time.sleep(max(0.0, started + drawn - time.monotonic()))
    stop.set()  # before the kill: a request started after it would never reach the guest
    kill_s = lab.power_cut() - started
    for client in clients:
        client.join()
    sent = sorted((s for c in clients for s in c.sent if s.sent_s <= kill_s), key=lambda s: s.sent_s)
    return Burst(sent, drawn, kill_s)


@dataclass
class Watched:
    """The observations after a reboot: (s since qemu started, problems), the last one, why none came."""

    observations: list[tuple[float, list[Problem]]] = field(default_factory=list)
    last: Observed | None = None
    first_s: float | None = None
    waiting_for: str = ""


def watch(lab: Lab, expected: Expected, scope: Scope, limit_s: float) -> Watched:
    """Observe every OBSERVE_EVERY_S until nothing is wrong or ``limit_s`` after qemu started."""
    watched, observer = Watched(), Observer(lab, scope)
    while True:
        try:
            seen = observer.observe()
            at = time.monotonic() - lab.vm.started_at  # when the observation ended: an upper bound
            problems = judge(expected, seen, scope)
            watched.last = seen
            watched.first_s = watched.first_s if watched.first_s is not None else round(at, 1)
            watched.observations.append((round(at, 1), problems))
            if not problems:
                return watched
        except NotYet as err:
            at, watched.waiting_for = time.monotonic() - lab.vm.started_at, str(err)
        if at > limit_s:
            return watched
        time.sleep(OBSERVE_EVERY_S)


def cut_cycle(
    lab: Lab, rng: random.Random, cycle: int, base: Desired, scope: Scope
) -> tuple[dict[str, Any], Desired]:
    """One cycle: the burst from ``base``, the cut, the reboot, observations until converged or the
    limit. Returns the figures and the desired state the next cycle starts from."""
    cut = burst(lab, rng, base)
    expected = expect(base, cut.sent)
    lab.vm.config.fresh = False
    boot_s = lab.start(timeout=300)
    limit_s = boot_s + CONVERGE_S
    watched = watch(lab, expected, scope, limit_s)
    outcome = verdict(watched.observations, limit_s)
    stored = watched.last.stored if watched.last is not None else None
    result: dict[str, Any] = {
        "cycle": cycle,
        "kill_drawn_s": cut.drawn_s,
        "kill_s": round(cut.kill_s, 2),
        "requests": [
            {
                "client": s.change.stream,
                "request": s.change.request,
                "key": s.change.key,
                "sent_s": s.sent_s,
                "answered_s": s.answered_s,
                "status": s.status,
            }
            for s in cut.sent
        ],
        "in_flight": [
            {"request": s.change.request, "key": s.change.key, "for_s": round(cut.kill_s - s.sent_s, 2)}
            for s in cut.sent
            if s.in_flight
        ],
        "acked": sum(s.acked for s in cut.sent),
        "unacked": sum(s.in_flight for s in cut.sent),
        "refused": sum(s.refused for s in cut.sent),
        "unacked_settled": settled(expected, stored) if stored is not None else {},
        "boot_to_api_s": round(boot_s, 1),
        "first_published_s": watched.first_s,
        "converged_s": outcome.converged_s,
        "limit_s": round(limit_s, 1),
        "observations": len(watched.observations),
        "problems_seen": sorted({f"{p.kind}: {p.key}" for _, ps in watched.observations for p in ps}),
        "violations": [asdict(p) for p in outcome.violations],
        "survived": outcome.survived,
    }
    if watched.first_s is None:
        result["waiting_for"] = watched.waiting_for
    flight = ", ".join(f"{f['request']} ({f['for_s']} s)" for f in result["in_flight"]) or "none"
    say(
        f"reconcile cut {cycle}: kill {result['kill_s']} s into the burst, in flight {flight}; acked "
        f"{result['acked']}, unacked {result['unacked']} {result['unacked_settled']}, refused "
        f"{result['refused']}; api {result['boot_to_api_s']} s, state {watched.first_s} s, converged "
        f"{outcome.converged_s} s after boot (seen on the way: {result['problems_seen'] or 'nothing'}); "
        f"{'pass' if outcome.survived else 'FAIL'}"
    )
    return result, stored if stored is not None else expected.acked


@dataclass
class ReconcileCuts:
    """The case as powercut.execute runs it on its appliance: ``cuts`` cycles, replayable from ``seed``."""

    cuts: int
    seed: int

    def __call__(self, lab: Lab, record: Run) -> None:
        rng = random.Random(f"reconcile-cuts/{self.seed}")  # noqa: S311 - replayable, not secret
        record.data["reconcile_cuts"] = []
        base, scope = prepare(lab)
        for cycle in range(1, self.cuts + 1):
            started = time.monotonic()
            result, base = cut_cycle(lab, rng, cycle, base, scope)
            result["seconds"] = round(time.monotonic() - started, 1)
            record.data["reconcile_cuts"].append(result)
            record.save()


def rows(cuts: list[dict[str, Any]]) -> list[list[str]]:
    """The printed table: one row per cut."""
    out = [
        [
            "reconcile cut",
            "kill at (s)",
            "in flight at the cut (s in flight)",
            "acked",
            "unacked (in effect/absent)",
            "refused",
            "boot to api (s)",
            "boot to converged (s)",
            "verdict",
        ]
    ]
    for cut in cuts:
        settled_to = list(cut["unacked_settled"].values())
        flight = ", ".join(f"{f['request']} ({f['for_s']})" for f in cut["in_flight"]) or "none"
        out.append(
            [
                str(cut["cycle"]),
                str(cut["kill_s"]),
                flight,
                str(cut["acked"]),
                f"{cut['unacked']} ({settled_to.count('in effect')}/{settled_to.count('absent')})",
                str(cut["refused"]),
                str(cut["boot_to_api_s"]),
                "-" if cut["converged_s"] is None else str(cut["converged_s"]),
                "pass" if cut["survived"] else "FAIL",
            ]
        )
    return out


def failures(cuts: list[dict[str, Any]]) -> list[str]:
    """One line per violation of a cut that did not survive."""
    return [
        f"reconcile cut {cut['cycle']}: {v['kind']} {v['key']}: {v['detail']}"
        for cut in cuts
        if not cut["survived"]
        for v in cut["violations"] or [{"kind": "not converged", "key": "", "detail": ""}]
    ]
