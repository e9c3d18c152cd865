"""Desktop pools against vcsim: plan, apply, resume, grow/shrink, recompose, destroy, faults mid-run.

One vcsim for the module (these tests change its inventory); each test uses its own deployment and
naming pattern, so they do not see each other's desktops.
"""

from __future__ import annotations

import pytest
from pyVmomi import vim
from support.provisioning import find, foreign_vm, golden_clone, login_for, owner_of, pool_plan

from lab.vcsim import CLUSTER, GOLDEN_VM, HOST_MEMORY_GIB, Vcsim, wait_for_task
from provisioning import apply as prov
from provisioning.destroy import destroy
from provisioning.errors import (
    Cancelled,
    HostNotInCluster,
    InsufficientResources,
    InsufficientSpace,
    NameCollision,
    PlacementNotFound,
    SessionExpired,
    SnapshotMissing,
)
from provisioning.plan import DeploymentPlan
from provisioning.progress import Event, Options

pytestmark = pytest.mark.integration


def _vms(si: vim.ServiceInstance, folder: str) -> dict[str, vim.VirtualMachine]:
    container = find(si, f"vm/{folder}")
    return (
        {}
        if container is None
        else {c.name: c for c in container.childEntity if isinstance(c, vim.VirtualMachine)}
    )


def test_plan_changes_nothing_then_apply_builds_the_pool_and_a_second_apply_has_nothing_to_do(
    site: Vcsim, si: vim.ServiceInstance
) -> None:
    plan = pool_plan("dep-a", count=20)
    diff = prov.plan(si, plan)
    assert diff.counts() == {"create folder": 2, "create resource_pool": 1, "create desktop": 20}
    assert find(si, "vm/vdi") is None, "plan changed nothing"

    events: list[Event] = []
    report = prov.apply(login_for(site), plan, Options(on_event=events.append))
    assert not report.failed and len(report.done) == 20
    assert 1 < report.peak <= 8, "bounded by the default concurrency"
    done = [e for e in events if e.kind == "done"]
    assert [e.done for e in done] == list(range(1, 21)) and {e.total for e in done} == {20}, "per-VM progress"

    vms = _vms(si, "vdi/pool-a")
    assert sorted(vms) == [f"vdi-a-{n:03}" for n in range(1, 21)]
    vm = vms["vdi-a-007"]
    assert owner_of(vm) == {"arcvsa.owner": "dep-a", "arcvsa.source": f"{GOLDEN_VM}@base"}
    assert (vm.config.hardware.numCPU, vm.config.hardware.memoryMB) == (1, 2048)
    assert vm.runtime.powerState == "poweredOn"
    assert vm.resourcePool.name == "rp-a"
    assert owner_of(find(si, "vm/vdi")) == {"arcvsa.owner": "dep-a"}, "the folder is marked too"

    again = prov.plan(si, plan)
    assert again.actions == [] and again.unchanged == 20


def test_full_clones_at_concurrency_two(site: Vcsim, si: vim.ServiceInstance) -> None:
    plan = pool_plan(
        "dep-full", count=5, naming="full-##", folder="full", resource_pool=None, clone="full", concurrency=2
    )
    report = prov.apply(login_for(site), plan)
    assert sorted(report.done) == [f"full-{n:02}" for n in range(1, 6)]
    assert report.peak <= 2


def test_grow_shrink_and_recompose(site: Vcsim, si: vim.ServiceInstance) -> None:
    plan = pool_plan("dep-g", count=6, naming="grow-##", folder="grow", resource_pool=None)
    prov.apply(login_for(site), plan)
    grown = plan.model_copy(update={"pool": plan.pool.model_copy(update={"count": 9})})  # type: ignore[union-attr]
    assert prov.plan(si, grown).counts() == {"create desktop": 3}
    prov.apply(login_for(site), grown)
    shrunk = plan.model_copy(update={"pool": plan.pool.model_copy(update={"count": 4})})  # type: ignore[union-attr]
    assert prov.plan(si, shrunk).counts() == {"delete desktop": 5}
    prov.apply(login_for(site), shrunk)
    assert sorted(_vms(si, "grow")) == ["grow-01", "grow-02", "grow-03", "grow-04"]

    golden = find(si, f"vm/{GOLDEN_VM}")
    wait_for_task(
        si, golden.CreateSnapshot_Task(name="v2", description="patched", memory=False, quiesce=False), 30
    )
    recomposed = plan.model_copy(update={"pool": plan.pool.model_copy(update={"count": 4, "snapshot": "v2"})})  # type: ignore[union-attr]
    assert prov.plan(si, recomposed).counts() == {"replace desktop": 4}
    report = prov.apply(login_for(site), recomposed)
    assert not report.failed
    assert {owner_of(vm)["arcvsa.source"] for vm in _vms(si, "grow").values()} == {f"{GOLDEN_VM}@v2"}


