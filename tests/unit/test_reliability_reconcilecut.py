"""The reconcile-cut case's requests and its report (no VM): every request asks for exactly the change
the rule expects, and a cut that did not converge fails the run."""

from __future__ import annotations

import random
from typing import Any

from reliability.__main__ import merge, report
from reliability.convergence import Desired, apply
from reliability.reconcilecut import (
    DATASETS,
    EXPORT_IDS,
    IQNS,
    OTHERS,
    ZVOLS,
    iscsi_request,
    nfs_request,
    tuning_request,
)

HOST = "10.0.2.2"
BASE = Desired(
    backend="ganesha",
    exports={"tank/rel": (HOST,)},
    plan={"zfs_txg_timeout": 5, "l2arc_write_max": 8 << 20, "zfs_arc_max": 1 << 30},
)


def walk(steps: int, seed: int = 7) -> list[tuple[Desired, Any]]:
    """The NFS client's requests as if every one were acknowledged: (state before, request)."""
    rng, model, seen = random.Random(seed), BASE, []
    for _ in range(steps):
        request = nfs_request(model, rng, HOST, may_switch=True)
        seen.append((model, request))
        model = apply(model, request.change)
    return seen


def test_every_nfs_request_asks_for_the_change_it_is_judged_by() -> None:
    for model, request in walk(200):
        change = request.change
        assert change.request == f"{request.method} {request.path}"
        if change.key == "server":
            assert request.body == {"backend": change.value} and change.value != model.backend
            continue
        dataset = change.key.removeprefix("export:")
        assert dataset in DATASETS  # the run's own exports are never touched
        if request.method == "POST":
            assert dataset not in model.exports and request.body is not None
            assert request.body["clients"] == [HOST, OTHERS[dataset]]
            assert request.body["export_id"] == EXPORT_IDS[dataset] and request.body["insecure_ports"]
            assert change.value == tuple(sorted(request.body["clients"]))
        elif request.method == "PUT":
            assert request.path == f"/api/storage/exports/{EXPORT_IDS[dataset]}" and request.body
            assert request.body["clients"] and change.value == tuple(sorted(request.body["clients"]))
            assert (HOST in request.body["clients"]) != (HOST in model.exports[dataset])
        else:
            assert request.method == "DELETE" and change.value is None and dataset in model.exports


def test_the_nfs_client_switches_the_server_only_when_allowed() -> None:
    rng = random.Random(1)
    assert all(nfs_request(BASE, rng, HOST, may_switch=False).change.key != "server" for _ in range(200))
    kinds = {request.change.key == "server" for _, request in walk(60)}
    assert kinds == {True, False}


def test_the_tuning_client_changes_the_txg_timeout_and_l2arc_write_size_only() -> None:
    rng = random.Random(3)
    for _ in range(50):
        request = tuning_request(BASE, rng)
        assert request.body is not None
        plan = request.body["params"]
        assert plan["zfs_arc_max"] == 1 << 30 and set(plan) == set(BASE.plan)
        assert plan["zfs_txg_timeout"] != 5 and plan["l2arc_write_max"] != 8 << 20
        assert apply(BASE, request.change).plan == plan


def test_the_iscsi_client_makes_a_missing_target_and_removes_a_present_one() -> None:
    rng = random.Random(5)
    model = BASE
    for _ in range(50):
        request = iscsi_request(model, rng)
        iqn = request.change.key.removeprefix("target:")
        if iqn in model.targets:
            assert request.method == "DELETE" and request.path.endswith(iqn)
        else:
            assert request.body is not None and request.body["zvol"] in ZVOLS
            assert IQNS[request.body["zvol"]] == iqn and request.change.value == request.body["zvol"]
        model = apply(model, request.change)


def cut(survived: bool) -> dict[str, Any]:
    violations = [] if survived else [{"kind": "lost", "key": "export:tank/rc1", "detail": "stored None"}]
    return {
        "cycle": 1,
        "kill_s": 7.31,
        "in_flight": [{"request": "PUT /api/tuning/parameters", "key": "plan", "for_s": 0.4}],
        "acked": 9,
        "unacked": 1,
        "unacked_settled": {"plan": "in effect"},
        "refused": 0,
        "boot_to_api_s": 96.0,
        "converged_s": 131.5 if survived else None,
        "violations": violations,
        "survived": survived,
    }


def run_data(*cuts: dict[str, Any]) -> dict[str, Any]:
    return {"seed": 42, "writers": {}, "cycles": [], "restarts": [], "reconcile_cuts": list(cuts)}


def test_the_report_shows_each_cut_and_passes_when_all_converged() -> None:
    text, passed = report(run_data(cut(True)))
    assert passed
    assert "power cut during a burst of api changes (exports, NFS server, tuning, iSCSI)  1         1" in text
    row = next(line for line in text.splitlines() if line.startswith("1 "))
    cells = ["1", "7.31", "PUT", "/api/tuning/parameters", "(0.4)", "9", "1", "(1/0)", "0", "96.0", "131.5"]
    assert row.split() == [*cells, "pass"]


def test_a_cut_that_lost_a_change_fails_the_report() -> None:
    text, passed = report(run_data(cut(True), cut(False)))
    assert not passed
    assert "reconcile cut 1: lost export:tank/rc1: stored None" in text


def test_a_report_of_an_older_run_without_cuts_still_reads() -> None:
    data = run_data()
    del data["reconcile_cuts"]
    text, passed = report(data)
    assert passed and "reconcile cut" not in text


def test_runs_merged_for_one_report_keep_each_runs_cuts() -> None:
    first, second = run_data(cut(True)), {**run_data(cut(False)), "seed": 43}
    merged = merge([first, second, {"seed": 44, "cycles": [], "restarts": []}])  # the last: an older run
    assert [c["cycle"] for c in merged["reconcile_cuts"]] == ["42/1", "43/1"]
    text, passed = report(merged)
    assert not passed and "reconcile cut 43/1: lost" in text
