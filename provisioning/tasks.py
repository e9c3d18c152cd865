"""Many vCenter tasks at once: one PropertyCollector filter, bounded concurrency, retries, re-login.

Every task in flight sits in one ListView; one filter on that view reports every task's state through
WaitForUpdatesEx, so a run of 200 clones makes no per-task polling calls. A piece of work is a list of
steps; a step returns a Task (awaited, its result handed to the next step) or a plain value.
When vCenter ends the session mid-run the runner logs in again, re-binds what is in flight to the new
session by managed object id (tasks outlive the session that started them) and carries on.

Cancel: the run stops within a second whatever it waits for (a task, or a step that blocks: an upload,
an appliance's health or api); tasks in flight are left to vCenter, which finishes them. What they make
is owned (marked) or adopted by the next run, as with a run that died.
"""

from __future__ import annotations

import functools
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyVmomi import VmomiSupport, vim, vmodl

from provisioning import cancel, session
from provisioning.appliance_errors import ApplianceApiError
from provisioning.errors import SessionExpired, VCenterError

log = logging.getLogger(__name__)
pcm = vmodl.query.PropertyCollector

MAX_RELOGINS = 5
#: faults worth trying again: a busy object or a host that blinked, not a bad request
TRANSIENT: tuple[type[BaseException], ...] = (
    vim.fault.TaskInProgress,
    vim.fault.ConcurrentAccess,
    vim.fault.FileLocked,
    vmodl.fault.HostCommunication,
)


class Vc:
    """A vCenter session that can be established again; steps reach objects through it by moid."""

    def __init__(self, login: Callable[[], vim.ServiceInstance]) -> None:
        self._login = login
        self.si = login()
        self.content: Any = self.si.RetrieveContent()
        self.relogins = 0
        #: the run's cancel switch (provisioning.cancel): steps pass it to every wait of their own
        self.cancelled: cancel.Switch = cancel.never

    def ref(self, cls: Any, moid: str) -> Any:
        return cls(moid, self.si._stub)

    def rebind(self, value: Any) -> Any:
        """`value` bound to the current session if it is a managed object reference."""
        if isinstance(value, VmomiSupport.ManagedObject):
            return type(value)(value._moId, self.si._stub)
        return value

    def relogin(self) -> None:
        if self.relogins >= MAX_RELOGINS:  # a session that dies at once every time is not expiring: stop
            raise SessionExpired(f"vCenter ended the session {self.relogins} times in one run")
        self.si._stub.DropConnections()
        try:
            self.si = self._login()
        except VCenterError as exc:
            raise SessionExpired(f"vCenter ended the session and logging in again failed: {exc}") from exc
        self.content = self.si.RetrieveContent()
        self.relogins += 1
        log.warning("vCenter session ended; logged in again (%d)", self.relogins)

    def close(self) -> None:
        session.logout(self.si)


class TaskWatcher:
    """One ListView of tasks and one filter on it: wait() returns the tasks that finished."""

    def __init__(self, vc: Vc) -> None:
        self.view = vc.content.viewManager.CreateListView([])
        self.collector = vc.content.propertyCollector.CreatePropertyCollector()
        traverse = pcm.TraversalSpec(name="tasks", path="view", type=vim.view.ListView, skip=False)
        self.collector.CreateFilter(
            pcm.FilterSpec(
                objectSet=[pcm.ObjectSpec(obj=self.view, skip=True, selectSet=[traverse])],
                propSet=[
                    pcm.PropertySpec(type=vim.Task, pathSet=["info.state", "info.error", "info.result"])
                ],
            ),
            partialUpdates=False,
        )
        self.version = ""
        self.seen: dict[str, dict[str, Any]] = {}
        self.waits = 0
        self._adding: list[Any] = []

    def add(self, task: Any) -> None:
        """Watch `task` from the next wait() on (tasks started together join the view in one call)."""
        self._adding.append(task)

    def wait(self, seconds: int = 1) -> list[tuple[str, str, Any, Any]]:
        """(task moid, 'success'|'error', result, fault) of each task that finished since the last call."""
        if self._adding:
            self.view.ModifyListView(add=self._adding)
            self._adding = []
        update = self.collector.WaitForUpdatesEx(self.version, pcm.WaitOptions(maxWaitSeconds=seconds))
        self.waits += 1
        if update is None:
            return []
        self.version = update.version
        finished, gone = [], []
        for fs in update.filterSet:
            for obj in fs.objectSet:
                props = self.seen.setdefault(obj.obj._moId, {})
                props.update({c.name: c.val for c in obj.changeSet})
                if props.get("info.state") in ("success", "error") and obj.obj._moId in self.seen:
                    finished.append(
                        (
                            obj.obj._moId,
                            props["info.state"],
                            props.get("info.result"),
                            props.get("info.error"),
                        )
                    )
                    gone.append(obj.obj)
                    del self.seen[obj.obj._moId]
        if gone:
            self.view.ModifyListView(remove=gone)
        return finished

    def close(self) -> None:
        for call in (self.collector.Destroy, self.view.DestroyView):
            try:
                call()
            except Exception as exc:  # a dead session has nothing left to clean up
                log.debug("watcher cleanup: %r", exc)


