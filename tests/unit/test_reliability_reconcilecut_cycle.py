"""A whole reconcile-cut cycle (reliability.reconcilecut.cut_cycle) against a fake appliance: the three
clients in their threads, the cut, the reboot, the observations and the verdict, in a few seconds.

The fake stores a change and then answers it, as the api does (reconcile, commit, answer): a request in
its last step when the power goes is stored but never answered. It can fail the ways the case exists to
find: forget at the cut the newest change it acknowledged, or come back without serving its exports.
"""

from __future__ import annotations

import json
import random
import threading
import time
from typing import Any, cast

import pytest

from api.backup import envelope
from lab.appliance_api import ApiError
from process import Completed
from reliability import reconcilecut
from reliability.convergence import Desired, Kind, Scope
from reliability.powercut import Lab

HOST = "10.0.2.2"
SCOPE = Scope(HOST, reconcilecut.DATASETS, tuple(reconcilecut.IQNS.values()))
PLAN = {"zfs_txg_timeout": 5, "l2arc_write_max": 8 << 20, "zfs_arc_max": 1 << 30}


class FakeAppliance:
    """The api's changes and reads over an in-memory desired state, and what it serves."""

    def __init__(self, forget_at_cut: bool = False, serves_after_boot: bool = True) -> None:
        self.guard = threading.Lock()
        self.dead = False
        self.backend = "ganesha"
        self.exports: dict[int, tuple[str, list[str]]] = {100: ("tank/rel", [HOST])}
        self.plan = dict(PLAN)
        self.targets: dict[str, str] = {}
        self.forget_at_cut, self.serves_after_boot = forget_at_cut, serves_after_boot
        self.serving = True
        self.undo: list[tuple[str, Any]] = []  # (what, its value before) per acknowledged change
        self.unanswered: set[str] = set()  # what the requests the cut left unanswered changed

    def request(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        if self.dead:
            raise ApiError(f"{method} {path}: connection refused")
        with self.guard:
            status, data, before = self._handle(method, path, body)
        time.sleep(0.005)  # the answer on its way: a cut here leaves the change stored, unanswered
        if self.dead:
            if before is not None:
                self.unanswered.add(_what(before))
            raise ApiError(f"{method} {path}: connection reset")
        if before is not None:
            self.undo.append(before)
        return status, data

    def _handle(self, method: str, path: str, body: Any) -> tuple[int, Any, tuple[str, Any] | None]:
        before: tuple[str, Any]
        if method == "GET":
            return 200, self._read(path), None
        if path == "/api/backup":
            targets = [{"iqn": i, "zvol": z} for i, z in self.targets.items()]
            payload = {"sections": {"iscsi": {"targets": targets}}}
            sealed = envelope.seal(payload, body["passphrase"], arcvsa_version="t", hostname="fake")
            return 200, json.loads(sealed), None
        if path == "/api/storage/nfs/backend":
            before = ("backend", self.backend)
            self.backend = body["backend"]
            return 200, {}, before
        if path == "/api/tuning/parameters":
            before = ("plan", dict(self.plan))
            self.plan = dict(body["params"])
            return 200, {}, before
        if path == "/api/storage/exports":
            self.exports[body["export_id"]] = (body["dataset"], list(body["clients"]))
            return 201, {}, ("export", (body["export_id"], None))
        if path.startswith("/api/storage/exports/"):
            export_id = int(path.rsplit("/", 1)[1])
            before = ("export", (export_id, self.exports[export_id]))
            if method == "DELETE":
                del self.exports[export_id]
                return 204, None, before
            self.exports[export_id] = (self.exports[export_id][0], list(body["clients"]))
            return 200, {}, before
        if path == "/api/storage/iscsi/targets":
            self.targets[body["iqn"]] = body["zvol"]
            return 201, {}, ("target", (body["iqn"], None))
        iqn = path.rsplit("/", 1)[1]
        before = ("target", (iqn, self.targets.pop(iqn)))
        return 204, None, before

    def _read(self, path: str) -> Any:
        if path == "/api/storage/nfs":
            exports = [
                {"export_id": i, "dataset": d, "clients": c, "active": True}
                for i, (d, c) in self.exports.items()
            ]
            return {"backend": self.backend, "exports": exports}
        if path == "/api/tuning/parameters":
            return [{"name": n, "value": v, "persisted": v} for n, v in self.plan.items()]
        if path == "/api/storage/iscsi/targets":
            return [{"iqn": i, "luns": [f"/dev/zvol/{z}"]} for i, z in self.targets.items()]
        if path == "/api/storage/pools":
            return [{"name": "tank", "state": "ONLINE"}]
        assert path == "/api/alerts", path
        return []

    def cut(self) -> None:
        self.dead = True
        time.sleep(0.2)  # every request the cut caught has learnt it was not answered
        with self.guard:
            # The newest acknowledged change of something no unanswered request changed after it: where
            # one did, the older value may be that request's, which the rule rightly allows.
            forgettable = [u for u in self.undo if _what(u) not in self.unanswered]
            if self.forget_at_cut and forgettable:
                self._revert(*forgettable[-1])

    def _revert(self, what: str, before: Any) -> None:
        if what == "backend":
            self.backend = before
        elif what == "plan":
            self.plan = before
        elif what == "export":
            export_id, old = before
            if old is None:
                self.exports.pop(export_id, None)
            else:
                self.exports[export_id] = old
        else:
            iqn, zvol = before
            if zvol is None:
                self.targets.pop(iqn, None)
            else:
                self.targets[iqn] = zvol

    def boot(self) -> None:
        self.dead, self.serving = False, self.serves_after_boot

    def lists(self, dataset: str) -> bool:
        stored = {d: c for d, c in self.exports.values()}
        return self.serving and HOST in stored.get(dataset, ())


def _what(undo: tuple[str, Any]) -> str:
    """The thing a change changed: the server, the plan, an export's id, a target's IQN."""
    kind, before = undo
    return kind if kind in ("backend", "plan") else f"{kind}:{before[0]}"


class _Api:
    def __init__(self, fake: FakeAppliance) -> None:
        self.client, self.token = fake, "token"

    def login(self) -> None:
        pass


class _Vm:
    def __init__(self, fake: FakeAppliance) -> None:
        self.fake, self.started_at = fake, time.monotonic()
        self.config = type("Config", (), {"fresh": True})()

    def nfs_url(self, path: str) -> str:
        return f"nfs://guest{path}"

    def ssh(self, argv: list[str], timeout: float) -> str:
        return "active\ninactive\n" if self.fake.backend == "ganesha" else "inactive\nactive\n"


class _Lab:
    def __init__(self, fake: FakeAppliance) -> None:
        self.fake, self.client = fake, HOST
        self.api, self.vm = _Api(fake), _Vm(fake)
        self.boots = 0

    def power_cut(self) -> float:
        self.fake.cut()
        return time.monotonic()

    def start(self, timeout: float) -> float:
        self.fake.boot()
        self.vm.started_at = time.monotonic()
        self.boots += 1
        return 0.0


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst of a few tenths of a second, observations back to back, a limit of a few seconds: on a
    loaded two-core runner the first observation after the boot can take over a second."""
    monkeypatch.setattr(reconcilecut, "BURST_FROM_S", 0.2)
    monkeypatch.setattr(reconcilecut, "BURST_S", 0.4)
    monkeypatch.setattr(reconcilecut, "PAUSE_S", 0.01)
    monkeypatch.setattr(reconcilecut, "OBSERVE_EVERY_S", 0.01)
    monkeypatch.setattr(reconcilecut, "CONVERGE_S", 4.0)


def cycle(fake: FakeAppliance, monkeypatch: pytest.MonkeyPatch, seed: int = 11) -> dict[str, Any]:
    def nfs_ls(argv: list[str], **_: Any) -> Completed:
        dataset = argv[1].removeprefix("nfs://guest/")
        return Completed(tuple(argv), 0 if fake.lists(dataset) else 10, "", "")

    monkeypatch.setattr(reconcilecut, "run", nfs_ls)
    lab = _Lab(fake)
    base = Desired(backend="ganesha", exports={"tank/rel": (HOST,)}, plan=PLAN)
    result, _ = reconcilecut.cut_cycle(cast(Lab, lab), random.Random(seed), 1, base, SCOPE)
    assert lab.boots == 1 and lab.vm.config.fresh is False
    json.dumps(result)  # the run's JSON takes it as it is
    return result


def test_a_cycle_on_an_appliance_that_keeps_its_word_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    result = cycle(FakeAppliance(), monkeypatch)
    assert result["survived"] and result["violations"] == [] and result["converged_s"] is not None
    assert result["acked"] > 3 and result["acked"] + result["unacked"] + result["refused"] == len(
        result["requests"]
    )
    assert {r["client"] for r in result["requests"]} == {"nfs", "tuning", "iscsi"}
    assert set(result["unacked_settled"].values()) <= {"in effect", "absent"}
    assert 0.2 <= result["kill_drawn_s"] <= 0.4
    assert result["kill_drawn_s"] <= result["kill_s"] < result["kill_drawn_s"] + 2.0


def test_the_same_seed_draws_the_same_kill_moment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kill moment and each client's first change replay; how the three clients' threads
    interleave is the scheduler's, so the order across clients is not compared."""
    first, again = cycle(FakeAppliance(), monkeypatch, 5), cycle(FakeAppliance(), monkeypatch, 5)
    assert first["kill_drawn_s"] == again["kill_drawn_s"]

    def opening(result: dict[str, Any]) -> dict[str, tuple[str, str]]:
        firsts: dict[str, tuple[str, str]] = {}
        for r in result["requests"]:
            firsts.setdefault(r["client"], (r["request"], r["key"]))
        return firsts

    assert set(opening(first)) == {"nfs", "tuning", "iscsi"}
    assert opening(first) == opening(again)


def test_an_acknowledged_change_forgotten_at_the_cut_fails_the_cycle(monkeypatch: pytest.MonkeyPatch) -> None:
    result = cycle(FakeAppliance(forget_at_cut=True), monkeypatch)
    assert not result["survived"]
    assert [v["kind"] for v in result["violations"]] == [Kind.lost]


def test_exports_stored_but_not_served_after_the_boot_fail_the_cycle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    result = cycle(FakeAppliance(serves_after_boot=False), monkeypatch)
    assert not result["survived"] and result["converged_s"] is None
    assert result["observations"] > 1  # watched until the limit
    kinds = {(v["kind"], v["key"]) for v in result["violations"]}
    assert (Kind.not_in_effect, "export:tank/rel") in kinds and {k for k, _ in kinds} == {Kind.not_in_effect}