def test_destroy_removes_only_what_the_deployment_made(site: Vcsim, si: vim.ServiceInstance) -> None:
    plan = pool_plan("dep-d", count=5, naming="dd-##", folder="dd/pool", resource_pool="rp-d")
    prov.apply(login_for(site), plan)
    intruder = foreign_vm(si, "dd-99", folder="vm/dd/pool")  # matches the pattern, sits in our folder
    bystander = foreign_vm(si, "dd-06")
    report = destroy(login_for(site), "dep-d", plan.datacenter, plan.cluster)
    assert not report.failed
    assert sorted(_vms(si, "dd/pool")) == ["dd-99"], "the foreign VM in our folder stays"
    assert find(si, "vm/dd/pool") is not None, "a folder holding a foreign VM is kept"
    assert bystander.name == "dd-06" and intruder.name == "dd-99"
    assert find(si, "host/vdi-cluster/Resources/rp-d") is None


def test_destroy_removes_a_clone_whose_answer_was_lost_and_no_clone_it_did_not_ask_for(
    site: Vcsim, si: vim.ServiceInstance
) -> None:
    plan = pool_plan("dep-l", count=2, naming="ll-##", folder="ll", resource_pool=None)
    prov.apply(login_for(site), plan)
    for name in ("ll-03", "ll-04"):  # ll-03: asked for by a run that died before the answer; ll-04: not
        golden_clone(si, name, "vm/ll")
    asked = Options(adopt={"ll-03": ""})
    report = destroy(login_for(site), "dep-l", plan.datacenter, plan.cluster, asked, pool=plan.pool)
    assert not report.failed and {"ll-01", "ll-02", "ll-03"} <= set(report.done)
    assert sorted(_vms(si, "ll")) == ["ll-04"], "a clone no run of ours asked for stays"


@pytest.mark.parametrize(
    ("change", "error", "field"),
    [
        ({"count": 3, "datastore": "san-lun-02", "delta_gb": 1e6}, InsufficientSpace, "pool.count"),
        # 52 desktops of 32 GiB: 1664 GiB, over the lab cluster's 408 GiB at 4x overcommit (1632 GiB)
        ({"count": 52, "memory_mb": 32 * 1024}, InsufficientResources, "pool.count"),
        ({"golden_vm": "desktop-01"}, SnapshotMissing, "pool.snapshot"),
        ({"snapshot": "nope"}, SnapshotMissing, "pool.snapshot"),
    ],
)
def test_bad_pools_are_refused_before_any_change(
    site: Vcsim, si: vim.ServiceInstance, change: dict[str, object], error: type[Exception], field: str
) -> None:
    plan = pool_plan("dep-bad", naming="bad-##", folder="bad", **change)
    with pytest.raises(error) as caught:
        prov.apply(login_for(site), plan)
    assert getattr(caught.value, "field", None) == field
    assert find(si, "vm/bad") is None


def test_a_pool_may_take_the_cluster_memory_times_its_overcommit_and_not_one_desktop_more(
    si: vim.ServiceInstance,
) -> None:
    total = find(si, f"host/{CLUSTER}").summary.totalMemory
    assert total == sum(HOST_MEMORY_GIB) * 1024**3, "vCenter's figure is the lab hosts' memory added up"
    fits = total * 4 // (32 * 1024**3)  # 32 GiB desktops, at the default 4x overcommit
    plan = pool_plan(
        "dep-room", naming="room-##", folder="room", resource_pool="rp-room", count=fits, memory_mb=32 * 1024
    )
    assert prov.plan(si, plan).counts() == {
        "create folder": 1,
        "create resource_pool": 1,
        "create desktop": fits,
    }
    over = pool_plan(
        "dep-room",
        naming="room-##",
        folder="room",
        resource_pool="rp-room",
        count=fits + 1,
        memory_mb=32 * 1024,
    )
    with pytest.raises(
        InsufficientResources,
        match=rf"^{fits + 1} desktops of 32768 MiB need {(fits + 1) * 32} GiB of memory; cluster "
        rf"'{CLUSTER}' allows {fits * 32} GiB at 4x overcommit$",
    ) as caught:
        prov.plan(si, over)
    assert caught.value.field == "pool.count"
    assert find(si, "vm/room") is None


