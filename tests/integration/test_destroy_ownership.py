"""destroy against an inventory where most things are not ours: it removes exactly what carries our owner mark.

The module's own vcsim (the `site` fixture) gets, beside what deployment 'ours' made, resource pools, nested
folders, VMs and NFS datastores that another deployment ('theirs') made or nobody marked, some of them inside
our containers and some with the names of ours. destroy must leave every one of them, remove ours, empty
folders deepest first, and keep a container of ours that still holds something foreign.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyVmomi import vim, vmodl
from support import release_replay
from support.appliance_server import replayed_appliances
from support.provisioning import find, login_for, owner_of

import provisioning.destroy as destroying
from lab.horizon_fake import FakeConnectionServer
from lab.vcsim import CLUSTER, DATACENTER, DATASTORES, Vcsim, wait_for_task
from provisioning import ownership
from provisioning.destroy import ZfsClones, destroy
from provisioning.errors import VCenterError
from provisioning.nfs import nas_spec
from provisioning.plan import DesktopPoolSpec, HorizonSpec, NfsDatastore
from provisioning.progress import Event, Options
from provisioning.release import ApplianceStorage

pytestmark = pytest.mark.integration

OURS, THEIRS = "ours", "theirs"
SOURCE = "golden-win11@base"
PIN = "AB:" * 31 + "CD"
#: nothing listens here: an appliance api that cannot be reached
CLOSED = "127.0.0.1:9"


class Site:
    """Builds inventory objects on the module's vcsim, marked as a deployment would mark them (or not)."""

    def __init__(self, si: vim.ServiceInstance, workdir: Path) -> None:
        self.si, self.workdir = si, workdir
        self.content = si.RetrieveContent()
        self.keys = ownership.field_keys(self.content)
        self.dc, self.cluster = find(si, ""), find(si, f"host/{CLUSTER}")

    def mark(self, entity: Any, owner: str | None, **more: str) -> Any:
        if owner is not None:
            ownership.mark(self.content, self.keys, entity, owner=owner, **more)
        return entity

    def folder(self, path: str, owner: str | None = None) -> vim.Folder:
        parent_path, _, name = path.rpartition("/")
        parent = find(self.si, f"vm/{parent_path}") if parent_path else self.dc.vmFolder
        return self.mark(parent.CreateFolder(name), owner)

    def pool(self, name: str, owner: str | None = None, parent: vim.ResourcePool | None = None) -> Any:
        def allocation() -> vim.ResourceAllocationInfo:
            return vim.ResourceAllocationInfo(
                limit=-1,
                reservation=0,
                expandableReservation=True,
                shares=vim.SharesInfo(level="normal", shares=0),
            )

        spec = vim.ResourceConfigSpec(cpuAllocation=allocation(), memoryAllocation=allocation())
        return self.mark((parent or self.cluster.resourcePool).CreateResourcePool(name, spec), owner)

    def vm(self, name: str, folder: str = "", owner: str | None = None, pool: Any = None, **more: str) -> Any:
        spec = vim.vm.ConfigSpec(name=name, guestId="otherGuest", numCPUs=1, memoryMB=128,
                                 files=vim.vm.FileInfo(vmPathName=f"[{DATASTORES[1]}]"))  # fmt: skip
        target = find(self.si, f"vm/{folder}") if folder else self.dc.vmFolder
        vm = wait_for_task(self.si, target.CreateVM_Task(spec, pool or self.cluster.resourcePool), 30)
        return self.mark(vm, owner, **more)

    def nfs(self, name: str, hosts: int, owner: str | None = None) -> vim.Datastore:
        (self.workdir / name).mkdir(exist_ok=True)
        spec = nas_spec(NfsDatastore(name=name, server="192.0.2.21", path=f"/tank/{name}"))
        for host in self.cluster.host[:hosts]:
            host.configManager.datastoreSystem.CreateNasDatastore(spec)
        return self.mark(find(self.si, f"datastore/{name}"), owner)


