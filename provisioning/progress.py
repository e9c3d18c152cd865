"""What a run reports as it goes and when it ends, and how it is told to run: shared by apply and destroy."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pyVmomi import vim, vmodl

from provisioning.health import HealthProbe, wait_healthy
from provisioning.tasks import TRANSIENT, Outcome, Vc, Work, run_bounded

Login = Callable[[], vim.ServiceInstance]


@dataclass
class Event:
    """One step of a run: an object done or failed, a retry, OVA bytes sent, a clone task started."""

    kind: str  # 'info' | 'done' | 'failed' | 'retry' | 'bytes' | 'task'
    object: str | None
    message: str
    done: int
    total: int


@dataclass
class Report:
    """What a run did: objects done and failed (with why), retries, re-logins, peak tasks in flight."""

    done: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    retries: int = 0
    relogins: int = 0
    peak: int = 0
    waits: int = 0
    seconds: float = 0.0

    def add(self, out: Outcome) -> None:
        self.done += out.done
        self.failed.update(out.failed)
        self.retries += out.retries
        self.peak = max(self.peak, out.peak)
        self.waits += out.waits

    def fail(self, key: str, exc: BaseException, progress: Progress, note: str = "") -> None:
        """Record `key` as failed with why ('<type>: <text><note>') and report it.

        A pyVmomi fault's text is its `msg` (its str() is the whole data object).
        """
        text = getattr(exc, "msg", exc) if isinstance(exc, vmodl.MethodFault) else exc
        self.failed[key] = f"{type(exc).__name__}: {text}{note}"
        progress(key, "failed", self.failed[key])


@dataclass
class Options:
    """How apply runs; tests and the bench change these, the api takes the defaults."""

    probe: HealthProbe = wait_healthy
    password: str | None = None  # the appliances' admin password (the api keeps it sealed)
    horizon_password: str | None = None  # the Horizon administrator's (sealed likewise)
    on_event: Callable[[Event], None] = lambda e: None
    cancelled: Callable[[], bool] = lambda: False
    transient: tuple[type[BaseException], ...] = TRANSIENT
    retries: int = 3
    fleet_concurrency: int = 4
    #: {desktop: clone task moid, or "" if a run asked but never heard} from earlier runs: see adoption
    adopt: dict[str, str] = field(default_factory=dict)


class Progress:
    """Counts finished objects and forwards every event with the running count."""

    def __init__(self, opts: Options, total: int) -> None:
        self.opts, self.total, self.done = opts, total, 0

    def __call__(self, obj: str | None, kind: str, message: str = "") -> None:
        """Count and forward one event; 'task' events record clone tasks for provisioning.adoption."""
        if kind in ("done", "failed"):
            self.done += 1
        self.opts.on_event(Event(kind, obj, message, self.done, self.total))


def run_phase(
    vc: Vc, works: list[Work], progress: Progress, opts: Options, concurrency: int, report: Report
) -> None:
    """Run one phase's works at `concurrency` and add the outcome to `report`."""
    if works:
        report.add(
            run_bounded(
                vc,
                works,
                concurrency=concurrency,
                retries=opts.retries,
                transient=opts.transient,
                on_event=lambda o, k, m: progress(o, k, m) if k != "step" else None,
                cancelled=opts.cancelled,
            )
        )


def finish(report: Report, vc: Vc, started: float) -> Report:
    """`report` with the session's re-logins and the run's duration filled in."""
    report.relogins = vc.relogins
    report.seconds = time.monotonic() - started
    return report