def test_count_zero_is_not_a_plan() -> None:
    with pytest.raises(ValueError, match="count"):
        pool_plan(count=0)


def test_name_collision_is_refused_with_the_names(site: Vcsim, si: vim.ServiceInstance) -> None:
    foreign_vm(si, "col-02")
    with pytest.raises(NameCollision) as caught:
        prov.apply(login_for(site), pool_plan("dep-col", naming="col-##", folder="col", count=3))
    assert caught.value.names == ["col-02"]
    assert find(si, "vm/col") is None


def test_host_not_in_cluster_is_refused(site: Vcsim, tmp_path: object) -> None:
    plan = DeploymentPlan.model_validate(
        {
            "name": "dep-h",
            "datacenter": "vdi-dc",
            "cluster": "vdi-cluster",
            "fleet": {
                "ova_path": "/nonexistent.ova",
                "network": "vsa-nfs",
                "datastore": "san-lun-01",
                "appliances": [{"host": "esx-elsewhere", "name": "vsa-x"}],
            },
        }
    )
    with pytest.raises(HostNotInCluster, match="esx-elsewhere"):
        prov.apply(login_for(site), plan)


def test_one_clone_failing_is_reported_and_the_next_apply_finishes(
    site: Vcsim, si: vim.ServiceInstance
) -> None:
    plan = pool_plan("dep-f", count=12, naming="ff-##", folder="ff", resource_pool=None)
    blockers: list[vim.VirtualMachine] = []

    def block_the_last(event: Event) -> None:
        # after the checks passed and the first desktop exists, someone takes the last desktop's name
        if event.kind == "done" and not blockers:
            blockers.append(foreign_vm(si, "ff-12", folder="vm/ff"))

    report = prov.apply(login_for(site), plan, Options(on_event=block_the_last))
    assert list(report.failed) == ["ff-12"] and "DuplicateName" in report.failed["ff-12"]
    assert len(report.done) == 11
    wait_for_task(si, blockers[0].Destroy_Task(), 30)
    assert prov.plan(si, plan).counts() == {"create desktop": 1}
    assert prov.apply(login_for(site), plan).done == ["ff-12"]


def test_a_transient_fault_is_retried(site: Vcsim, si: vim.ServiceInstance) -> None:
    plan = pool_plan("dep-t", count=4, naming="tt-##", folder="tt", resource_pool=None, concurrency=1)
    blockers: list[vim.VirtualMachine] = []

    def flap(event: Event) -> None:
        if event.kind == "done" and not blockers:
            blockers.append(foreign_vm(si, "tt-04", folder="vm/tt"))
        if event.kind == "retry" and event.object == "tt-04":  # the busy object frees up
            wait_for_task(si, blockers[0].Destroy_Task(), 30)

    # DuplicateName stands in for a transient fault: vcsim 0.46 has no fault injection of its own
    opts = Options(on_event=flap, transient=(vim.fault.DuplicateName,), retries=2)
    report = prov.apply(login_for(site), plan, opts)
    assert not report.failed and report.retries == 1 and sorted(report.done)[-1] == "tt-04"


def test_session_ending_mid_run_logs_in_again_and_finishes(site: Vcsim, si: vim.ServiceInstance) -> None:
    plan = pool_plan("dep-s", count=16, naming="ss-##", folder="ss", resource_pool=None)
    ended: list[str] = []
    admin = si.RetrieveContent().sessionManager

    def expire(event: Event) -> None:
        if event.kind == "done" and event.done == 4 and not ended:
            others = [s.key for s in admin.sessionList if s.key != admin.currentSession.key]
            admin.TerminateSession(others)
            ended.extend(others)

    report = prov.apply(login_for(site), plan, Options(on_event=expire))
    assert ended and report.relogins >= 1
    assert not report.failed and len(report.done) == 16
    assert all(owner_of(vm)["arcvsa.owner"] == "dep-s" for vm in _vms(si, "ss").values())


