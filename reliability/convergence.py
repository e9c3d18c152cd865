"""The rule a power cut in the middle of a reconcile is judged by: what the appliance must hold after the
reboot, given what its api acknowledged before the cut.

The burst (reliability.reconcilecut) changes three parts of the desired state, each from its own client
that sends one request at a time: the NFS exports and the NFS server (one lock in the api), the tuning
plan, the iSCSI targets. Each request sets one key of the desired state (an export's dataset, the
server, the plan, a target's IQN) to one value. At the cut each client has at most one request without
an answer, so every key has one value the acknowledged requests leave it at and, where a request in
flight sets it, one more.

Observed after the reboot, once the api has published its state:

- desired state (stored, read through the api): every key holds the acknowledged value, or the value of
  the request in flight that sets it. Anything else is a fault: an older value where a request was
  acknowledged (the change is lost), a refused request's value, a value no request leads to;
- effect: what is stored is what runs, and nothing else. A stored export is marked served by the api and
  the host lists it over NFS when it is among the export's clients, and is refused when it is not; a
  watched dataset with no stored export does not answer; the stored NFS server's service runs and the
  other's does not; every planned module parameter is live at the plan's value; every stored target is
  in LIO on its zvol, and no watched IQN is in LIO without being stored;
- no ``reconcile/<noun>`` alert is raised, and every pool is ONLINE.

A change nobody acknowledged is therefore wholly in effect or wholly absent: stored and running, or
neither. Nothing but the api changes the desired state, so a desired-state fault seen once is a fault of
the cycle; the effect converges, and its faults count only if they are still there at the limit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

SERVER, PLAN = "server", "plan"
EXPORT, TARGET = "export:", "target:"
NFS_SERVERS = ("ganesha", "knfsd")


class Kind(StrEnum):
    """What is wrong after the reboot."""

    lost = "lost"  # an acknowledged change is not in the desired state
    refused_stored = "refused-stored"  # a change the api refused is in the desired state
    unrequested = "unrequested"  # a stored value no request leads to
    not_in_effect = "stored-not-in-effect"  # stored, but not what the appliance runs
    not_stored = "in-effect-not-stored"  # the appliance runs it, but it is not stored
    alert = "alert"  # a reconcile/<noun> alert is raised
    pool = "pool"  # a pool is not ONLINE
    unpublished = "unpublished"  # the api published no state by the limit


# Faults of the desired state itself: never allowed, from the first published state on.
DESIRED_KINDS = frozenset({Kind.lost, Kind.refused_stored, Kind.unrequested})


@dataclass(frozen=True)
class Desired:
    """The part of the appliance's desired state the burst changes, as the api stores it."""

    backend: str
    exports: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # dataset: clients, sorted
    plan: Mapping[str, int] = field(default_factory=dict)  # module parameter: value
    targets: Mapping[str, str] = field(default_factory=dict)  # IQN: zvol

    def flat(self) -> dict[str, object]:
        """Every key with its value (a removed export or target is no key)."""
        out: dict[str, object] = {SERVER: self.backend, PLAN: tuple(sorted(self.plan.items()))}
        out.update({EXPORT + dataset: clients for dataset, clients in self.exports.items()})
        out.update({TARGET + iqn: zvol for iqn, zvol in self.targets.items()})
        return out


@dataclass(frozen=True)
class Change:
    """One request of the burst: the key it sets and to what (None: removed), and how it was asked."""

    stream: str
    request: str  # method and path, for the report
    key: str
    value: object


def export_change(dataset: str, clients: Iterable[str] | None, request: str) -> Change:
    value = None if clients is None else tuple(sorted(clients))
    return Change("nfs", request, EXPORT + dataset, value)


def server_change(backend: str, request: str) -> Change:
    return Change("nfs", request, SERVER, backend)


def plan_change(plan: Mapping[str, int], request: str) -> Change:
    return Change("tuning", request, PLAN, tuple(sorted(plan.items())))


def target_change(iqn: str, zvol: str | None, request: str) -> Change:
    return Change("iscsi", request, TARGET + iqn, zvol)


