"""A deployment's rolling upgrade as a job (kind 'upgrade'): the bundle kept on the manager, given to
each appliance in turn by provisioning.rolling, and its outcome in the job's words."""

from __future__ import annotations

from collections.abc import Callable

from api.fleet import bundle
from api.jobs.runner import Outcome
from api.settings import Settings
from provisioning.plan import DeploymentPlan
from provisioning.rolling import Rolling, Target, roll

#: seconds from an appliance's apply to healthy on the new release (a migration on a slow CPU included)
UPGRADE_S = 1800.0
#: seconds between looks at an appliance while it upgrades
INTERVAL_S = 3.0


def run(
    settings: Settings,
    plan: DeploymentPlan,
    password: str,
    record: Callable[[str, str | None, str, int, int], None],
    cancelled: Callable[[], bool],
) -> Outcome:
    manifest = bundle.staged(settings)
    if manifest is None:
        return Outcome(
            "failed", "the upgrade bundle kept on the manager is gone: upload it again, then resume", {}
        )
    appliances = list(plan.fleet.appliances) if plan.fleet else []
    how = Rolling(
        password=password, say=record, cancelled=cancelled, upgrade_s=UPGRADE_S, interval_s=INTERVAL_S
    )
    steps = roll(appliances, bundle.path_of(settings), Target(manifest.version, manifest.release), how)
    upgraded = [s for s in steps if s.state == "upgraded"]
    current = [s for s in steps if s.state == "current"]
    failed = {s.appliance: s.reason for s in steps if s.state == "failed"}
    waiting = [s.appliance for s in steps if s.state == "not started"]
    words = f"{len(upgraded)} upgraded to {manifest.version}"
    if current:
        words += f", {len(current)} already on it or newer"
    if failed:
        [(name, why)] = failed.items()
        words += f"; stopped at {name}: {why}"
        if waiting:
            words += f"; {', '.join(waiting)} not started, still on the release they run"
        return Outcome("failed", words, failed)
    return Outcome("succeeded", words, {})
