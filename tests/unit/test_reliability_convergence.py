"""The rule of reliability.convergence, one bad thing at a time (no VM: runs in seconds).

Each test starts from a burst whose outcome is clean, then breaks exactly one thing: what is stored,
what runs, an alert or a pool.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from reliability.convergence import (
    Desired,
    Expected,
    Kind,
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

HOST = "10.0.2.2"
OTHER = "192.0.2.21"
IQN_A, IQN_B = "iqn.2026-11.lab.arcvsa:rc-0", "iqn.2026-11.lab.arcvsa:rc-1"
SCOPE = Scope(HOST, ("tank/rc0", "tank/rc1", "tank/rc2"), (IQN_A, IQN_B))
PLAN = {"zfs_txg_timeout": 5, "zfs_arc_max": 1 << 30}
BASE = Desired(
    backend="ganesha",
    exports={"tank/rel": (HOST,), "tank/rc0": (HOST, OTHER)},
    plan=PLAN,
    targets={IQN_A: "tank/rclun0"},
)

CREATE_RC1 = export_change("tank/rc1", [OTHER, HOST], "POST /api/storage/exports")
HIDE_RC0 = export_change("tank/rc0", [OTHER], "PUT /api/storage/exports/301")
DELETE_RC0 = export_change("tank/rc0", None, "DELETE /api/storage/exports/301")
CREATE_RC2 = export_change("tank/rc2", [HOST, OTHER], "POST /api/storage/exports")
TO_KNFSD = server_change("knfsd", "PUT /api/storage/nfs/backend")
NEW_PLAN = plan_change({**PLAN, "zfs_txg_timeout": 7}, "PUT /api/tuning/parameters")
ADD_B = target_change(IQN_B, "tank/rclun1", "POST /api/storage/iscsi/targets")
DROP_A = target_change(IQN_A, None, "DELETE /api/storage/iscsi/targets/" + IQN_A)


def burst() -> list[Sent]:
    """Three clients: exports (two answered, one in flight), tuning (in flight), iSCSI (answered)."""
    return [
        Sent(CREATE_RC1, 0.1, 1.5, 201),
        Sent(HIDE_RC0, 1.6, 2.9, 200),
        Sent(CREATE_RC2, 3.0),
        Sent(NEW_PLAN, 0.2),
        Sent(ADD_B, 0.3, 2.0, 201),
    ]


def in_effect(stored: Desired) -> Observed:
    """What a converged appliance shows for ``stored``: each export served to its clients, and only
    those; the stored server alone running; the plan live; the stored targets in LIO."""
    listed = {d: HOST in stored.exports.get(d, ()) for d in {*SCOPE.datasets, *stored.exports}}
    return Observed(
        stored=stored,
        listed=listed,
        active=dict.fromkeys(stored.exports, True),
        running=frozenset({stored.backend}),
        live=dict(stored.plan),
        in_lio=dict(stored.targets),
        alerts=("nfs/service/idle",),
        pools={"tank": "ONLINE", "plain": "ONLINE"},
    )


def acked_only() -> tuple[Expected, Desired]:
    expected = expect(BASE, burst())
    return expected, expected.acked


def kinds(problems: list[Problem]) -> list[tuple[Kind, str]]:
    return [(p.kind, p.key) for p in problems]


# --- what the requests allow ---------------------------------------------------------------------------


def test_acknowledged_changes_apply_in_the_order_sent_and_the_rest_is_kept_apart() -> None:
    sent = [Sent(DELETE_RC0, 5.0, 6.0, 204), Sent(HIDE_RC0, 1.0, 2.0, 200), Sent(TO_KNFSD, 7.0, 8.0, 502)]
    expected = expect(BASE, sent)
    assert "tank/rc0" not in expected.acked.exports  # the update, then the delete
    assert expected.acked.backend == "ganesha" and expected.refused == (TO_KNFSD,)
    assert expected.unacked == () and expected.acked_keys == {"export:tank/rc0"}


@pytest.mark.parametrize(
    ("status", "acked", "refused"), [(199, 0, 1), (200, 1, 0), (204, 1, 0), (299, 1, 0), (300, 0, 1)]
)
def test_a_2xx_answer_acknowledges_anything_else_refuses(status: int, acked: int, refused: int) -> None:
    sent = Sent(CREATE_RC1, 0.0, 1.0, status)
    assert (sent.acked, sent.refused, sent.in_flight) == (bool(acked), bool(refused), False)
    assert Sent(CREATE_RC1, 0.0).in_flight


def test_apply_sets_one_key_and_removes_with_none() -> None:
    after = apply(apply(apply(BASE, DROP_A), ADD_B), NEW_PLAN)
    assert after.targets == {IQN_B: "tank/rclun1"}
    assert after.plan["zfs_txg_timeout"] == 7 and after.exports == BASE.exports
    with pytest.raises(ValueError, match="no such key"):
        apply(BASE, replace(ADD_B, key="volume:tank/x"))


# --- clean outcomes ------------------------------------------------------------------------------------


def test_unacknowledged_changes_absent_converged() -> None:
    expected, stored = acked_only()
    assert judge(expected, in_effect(stored), SCOPE) == []
    assert settled(expected, stored) == {"export:tank/rc2": "absent", "plan": "absent"}


def test_unacknowledged_changes_wholly_in_effect_converged() -> None:
    expected, stored = acked_only()
    stored = apply(apply(stored, CREATE_RC2), NEW_PLAN)
    assert judge(expected, in_effect(stored), SCOPE) == []
    assert settled(expected, stored) == {"export:tank/rc2": "in effect", "plan": "in effect"}


def test_one_unacknowledged_in_effect_the_other_absent_converged() -> None:
    expected, stored = acked_only()
    assert judge(expected, in_effect(apply(stored, NEW_PLAN)), SCOPE) == []


# --- the desired state: one bad key at a time -----------------------------------------------------------


def test_an_acknowledged_create_missing_is_lost() -> None:
    expected, stored = acked_only()
    gone = replace(stored, exports={k: v for k, v in stored.exports.items() if k != "tank/rc1"})
    assert kinds(judge(expected, in_effect(gone), SCOPE)) == [(Kind.lost, "export:tank/rc1")]


def test_an_acknowledged_update_rolled_back_is_lost() -> None:
    expected, stored = acked_only()
    older = replace(stored, exports={**stored.exports, "tank/rc0": (HOST, OTHER)})
    problems = judge(expected, in_effect(older), SCOPE)
    assert kinds(problems) == [(Kind.lost, "export:tank/rc0")]
    assert "stored ('10.0.2.2', '192.0.2.21')" in problems[0].detail


def test_an_acknowledged_delete_come_back_is_lost() -> None:
    expected = expect(BASE, [Sent(DROP_A, 0.0, 1.0, 204)])
    assert kinds(judge(expected, in_effect(BASE), SCOPE)) == [(Kind.lost, "target:" + IQN_A)]


def test_a_refused_change_stored_is_refused_stored() -> None:
    expected = expect(BASE, [Sent(TO_KNFSD, 0.0, 3.0, 502)])
    assert kinds(judge(expected, in_effect(apply(BASE, TO_KNFSD)), SCOPE)) == [
        (Kind.refused_stored, "server")
    ]


def test_a_value_no_request_sets_is_unrequested() -> None:
    expected, stored = acked_only()
    odd = replace(stored, exports={**stored.exports, "tank/rc2": (OTHER,)})  # the create in flight had HOST
    assert kinds(judge(expected, in_effect(odd), SCOPE)) == [(Kind.unrequested, "export:tank/rc2")]


def test_an_untouched_key_changed_is_unrequested() -> None:
    expected, stored = acked_only()
    assert kinds(judge(expected, in_effect(replace(stored, backend="knfsd")), SCOPE)) == [
        (Kind.unrequested, "server")
    ]


# --- the effect: one thing not running as stored at a time --------------------------------------------


def test_a_stored_export_the_host_cannot_list_is_not_in_effect() -> None:
    expected, stored = acked_only()
    seen = in_effect(stored)
    seen = replace(seen, listed={**seen.listed, "tank/rc1": False})
    assert kinds(judge(expected, seen, SCOPE)) == [(Kind.not_in_effect, "export:tank/rc1")]


def test_a_stored_export_the_api_says_is_not_served_is_not_in_effect() -> None:
    expected, stored = acked_only()
    seen = in_effect(stored)
    seen = replace(seen, active={**seen.active, "tank/rc0": False})  # the host is not its client
    assert kinds(judge(expected, seen, SCOPE)) == [(Kind.not_in_effect, "export:tank/rc0")]


def test_an_export_still_serving_a_host_it_no_longer_lists_is_not_in_effect() -> None:
    expected, stored = acked_only()  # tank/rc0 acknowledged without the host
    seen = in_effect(stored)
    seen = replace(seen, listed={**seen.listed, "tank/rc0": True})
    problems = judge(expected, seen, SCOPE)
    assert kinds(problems) == [(Kind.not_in_effect, "export:tank/rc0")]
    assert "without the host" in problems[0].detail


def test_an_unstored_create_served_is_in_effect_not_stored() -> None:
    expected, stored = acked_only()
    seen = in_effect(stored)
    seen = replace(seen, listed={**seen.listed, "tank/rc2": True})  # the create in flight, not stored
    assert kinds(judge(expected, seen, SCOPE)) == [(Kind.not_stored, "export:tank/rc2")]


def test_an_unstored_export_not_listed_is_fine_and_unwatched_datasets_are_not_listed() -> None:
    expected, stored = acked_only()
    seen = in_effect(stored)
    assert seen.listed["tank/rc2"] is False and judge(expected, seen, SCOPE) == []
    without = replace(seen, listed={k: v for k, v in seen.listed.items() if k != "tank/rel"})
    assert judge(expected, without, SCOPE) == []  # not listed by the harness: only the api's word


@pytest.mark.parametrize("running", [set(), {"knfsd"}, {"ganesha", "knfsd"}])
def test_the_stored_server_not_alone_running_is_not_in_effect(running: set[str]) -> None:
    expected, stored = acked_only()
    seen = replace(in_effect(stored), running=frozenset(running))
    assert kinds(judge(expected, seen, SCOPE)) == [(Kind.not_in_effect, "server")]


def test_no_server_needs_to_run_without_exports() -> None:
    expected = expect(replace(BASE, exports={}), [])
    seen = replace(in_effect(expected.acked), running=frozenset())
    assert judge(expected, seen, SCOPE) == []


def test_a_planned_parameter_live_at_another_value_is_not_in_effect() -> None:
    expected, stored = acked_only()
    seen = replace(in_effect(stored), live={**stored.plan, "zfs_arc_max": 1 << 29})
    problems = judge(expected, seen, SCOPE)
    assert kinds(problems) == [(Kind.not_in_effect, "plan")]
    assert problems[0].detail == f"zfs_arc_max live {1 << 29}, planned {1 << 30}"


def test_the_unacknowledged_plan_live_but_not_stored_is_in_effect_not_stored() -> None:
    expected, stored = acked_only()
    seen = replace(in_effect(stored), live={**stored.plan, "zfs_txg_timeout": 7})
    assert kinds(judge(expected, seen, SCOPE)) == [(Kind.not_stored, "plan")]


def test_a_planned_parameter_missing_from_sysfs_is_not_in_effect() -> None:
    expected, stored = acked_only()
    seen = replace(in_effect(stored), live={"zfs_txg_timeout": 5})
    assert kinds(judge(expected, seen, SCOPE)) == [(Kind.not_in_effect, "plan")]


def test_a_stored_target_missing_from_lio_is_not_in_effect() -> None:
    expected, stored = acked_only()
    seen = replace(in_effect(stored), in_lio={IQN_A: "tank/rclun0"})
    assert kinds(judge(expected, seen, SCOPE)) == [(Kind.not_in_effect, "target:" + IQN_B)]


def test_a_stored_target_on_another_zvol_in_lio_is_not_in_effect() -> None:
    expected, stored = acked_only()
    seen = replace(in_effect(stored), in_lio={**stored.targets, IQN_B: "tank/rclun0"})
    assert kinds(judge(expected, seen, SCOPE)) == [(Kind.not_in_effect, "target:" + IQN_B)]


def test_a_target_in_lio_not_stored_is_in_effect_not_stored() -> None:
    expected = expect(BASE, [Sent(ADD_B, 0.0)])  # the create in flight
    seen = replace(in_effect(BASE), in_lio={**BASE.targets, IQN_B: "tank/rclun1"})
    assert kinds(judge(expected, seen, SCOPE)) == [(Kind.not_stored, "target:" + IQN_B)]


def test_a_target_in_lio_the_burst_does_not_make_is_left_alone() -> None:
    expected, stored = acked_only()
    seen = replace(in_effect(stored), in_lio={**stored.targets, "iqn.2026-11.lab.arcvsa:other": "tank/x"})
    assert judge(expected, seen, SCOPE) == []


# --- alerts and pools ----------------------------------------------------------------------------------


def test_a_reconcile_alert_left_is_a_problem_other_alerts_are_not() -> None:
    expected, stored = acked_only()
    seen = replace(in_effect(stored), alerts=("pool/tank/capacity", "reconcile/iscsi_targets"))
    assert kinds(judge(expected, seen, SCOPE)) == [(Kind.alert, "reconcile/iscsi_targets")]


def test_a_pool_not_online_is_a_problem() -> None:
    expected, stored = acked_only()
    seen = replace(in_effect(stored), pools={"tank": "ONLINE", "plain": "DEGRADED"})
    assert kinds(judge(expected, seen, SCOPE)) == [(Kind.pool, "plain")]


# --- the cycle's verdict over its observations ---------------------------------------------------------

LOST = Problem(Kind.lost, "export:tank/rc1", "stored None")
UNSERVED = Problem(Kind.not_in_effect, "export:tank/rc1", "not listed")


def test_converged_at_the_first_clean_observation() -> None:
    found = verdict([(90.0, [UNSERVED]), (100.0, []), (110.0, [])], limit_s=200.0)
    assert found.converged_s == 100.0 and found.violations == () and found.survived


def test_converged_exactly_at_the_limit_passes() -> None:
    assert verdict([(90.0, [UNSERVED]), (200.0, [])], limit_s=200.0).survived


def test_converged_after_the_limit_fails_with_what_was_wrong_by_then() -> None:
    found = verdict([(90.0, [UNSERVED]), (200.5, [])], limit_s=200.0)
    assert not found.survived and found.converged_s is None and found.violations == (UNSERVED,)


def test_a_desired_state_fault_seen_once_fails_even_if_gone_later() -> None:
    found = verdict([(90.0, [LOST]), (100.0, [])], limit_s=200.0)
    assert found.converged_s == 100.0 and found.violations == (LOST,) and not found.survived


def test_no_published_state_by_the_limit_fails() -> None:
    found = verdict([], limit_s=200.0)
    assert not found.survived and [p.kind for p in found.violations] == [Kind.unpublished]
