"""Adoption: desktops our clones made after the run that asked for them died, marked ours on the next run.

A clone in flight when its run died (api stopped, session gone) completes in vCenter without us, so its
VM carries no owner mark and would be taken for a foreign VM (NameCollision). Each run records, per
desktop, that it asks for the clone (a 'task' event with no id) and then the clone task's id as vCenter
answers. A VM is adopted only on proof from vCenter that a task of ours made it:
- the recorded task still exists and its result is that very VM; or
- the run died before the answer (no id): vCenter's task history holds a successful task on the entity
  the desktop's task runs on (the golden VM for a clone, the pool's folder for a registered ZFS copy)
  whose result is that very VM.
Anything else stays a NameCollision for a person to look at.
"""

from __future__ import annotations

from typing import Any

from pyVmomi import vim, vmodl

from provisioning import ownership
from provisioning.live import LiveState
from provisioning.plan import DesktopPoolSpec
from provisioning.tasks import Vc

#: how far back the task history is searched (newest first): enough for one pool's run
HISTORY_LIMIT = 5000
_PAGE = 200


def adopt(
    vc: Vc, owner: str, pool: DesktopPoolSpec, live: LiveState, tasks: dict[str, str], *, mark: bool = True
) -> list[str]:
    """Mark as ours the unmarked desktops our own tasks made (in vCenter only when `mark`); their names.

    `tasks`: {desktop: task moid, or '' when the run asked for it but never heard the id}.
    """
    keys: dict[str, int] | None = None
    made: set[str] | None = None  # the history's results, read once and only if needed
    adopted = []
    for name, task_id in tasks.items():
        vm = live.vm(name)
        if vm is None or vm.owner is not None or not pool.matches(name):  # not a desktop of this pool
            continue
        if task_id:
            proven = _made_by(vc, task_id, vm.moid)
        else:
            if made is None:
                made = _made_on(vc, _task_entity(vc, pool, live))
            proven = vm.moid in made
        if not proven:
            continue
        if mark:
            keys = keys or ownership.field_keys(vc.content)
            ownership.mark(
                vc.content, keys, vc.ref(vim.VirtualMachine, vm.moid), owner=owner, source=pool.source
            )
        vm.owner, vm.source = owner, pool.source
        adopted.append(name)
    return adopted


def _made_by(vc: Vc, task_id: str, moid: str) -> bool:
    """Whether vCenter still knows the task `task_id` and it made the VM `moid`."""
    try:
        info = vc.ref(vim.Task, task_id).info
    except vmodl.fault.ManagedObjectNotFound:
        return False  # vCenter forgot the task: cannot prove it was ours
    return bool(info.state == "success" and getattr(info.result, "_moId", None) == moid)


def _task_entity(vc: Vc, pool: DesktopPoolSpec, live: LiveState) -> Any:
    """The object the pool's desktop tasks run on: the golden VM (clone) or the folder (register); or None."""
    if pool.full_copy == "zfs":
        folder = live.folders.get(pool.folder)
        return vc.ref(vim.Folder, folder) if folder else None
    golden = live.vm(pool.golden_vm)
    return vc.ref(vim.VirtualMachine, golden.moid) if golden else None


def _made_on(vc: Vc, entity: Any) -> set[str]:
    """The moids that vCenter's recent successful tasks on `entity` (itself) returned, newest first."""
    if entity is None:
        return set()
    spec = vim.TaskFilterSpec(
        entity=vim.TaskFilterSpec.ByEntity(entity=entity, recursion="self"), state=["success"]
    )
    collector = vc.content.taskManager.CreateCollectorForTasks(spec)
    made: set[str] = set()
    try:
        page = list(collector.latestPage or [])
        collector.ResetCollector()  # reads go back from the latest page
        read = len(page)
        while page and read <= HISTORY_LIMIT:
            made.update(m for t in page if (m := getattr(t.result, "_moId", None)))
            page = list(collector.ReadPreviousTasks(_PAGE) or [])
            read += len(page)
    finally:
        collector.DestroyCollector()
    return made