def test_session_ending_with_a_changed_password_fails_and_a_later_apply_adopts_and_resumes(
    site: Vcsim, si: vim.ServiceInstance
) -> None:
    plan = pool_plan("dep-p", count=10, naming="pp-##", folder="pp", resource_pool=None, concurrency=2)
    password = [site.password]
    admin = si.RetrieveContent().sessionManager

    clones: dict[str, str] = {}

    def rotate(event: Event) -> None:
        if event.kind == "task":
            clones[event.object or ""] = event.message
        if event.kind == "task" and event.object == "pp-04" and event.message:  # on its way: end the session
            password[0] = "wrong"
            admin.TerminateSession([s.key for s in admin.sessionList if s.key != admin.currentSession.key])

    with pytest.raises(SessionExpired):
        prov.apply(login_for(site, lambda: password[0]), plan, Options(on_event=rotate))
    # clones in flight finished without us: unmarked, they would collide; their task ids prove them ours
    unmarked = [n for n, vm in _vms(si, "pp").items() if "arcvsa.owner" not in owner_of(vm)]
    # two clones run at a time: pp-03's may still have been in flight when the session ended, or not
    assert "pp-04" in unmarked and set(unmarked) <= {"pp-03", "pp-04"}, unmarked
    with pytest.raises(NameCollision):
        prov.plan(si, plan)
    assert "pp-04" not in [a.name for a in prov.plan(si, plan, clones).of("desktop", "create")]
    report = prov.apply(login_for(site), plan, Options(adopt=clones))
    assert not report.failed
    assert all(owner_of(vm)["arcvsa.owner"] == "dep-p" for vm in _vms(si, "pp").values())
    assert len(_vms(si, "pp")) == 10 and set(unmarked) <= set(report.done)
    assert prov.plan(si, plan).actions == []


def test_a_clone_whose_answer_was_lost_is_adopted_on_the_task_history_and_nothing_else(
    site: Vcsim, si: vim.ServiceInstance
) -> None:
    plan = pool_plan("dep-u", count=4, naming="uu-##", folder="uu", resource_pool=None)
    golden_clone(si, "uu-01")  # the run asked for it and died before vCenter's answer: no task id recorded
    foreign_vm(si, "uu-02")  # asked for as well, but someone else made a VM of that name
    golden_clone(si, "uu-03")  # a clone of the golden VM that no run of ours asked for
    asked = {"uu-01": "", "uu-02": ""}
    with pytest.raises(NameCollision) as refused:
        prov.plan(si, plan, asked)
    assert refused.value.names == ["uu-02", "uu-03"]
    for name in ("uu-02", "uu-03"):
        wait_for_task(si, find(si, f"vm/{name}").Destroy_Task(), 30)
    assert "uu-01" not in [a.name for a in prov.plan(si, plan, asked).of("desktop", "create")]
    report = prov.apply(login_for(site), plan, Options(adopt=asked))
    assert sorted(report.done) == ["uu-01", "uu-02", "uu-03", "uu-04"]
    assert owner_of(find(si, "vm/uu-01")) == {"arcvsa.owner": "dep-u", "arcvsa.source": f"{GOLDEN_VM}@base"}


def test_cancel_stops_starting_clones_and_keeps_what_was_made(site: Vcsim, si: vim.ServiceInstance) -> None:
    plan = pool_plan("dep-c", count=30, naming="cc-##", folder="cc", resource_pool=None, concurrency=2)
    seen: list[int] = []
    opts = Options(on_event=lambda e: seen.append(e.done), cancelled=lambda: bool(seen) and seen[-1] >= 3)
    with pytest.raises(Cancelled):
        prov.apply(login_for(site), plan, opts)
    made = _vms(si, "cc")
    assert 3 <= len(made) < 30
    assert all(owner_of(vm)["arcvsa.owner"] == "dep-c" for vm in made.values())
    assert prov.plan(si, plan).counts()["create desktop"] == 30 - len(made)


def test_a_customization_spec_is_applied_and_a_missing_one_refused(
    site: Vcsim, si: vim.ServiceInstance
) -> None:
    with pytest.raises(PlacementNotFound, match="no customization spec 'nope'"):
        prov.apply(
            login_for(site),
            pool_plan("dep-cs", count=2, naming="cs-##", folder="cs", customization_spec="nope"),
        )
    assert find(si, "vm/cs") is None
    plan = pool_plan(
        "dep-cs", count=2, naming="cs-##", folder="cs", resource_pool=None, customization_spec="vcsim-linux"
    )
    report = prov.apply(login_for(site), plan)
    assert report.failed == {} and len(report.done) == 2