Step = Callable[[Vc, Any], Any]


@dataclass
class Work:
    """One object's steps (e.g. clone → mark → reconfigure → power on); `value` is the object in hand."""

    key: str
    steps: Sequence[Step]
    index: int = 0
    value: Any = None
    attempts: int = 0


@dataclass
class Outcome:
    done: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    retries: int = 0
    waits: int = 0  # WaitForUpdatesEx calls: far fewer than tasks when many run at once
    peak: int = 0  # most tasks in flight at once


Event = Callable[[str, str, str], None]  # (object, 'done'|'failed'|'retry'|'step'|'task', message)


def _fault_text(fault: Any) -> str:
    return f"{type(fault).__name__.rsplit('.', 1)[-1]}: {getattr(fault, 'msg', '') or fault}"


def run_bounded(
    vc: Vc,
    works: Sequence[Work],
    *,
    concurrency: int = 8,
    retries: int = 3,
    transient: tuple[type[BaseException], ...] = TRANSIENT,
    on_event: Event | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    backoff: float = 0.5,
) -> Outcome:
    """Run every Work with at most `concurrency` tasks in flight; failures are collected, not raised.

    Raises Cancelled within a second of `cancelled()` turning true (tasks in flight keep running in
    vCenter; a step in progress stops at its next check) and SessionExpired (re-login failed).
    """
    emit = on_event or (lambda *_: None)
    vc.cancelled = cancelled
    out = Outcome()
    pending: deque[Work] = deque(works)
    later: list[tuple[float, Work]] = []
    inflight: dict[str, Work] = {}
    watcher = TaskWatcher(vc)

    def advance(w: Work) -> None:
        """Run `w`'s steps until one starts a task, all are done, or one fails."""
        while w.index < len(w.steps):
            adoptable = getattr(w.steps[w.index], "adoptable", False)
            if adoptable:  # asked for: a run that dies before vCenter answers leaves it to adoption
                emit(w.key, "task", "")
            step = functools.partial(w.steps[w.index], vc, vc.rebind(w.value))
            try:
                result = cancel.call(step, cancelled, stopped)
            except vim.fault.NotAuthenticated:
                raise
            except transient as exc:
                return again(w, _fault_text(exc))
            except SessionExpired:
                raise
            except (
                vmodl.MethodFault,
                VCenterError,
                ApplianceApiError,
            ) as exc:  # this one failed; others go on
                return fail(w, _fault_text(exc))
            if isinstance(result, vim.Task):
                inflight[result._moId] = w
                watcher.add(result)
                out.peak = max(out.peak, len(inflight))
                if adoptable:
                    emit(w.key, "task", result._moId)
                return None
            w.index += 1
            if result is not None:
                w.value = result
            if w.index < len(w.steps):
                emit(w.key, "step", f"step {w.index} of {len(w.steps)}")
        out.done.append(w.key)
        emit(w.key, "done", "")
        return None

    def again(w: Work, why: str) -> None:
        if w.attempts >= retries:
            return fail(w, f"{why} (after {retries} retries)")
        w.attempts += 1
        out.retries += 1
        emit(w.key, "retry", why)
        later.append((time.monotonic() + backoff * 2 ** (w.attempts - 1), w))
        return None

    def fail(w: Work, why: str) -> None:
        out.failed[w.key] = why
        emit(w.key, "failed", why)

    def stopped() -> str:
        said = f"after {len(out.done)} of {len(works)} ({len(out.failed)} failed)"
        if inflight:  # left to vCenter, which finishes them; a resume goes on from what they made
            said += f"; {len(inflight)} vCenter task{'s' if len(inflight) > 1 else ''} left running"
        return said

    try:
        while pending or inflight or later:
            now = time.monotonic()
            ready = [w for t, w in later if t <= now]
            later[:] = [(t, w) for t, w in later if t > now]
            pending.extendleft(reversed(ready))
            cancel.check(cancelled, stopped)
            try:
                while pending and len(inflight) < concurrency:
                    advance(pending.popleft())
                if not inflight:
                    if pending or later:
                        time.sleep(0.05)
                    continue
                for moid, state, result, fault in watcher.wait():
                    w = inflight.pop(moid, None)
                    if w is None:
                        continue
                    if state == "success":
                        # a task without a result (power on, reconfigure) leaves the object in hand
                        w.index += 1
                        if result is not None:
                            w.value = result
                        advance(w)
                    elif isinstance(fault, transient):
                        again(w, _fault_text(fault))
                    else:
                        fail(w, _fault_text(fault))
            except vim.fault.NotAuthenticated:
                watcher.close()
                vc.relogin()
                watcher = TaskWatcher(vc)
                for moid in inflight:
                    watcher.add(vc.ref(vim.Task, moid))
                # work that was between two steps runs that step again in the new session
                stranded = [w for w in works if w.key not in out.done and w.key not in out.failed]
                busy = set(map(id, inflight.values())) | {id(w) for _, w in later} | set(map(id, pending))
                pending.extendleft(w for w in stranded if id(w) not in busy)
        out.waits = watcher.waits
    finally:
        watcher.close()
    return out