@pytest.fixture
def lab(site: Vcsim, si: vim.ServiceInstance) -> Iterator[Site]:
    assert site.workdir is not None
    yield Site(si, site.workdir)


def folders(si: vim.ServiceInstance) -> set[str]:
    """Every folder below the VM folder, as a path."""
    out: set[str] = set()

    def walk(folder: Any, prefix: str) -> None:
        for child in folder.childEntity:
            if isinstance(child, vim.Folder):
                out.add(prefix + child.name)
                walk(child, f"{prefix}{child.name}/")

    walk(find(si, "").vmFolder, "")
    return out


def alive(obj: Any) -> bool:
    try:
        return bool(obj.name)
    except vmodl.fault.ManagedObjectNotFound:
        return False


def test_destroy_removes_exactly_ours_deepest_folder_first_and_keeps_every_foreign_object(
    site: Vcsim, si: vim.ServiceInstance, lab: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    # folders: one tree all ours, at four depths; ours inside theirs inside ours; theirs and unmarked trees
    for path in ("deep", "deep/a", "deep/a/b", "deep/a/b/c"):
        lab.folder(path, OURS)
    lab.folder("mixed", OURS)
    lab.folder("mixed/theirs", THEIRS)
    lab.folder("mixed/theirs/ours", OURS)
    lab.folder("plain")
    lab.folder("plain/sub", THEIRS)
    lab.folder("plain/sub/deeper")
    lab.folder("holds-foreign", OURS)
    lab.folder("theirs-empty", THEIRS)
    # resource pools of the cluster: ours empty once our desktops go, ours holding foreign things, foreign
    rp_ours = lab.pool("rp-ours", OURS)
    rp_busy = lab.pool("rp-ours-busy", OURS)
    rp_nested = lab.pool("rp-ours-nested", OURS)
    foreign_pools = [
        lab.pool("rp-child", None, rp_nested),
        lab.pool("rp-theirs", THEIRS),
        lab.pool("rp-plain"),
    ]
    # VMs: our desktops and appliance at several depths; theirs, unmarked, and foreign VMs with our names
    before = [lab.vm("d-01", "plain/sub/deeper"), lab.vm("vsa-1", "plain", THEIRS)]  # ours' names, made first
    ours = [
        lab.vm("d-01", "deep/a/b/c", OURS, rp_ours, source=SOURCE),
        lab.vm("d-02", "deep/a", OURS, rp_ours, source=SOURCE),
        lab.vm("d-03", "", OURS, rp_ours, source=SOURCE),
        lab.vm("d-04", "mixed/theirs/ours", OURS, source=SOURCE),
        lab.vm("vsa-1", "deep/a/b", OURS),
    ]
    foreign = [
        *before,
        lab.vm("d-03", "plain", None),  # our name, made after ours
        lab.vm("d-05", "plain/sub", THEIRS, source=SOURCE),
        lab.vm("bystander", "holds-foreign"),
        lab.vm("busy", "", None, rp_busy),
        lab.vm("vsa-2", "mixed/theirs", THEIRS),
    ]
    # NFS datastores: ours on every host, theirs on two, one nobody marked
    hosts = sorted(h.name for h in lab.cluster.host)
    our_nfs = lab.nfs("ours-nfs", len(hosts), OURS)
    foreign_nfs = [lab.nfs("theirs-nfs", 2, THEIRS), lab.nfs("plain-nfs", 1)]
    all_folders = folders(si)
    label = {vm._moId: f"{vm.parent.name}/{vm.name}" for vm in ours + foreign}

    phases: list[tuple[list[str], int]] = []
    run_phase = destroying.run_phase

    def phase(vc: Any, works: list[Any], progress: Any, opts: Options, concurrency: int, report: Any) -> None:
        phases.append((sorted(w.key for w in works), concurrency))
        run_phase(vc, works, progress, opts, concurrency, report)

    monkeypatch.setattr(destroying, "run_phase", phase)
    events: list[Event] = []
    report = destroy(login_for(site), OURS, DATACENTER, CLUSTER, Options(on_event=events.append))

    assert report.failed == {}
    # desktops go 8 at a time, appliances 4 at a time (each appliance holds its desktops' storage)
    assert phases == [(["d-01", "d-02", "d-03", "d-04"], 8), (["vsa-1"], 4)]
    assert [label[vm._moId] for vm in foreign if not alive(vm)] == [], "a foreign VM is never destroyed"
    assert [label[vm._moId] for vm in ours if alive(vm)] == []
    assert {owner_of(vm).get("arcvsa.owner") for vm in foreign} == {None, THEIRS}
    assert not alive(our_nfs)
    assert all(alive(ds) for ds in foreign_nfs), "a foreign datastore stays mounted"
    assert not alive(rp_ours)
    assert all(alive(p) for p in [rp_busy, rp_nested, *foreign_pools]), "a pool holding foreign objects stays"
    gone = {"deep", "deep/a", "deep/a/b", "deep/a/b/c", "mixed/theirs/ours"}
    assert folders(si) == all_folders - gone

    desktops = {"d-01", "d-02", "d-03", "d-04"}
    mounts = [f"ours-nfs@{h}" for h in hosts]
    assert set(report.done[:4]) == desktops, "desktops first"
    assert report.done[4:] == [*mounts, "vsa-1", "rp-ours", "deep/a/b/c", "deep/a/b", "mixed/theirs/ours",
                               "deep/a", "deep"]  # fmt: skip
    kept = {e.object: e.message for e in events if "kept" in e.message}
    assert kept == {
        "rp-ours-busy": "kept: holds 1 objects arcvsa does not own",
        "rp-ours-nested": "kept: holds 1 objects arcvsa does not own",
        "mixed": "kept: holds 1 objects arcvsa does not own",
        "holds-foreign": "kept: holds 1 objects arcvsa does not own",
    }
    total = 4 + len(hosts) + 1 + 3 + 7  # desktops, mounts, appliance, our pools, our folders
    assert events[0].kind == "info" and events[0].message.startswith(f"{total} objects to remove: ")
    assert {e.total for e in events} == {total}
    assert [e.done for e in events if e.kind == "done"] == list(range(1, total + 1))

    again = destroy(login_for(site), OURS, DATACENTER, CLUSTER, Options(on_event=events.append))
    assert again.failed == {} and again.done == [], "what was kept is still not ours to remove"


def test_an_appliance_whose_pool_cannot_be_released_goes_anyway_and_says_why(
    site: Vcsim, si: vim.ServiceInstance, lab: Site
) -> None:
    vms = [lab.vm(f"rel-{n}", "", "rel") for n in (1, 2, 3)]
    storage = {
        "rel-1": ApplianceStorage("rel-1", CLOSED, PIN, "tank"),
        "rel-2": ApplianceStorage("rel-2", CLOSED, None, "data"),
        "not-a-vm": ApplianceStorage("not-a-vm", CLOSED, PIN, "gone"),
    }
    events: list[Event] = []
    report = destroy(
        login_for(site), "rel", DATACENTER, CLUSTER, Options(on_event=events.append), storage=storage
    )
    assert report.failed == {} and sorted(report.done) == ["rel-1", "rel-2", "rel-3"]
    assert not any(alive(vm) for vm in vms)
    infos = {e.object: e.message for e in events if e.kind == "info" and e.object}
    assert set(infos) == {"rel-1", "rel-2"}, "only an appliance of the plan with an api is released"
    assert infos["rel-1"].startswith(
        "pool tank not released (releasing rel-1's pool needs its admin password)"
    )
    assert infos["rel-2"].startswith(
        "pool data not released (releasing rel-2's pool needs its admin password)"
    )
    assert "wipe them from the Disks page" in infos["rel-1"]
    assert events.index(next(e for e in events if e.object == "rel-1")) < events.index(
        next(e for e in events if e.object == "rel-1" and e.kind == "done")
    ), "released before its VM goes"

    lab.vm("rel-4", "", "rel")
    events.clear()
    report = destroy(login_for(site), "rel", DATACENTER, CLUSTER, Options(password="secret-pw", on_event=events.append),
                     storage={"rel-4": ApplianceStorage("rel-4", CLOSED, PIN, "tank")})  # fmt: skip
    assert report.failed == {} and report.done == ["rel-4"]
    [info] = [e.message for e in events if e.object == "rel-4" and e.kind == "info"]
    assert info.startswith("pool tank not released (") and "needs its admin password" not in info


def test_zfs_clones_that_cannot_be_reached_fail_their_step_only(
    site: Vcsim, si: vim.ServiceInstance, lab: Site
) -> None:
    lab.folder("zc", "zc")
    lab.vm("zc-01", "zc", "zc", source=SOURCE)
    zfs = ZfsClones("zc-vsa", CLOSED, PIN, "tank", "tank/vdi", "arcvsa-nfs")
    events: list[Event] = []
    report = destroy(login_for(site), "zc", DATACENTER, CLUSTER, Options(on_event=events.append), zfs=zfs)
    assert list(report.failed) == ["zfs-clones:zc-vsa"]
    assert "needs zc-vsa's admin password" in report.failed["zfs-clones:zc-vsa"]
    assert report.done == ["zc-01", "zc"], "the desktops and folder go; the datastore's clones are left"
    assert {e.total for e in events} == {3}

    lab.folder("zd", "zd")
    report = destroy(login_for(site), "zd", DATACENTER, CLUSTER, Options(password="secret-pw"), zfs=zfs)
    assert (
        list(report.failed) == ["zfs-clones:zc-vsa"]
        and "admin password" not in report.failed["zfs-clones:zc-vsa"]
    )
    assert report.done == ["zd"]


@pytest.fixture
def horizon(tmp_path: Path) -> Iterator[FakeConnectionServer]:
    with FakeConnectionServer(tmp_path) as server:
        yield server


def test_the_horizon_pool_goes_first_and_one_that_is_not_there_is_no_failure(
    site: Vcsim, si: vim.ServiceInstance, lab: Site, horizon: FakeConnectionServer
) -> None:
    spec = HorizonSpec(endpoint=horizon.endpoint, thumbprint_sha256=horizon.thumbprint, username="admin",
                       domain="lab", vcenter=site.host)  # fmt: skip
    horizon.pools["p-1"] = {"id": "p-1", "name": "hz-pool"}
    horizon.pools["p-2"] = {"id": "p-2", "name": "someone-elses"}
    lab.vm("hz-01", "", "hz", source=SOURCE)
    events: list[Event] = []
    opts = Options(horizon_password=horizon.password, on_event=events.append)
    report = destroy(login_for(site), "hz", DATACENTER, CLUSTER, opts, horizon_pool=(spec, "hz-pool"))
    assert report.failed == {} and report.done == ["horizon:hz-pool", "hz-01"]
    assert list(horizon.pools) == ["p-2"]
    assert ("horizon:hz-pool", "done", "removed from Horizon") in [
        (e.object, e.kind, e.message) for e in events
    ]
    assert {e.total for e in events} == {2}

    with_password = HorizonSpec.model_validate({**spec.model_dump(), "password": horizon.password})
    events.clear()
    report = destroy(login_for(site), "hz", DATACENTER, CLUSTER, Options(on_event=events.append),
                     horizon_pool=(with_password, "hz-pool"))  # fmt: skip
    assert report.failed == {} and report.done == ["horizon:hz-pool"]
    assert ("horizon:hz-pool", "done", "not in Horizon") in [(e.object, e.kind, e.message) for e in events]
    assert list(horizon.pools) == ["p-2"]

    report = destroy(login_for(site), "hz", DATACENTER, CLUSTER, Options(horizon_password="wrong"),
                     horizon_pool=(spec, "someone-elses"))  # fmt: skip
    assert list(report.failed) == ["horizon:someone-elses"] and report.done == []
    assert list(horizon.pools) == ["p-2"]


def test_a_desktop_our_run_made_but_never_marked_is_adopted_and_destroyed_and_no_other(
    site: Vcsim, si: vim.ServiceInstance, lab: Site
) -> None:
    lab.folder("ad", "ad")
    spec = vim.vm.ConfigSpec(name="ad-01", guestId="otherGuest", numCPUs=1, memoryMB=128,
                             files=vim.vm.FileInfo(vmPathName=f"[{DATASTORES[1]}]"))  # fmt: skip
    task = find(si, "vm/ad").CreateVM_Task(spec, lab.cluster.resourcePool)
    made = wait_for_task(si, task, 30)  # our clone whose answer was lost: unmarked, but its task is ours
    other = lab.vm("ad-02", "ad")  # matches the pattern, made by no task of ours
    pool = DesktopPoolSpec(
        name="ad", count=2, naming="ad-##", folder="ad", golden_vm="g", snapshot="s", datastore="d"
    )
    asked = Options(adopt={"ad-01": task._moId, "ad-02": ""})
    report = destroy(login_for(site), "ad", DATACENTER, CLUSTER, asked, pool=pool)
    assert report.failed == {} and report.done == ["ad-01"], "the folder holds ad-02: kept"
    assert not alive(made) and alive(other)


def test_a_datastore_someone_else_s_vm_lives_on_is_not_unmounted_and_destroy_says_so(
    site: Vcsim, si: vim.ServiceInstance, lab: Site
) -> None:
    lab.nfs("busy-nfs", 2, "busy")
    spec = vim.vm.ConfigSpec(name="on-busy", guestId="otherGuest", numCPUs=1, memoryMB=128,
                             files=vim.vm.FileInfo(vmPathName="[busy-nfs]"))  # fmt: skip
    tenant = wait_for_task(si, lab.dc.vmFolder.CreateVM_Task(spec, lab.cluster.resourcePool), 30)
    with pytest.raises(VCenterError, match=r"^busy-nfs: "):
        destroy(login_for(site), "busy", DATACENTER, CLUSTER)
    assert alive(tenant) and "busy-nfs" in {d.name for d in tenant.datastore}


def test_an_appliance_s_pool_is_released_through_its_api_before_its_vm_goes(
    site: Vcsim, si: vim.ServiceInstance, lab: Site, tmp_path: Path
) -> None:
    sessions = len(lab.content.sessionManager.sessionList)
    ours = [lab.vm("rl-1", "", "rl"), lab.vm("rl-2", "", "rl")]
    events: list[Event] = []
    opts = Options(password=release_replay.PASSWORD, on_event=events.append)
    with (
        release_replay.appliance_to_release(tmp_path / "rl-1", "rl-1") as (one, runner),
        replayed_appliances(tmp_path / "rl-2", 1, "fleet", release_replay.PASSWORD) as [(two, _)],
    ):
        storage = {"rl-1": ApplianceStorage("rl-1", one.endpoint, one.thumbprint, "tank"),
                   "rl-2": ApplianceStorage("rl-2", two.endpoint, two.thumbprint, "tank")}  # fmt: skip
        report = destroy(login_for(site), "rl", DATACENTER, CLUSTER, opts, storage=storage)
    assert report.failed == {} and sorted(report.done) == ["rl-1", "rl-2"]
    assert not any(alive(vm) for vm in ours)
    said = {e.object: e.message for e in events if e.kind == "info" and e.object}
    assert said == {"rl-1": "export of tank/vdi removed; pool tank destroyed, its disks freed",
                    "rl-2": "pool tank was gone already"}  # fmt: skip
    assert ["zpool", "destroy", "tank"] in runner.calls
    assert len(lab.content.sessionManager.sessionList) == sessions, "destroy logs out of vCenter"