def apply(desired: Desired, change: Change) -> Desired:
    """The desired state after ``change``."""
    if change.key == SERVER:
        return replace(desired, backend=str(change.value))
    if change.key == PLAN:
        assert isinstance(change.value, tuple)
        return replace(desired, plan=dict(change.value))
    if change.key.startswith(EXPORT):
        exports = dict(desired.exports)
        name = change.key.removeprefix(EXPORT)
        if change.value is None:
            exports.pop(name, None)
        else:
            assert isinstance(change.value, tuple)
            exports[name] = change.value
        return replace(desired, exports=exports)
    if change.key.startswith(TARGET):
        targets = dict(desired.targets)
        name = change.key.removeprefix(TARGET)
        if change.value is None:
            targets.pop(name, None)
        else:
            targets[name] = str(change.value)
        return replace(desired, targets=targets)
    raise ValueError(f"no such key of the desired state: {change.key}")


@dataclass(frozen=True)
class Sent:
    """A request of the burst and its answer: a status, or none before the cut."""

    change: Change
    sent_s: float  # since the burst started
    answered_s: float | None = None
    status: int | None = None

    @property
    def acked(self) -> bool:
        """Answered with success: the api promised the change."""
        return self.status is not None and 200 <= self.status < 300

    @property
    def refused(self) -> bool:
        """Answered with an error: the api promised the change was not made."""
        return self.status is not None and not self.acked

    @property
    def in_flight(self) -> bool:
        """No answer before the cut: the change may be made or not, but wholly."""
        return self.status is None


@dataclass(frozen=True)
class Expected:
    """What the requests of a burst allow after the cut."""

    acked: Desired  # the state before the burst with every acknowledged change
    unacked: tuple[Change, ...]
    refused: tuple[Change, ...]
    acked_keys: frozenset[str]


def expect(base: Desired, sent: Iterable[Sent]) -> Expected:
    """The acknowledged changes applied to ``base`` in the order they were sent; the rest kept apart."""
    ordered = sorted(sent, key=lambda s: s.sent_s)
    state = base
    for request in ordered:
        if request.acked:
            state = apply(state, request.change)
    return Expected(
        acked=state,
        unacked=tuple(s.change for s in ordered if s.in_flight),
        refused=tuple(s.change for s in ordered if s.refused),
        acked_keys=frozenset(s.change.key for s in ordered if s.acked),
    )


@dataclass(frozen=True)
class Scope:
    """What the burst touches beyond the stored keys: the host's address (an export's client), the
    datasets it exports and the IQNs it makes, whose absence is checked too."""

    host: str
    datasets: tuple[str, ...]
    iqns: tuple[str, ...]


@dataclass(frozen=True)
class Observed:
    """The appliance after the reboot: the desired state through the api, and what is in effect."""

    stored: Desired
    listed: Mapping[str, bool]  # dataset: the host listed its mount point over NFS
    active: Mapping[str, bool]  # dataset: the api says the NFS server serves its export
    running: frozenset[str]  # NFS servers whose service is active
    live: Mapping[str, int]  # module parameter: value in effect
    in_lio: Mapping[str, str]  # IQN: zvol behind its LUN
    alerts: tuple[str, ...]  # alert keys
    pools: Mapping[str, str]  # pool: state


@dataclass(frozen=True)
class Problem:
    """One thing wrong, on one key."""

    kind: Kind
    key: str
    detail: str


def _desired_problems(expected: Expected, stored: Desired) -> list[Problem]:
    acked, found = expected.acked.flat(), stored.flat()
    problems = []
    for key in sorted(set(acked) | set(found)):
        value = found.get(key)
        allowed = {acked.get(key)} | {c.value for c in expected.unacked if c.key == key}
        if value in allowed:
            continue
        refused = [c for c in expected.refused if c.key == key and c.value == value]
        if key in expected.acked_keys:
            kind = Kind.lost
        elif refused:
            kind = Kind.refused_stored
        else:
            kind = Kind.unrequested
        shown = " or ".join(repr(v) for v in sorted(allowed, key=repr))
        problems.append(Problem(kind, key, f"stored {value!r}, expected {shown}"))
    return problems


def _export_problems(observed: Observed, scope: Scope) -> list[Problem]:
    problems = []
    stored = observed.stored.exports
    for dataset in sorted(set(stored) | set(observed.listed)):
        key = EXPORT + dataset
        listed = observed.listed.get(dataset)
        if dataset not in stored:
            if listed:
                problems.append(Problem(Kind.not_stored, key, "the host lists it over NFS, no export stored"))
            continue
        if not observed.active.get(dataset, False):
            problems.append(Problem(Kind.not_in_effect, key, "stored, the api says it is not served"))
        if listed is None:
            continue
        allowed = scope.host in stored[dataset]
        if allowed and not listed:
            problems.append(Problem(Kind.not_in_effect, key, "stored for the host, which cannot list it"))
        elif listed and not allowed:
            problems.append(
                Problem(Kind.not_in_effect, key, "stored without the host among its clients, which lists it")
            )
    return problems


def _server_problems(observed: Observed) -> list[Problem]:
    chosen = observed.stored.backend
    wanted = {chosen} if observed.stored.exports else set()
    if observed.running - {chosen} or not wanted <= observed.running:
        running = ", ".join(sorted(observed.running)) or "none"
        return [Problem(Kind.not_in_effect, SERVER, f"stored {chosen}, running {running}")]
    return []


def _plan_problems(expected: Expected, observed: Observed) -> list[Problem]:
    plan = observed.stored.plan
    differ = {
        name: observed.live.get(name) for name, value in plan.items() if observed.live.get(name) != value
    }
    if not differ:
        return []
    pending = [dict(c.value) for c in expected.unacked if c.key == PLAN and isinstance(c.value, tuple)]
    kind = (
        Kind.not_stored
        if any(all(p.get(n) == v for n, v in differ.items()) for p in pending)
        else Kind.not_in_effect
    )
    shown = ", ".join(f"{name} live {differ[name]}, planned {plan[name]}" for name in sorted(differ))
    return [Problem(kind, PLAN, shown)]


def _target_problems(observed: Observed, scope: Scope) -> list[Problem]:
    problems = []
    stored, held = observed.stored.targets, observed.in_lio
    for iqn in sorted(set(stored) | (set(held) & set(scope.iqns))):
        key = TARGET + iqn
        if iqn not in stored:
            problems.append(Problem(Kind.not_stored, key, f"in LIO on {held[iqn]}, not stored"))
        elif iqn not in held:
            problems.append(Problem(Kind.not_in_effect, key, f"stored on {stored[iqn]}, not in LIO"))
        elif held[iqn] != stored[iqn]:
            problems.append(
                Problem(Kind.not_in_effect, key, f"stored on {stored[iqn]}, in LIO on {held[iqn]}")
            )
    return problems


def judge(expected: Expected, observed: Observed, scope: Scope) -> list[Problem]:
    """Everything wrong with one observation after the reboot; none when the appliance has converged
    without losing an acknowledged change."""
    problems = _desired_problems(expected, observed.stored)
    problems += _export_problems(observed, scope)
    problems += _server_problems(observed)
    problems += _plan_problems(expected, observed)
    problems += _target_problems(observed, scope)
    problems += [
        Problem(Kind.alert, alert, "raised after the reboot")
        for alert in observed.alerts
        if alert.startswith("reconcile/")
    ]
    problems += [
        Problem(Kind.pool, pool, state) for pool, state in sorted(observed.pools.items()) if state != "ONLINE"
    ]
    return problems


def settled(expected: Expected, stored: Desired) -> dict[str, str]:
    """How each change nobody acknowledged came out: stored ("in effect" once converged) or "absent"."""
    found = stored.flat()
    return {
        change.key: "in effect" if found.get(change.key) == change.value else "absent"
        for change in expected.unacked
    }


@dataclass(frozen=True)
class CycleVerdict:
    """A cycle's outcome from its observations after the reboot."""

    converged_s: float | None  # when the first observation without a problem was taken
    violations: tuple[Problem, ...]

    @property
    def survived(self) -> bool:
        return self.converged_s is not None and not self.violations


def verdict(observations: list[tuple[float, list[Problem]]], limit_s: float) -> CycleVerdict:
    """``observations``: (seconds since boot, problems), in order. A desired-state fault in any of them
    fails the cycle; the rest must be gone by ``limit_s``, else the faults of the last observation taken
    by then are the cycle's."""
    seen: dict[tuple[Kind, str], Problem] = {}
    for _, problems in observations:
        for problem in problems:
            if problem.kind in DESIRED_KINDS:
                seen.setdefault((problem.kind, problem.key), problem)
    in_time = [(at, problems) for at, problems in observations if at <= limit_s]
    converged = next((at for at, problems in in_time if not problems), None)
    if converged is None:
        last = in_time[-1][1] if in_time else [Problem(Kind.unpublished, "state", f"none by {limit_s:.0f} s")]
        for problem in last:
            seen.setdefault((problem.kind, problem.key), problem)
    return CycleVerdict(converged, tuple(seen.values()))
