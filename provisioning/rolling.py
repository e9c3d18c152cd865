"""A rolling upgrade of a deployment's appliances with one bundle: one at a time, each back and healthy on
the new release before the next goes down, stopping at the first that is not.

Each appliance is upgraded by its own api, as its admin over its pinned certificate. First the bundle is
staged on every appliance in the plan's order (PUT /api/upgrades/bundle: each checks the signature, the
payload hash and that the release fits its base system), so a bundle one of them refuses stops the roll
before anything was applied anywhere. Then, one appliance at a time: apply (POST /api/upgrades/apply),
watch its upgrader until it ends (GET /api/upgrades; the api is away while it restarts), and judge it
healthy only when its api answers as the new release, its upgrade is done (not rolled back), every pool
is ONLINE and every NFS export it serves is active again: the datastores its ESXi host mounts are back
before the next appliance restarts its api. NFS and iSCSI themselves are never stopped by an upgrade.

The first appliance that fails stops the roll: it is reported with why (an upgrade that did not come up
has already been rolled back there by its own upgrader), the appliances after it stay on the release they
run, and the bundle staged on them is discarded. An appliance that already runs the bundle's release, or
a newer one, is left as it is.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from provisioning import cancel
from provisioning.appliance_api import ApplianceApi
from provisioning.appliance_errors import ApplianceApiError, ApplianceUnreachable
from provisioning.health import endpoint_of
from provisioning.plan import ApplianceSpec

#: the appliance upgrader's states while it works (api/upgrades/schemas.py's RUNNING)
RUNNING = frozenset({"queued", "verifying", "installing", "switching", "rolling_back"})

State = Literal["upgraded", "current", "failed", "not started"]


class NotHealthy(ApplianceApiError):
    """An appliance did not come back healthy on the new release within the time allowed."""

    field = "fleet.appliances"


@dataclass(frozen=True)
class Target:
    """The bundle's release: its version and the number that orders releases."""

    version: str
    release: int


@dataclass
class Step:
    """What the roll did with one appliance."""

    appliance: str
    state: State
    before: str | None = None  # the release it ran when the roll reached it
    after: str | None = None  # the release it runs now, as far as the roll saw
    reason: str = ""


#: (event kind, appliance or None, words, appliances done, appliances in all)
Say = Callable[[str, str | None, str, int, int], None]


@dataclass
class Rolling:
    """How a roll runs; tests shorten the waits."""

    password: str
    say: Say
    cancelled: cancel.Switch = cancel.never
    request_s: float = 30.0  # one request
    upload_s: float = 900.0  # the upload, which the appliance verifies before it answers
    upgrade_s: float = 1800.0  # from apply to healthy on the new release
    interval_s: float = 3.0
    done: int = 0  # appliances the roll is through with
    total: int = 0

    def tell(self, kind: str, appliance: str | None, words: str) -> None:
        self.say(kind, appliance, words, self.done, self.total)


def roll(appliances: Sequence[ApplianceSpec], bundle: Path, target: Target, how: Rolling) -> list[Step]:
    """Upgrade ``appliances`` in order; every one of them has a Step in the result, in that order."""
    how.done, how.total = 0, len(appliances)
    apis: dict[str, ApplianceApi] = {}
    steps: dict[str, Step] = {}
    # Stage everywhere first: a bundle one appliance refuses stops the roll before any is applied.
    for spec in appliances:
        try:
            api = _logged_in(spec, how)
            step = _stage(api, spec, bundle, target, how)
        except ApplianceApiError as exc:
            failed = Step(spec.name, "failed", reason=f"staging the bundle: {_words(exc, spec.name)}")
            return _stopped(appliances, {**steps, spec.name: failed}, apis, how)
        apis[spec.name], steps[spec.name] = api, step
    for done, spec in enumerate(appliances):
        step = steps[spec.name]
        if step.state == "not started":
            try:
                step = _upgrade(apis[spec.name], spec, target, step, how)
            except ApplianceApiError as exc:
                steps[spec.name] = Step(
                    spec.name, "failed", before=step.before, after=_running(apis[spec.name]),
                    reason=_words(exc, spec.name),
                )  # fmt: skip
                return _stopped(appliances, steps, apis, how)
            steps[spec.name] = step
        how.done = done + 1
        how.tell("done", spec.name, _summary(steps[spec.name]))
    return [steps[s.name] for s in appliances]


def _logged_in(spec: ApplianceSpec, how: Rolling) -> ApplianceApi:
    endpoint = endpoint_of(spec)
    if endpoint is None or spec.api_thumbprint_sha256 is None:
        raise ApplianceUnreachable(f"{spec.name}: not deployed yet (no api address or pinned certificate)")
    api = ApplianceApi(
        endpoint, spec.api_thumbprint_sha256, name=spec.name, timeout=how.request_s, cancelled=how.cancelled
    )
    api.login(how.password)
    return api


def _stage(api: ApplianceApi, spec: ApplianceSpec, bundle: Path, target: Target, how: Rolling) -> Step:
    """Put the bundle on the appliance unless it runs that release or a newer one already."""
    status = api.call("GET", "/api/upgrades")
    current = status.get("current") or {}
    before = current.get("version")
    if current and int(current.get("release", -1)) >= target.release:
        words = "already runs it" if before == target.version else f"runs {before}, newer than the bundle"
        how.tell("info", spec.name, f"{target.version}: {words}; left as it is")
        return Step(spec.name, "current", before=before, after=before, reason=words)
    last = status.get("last") or {}
    if last.get("state") in RUNNING:
        raise ApplianceApiError(
            f"{spec.name}: an upgrade to {last.get('to_version')} is running there already"
        )
    how.tell("info", spec.name, f"staging {target.version} ({bundle.stat().st_size >> 20} MiB) on it")
    api.timeout = how.upload_s
    try:
        staged = api.upload("PUT", "/api/upgrades/bundle", bundle)
    finally:
        api.timeout = how.request_s
    if staged.get("version") != target.version:
        raise ApplianceApiError(f"{spec.name}: it staged {staged.get('version')}, not {target.version}")
    return Step(spec.name, "not started", before=before)


def _upgrade(api: ApplianceApi, spec: ApplianceSpec, target: Target, step: Step, how: Rolling) -> Step:
    how.tell("info", spec.name, f"upgrading from {step.before} to {target.version}")
    api.call("POST", "/api/upgrades/apply")
    deadline = time.monotonic() + how.upgrade_s
    last = _watch(api, spec, target, deadline, how)
    if last.get("state") != "done":
        error = last.get("error") or "no reason given"
        raise ApplianceApiError(f"{spec.name}: its upgrade ended {last.get('state')}: {error}")
    _wait_healthy(api, spec, target, deadline, how)
    return Step(spec.name, "upgraded", before=step.before, after=target.version)


def _watch(
    api: ApplianceApi, spec: ApplianceSpec, target: Target, deadline: float, how: Rolling
) -> dict[str, Any]:
    """The appliance's last upgrade run once it has ended; its api is away while it restarts."""
    seen = ""
    while True:
        status = _status(api, how)
        last = (status or {}).get("last") or {}
        if (
            status is not None
            and last.get("to_version") == target.version
            and last.get("state") not in RUNNING
        ):
            return dict(last)
        state = str(last.get("state") or "restarting") if status is not None else "restarting its api"
        if state != seen:
            how.tell("info", spec.name, state.replace("_", " "))
            seen = state
        if time.monotonic() > deadline:
            raise NotHealthy(f"{spec.name}: its upgrade had not ended after {how.upgrade_s:.0f} s ({state})")
        cancel.sleep(how.interval_s, how.cancelled, f"waiting for {spec.name}'s upgrade")


def _status(api: ApplianceApi, how: Rolling) -> dict[str, Any] | None:
    """GET /api/upgrades, or None while the api does not answer (restarting) or is not serving yet."""
    try:
        status, data = api.exchange_once("GET", "/api/upgrades")
        if status == 401:  # a restored database, or sessions ended by the restart
            api.login(how.password)
            status, data = api.exchange_once("GET", "/api/upgrades")
    except ApplianceUnreachable:
        return None
    return dict(data) if status == 200 and isinstance(data, dict) else None


def _wait_healthy(
    api: ApplianceApi, spec: ApplianceSpec, target: Target, deadline: float, how: Rolling
) -> None:
    """Until its api answers as the new release, every pool is ONLINE and every export is active."""
    why = ""
    while True:
        why = _unhealthy(api, target)
        if not why:
            return
        if time.monotonic() > deadline:
            raise NotHealthy(
                f"{spec.name}: not healthy on {target.version} after {how.upgrade_s:.0f} s: {why}"
            )
        cancel.sleep(how.interval_s, how.cancelled, f"waiting for {spec.name} to be healthy")


def _unhealthy(api: ApplianceApi, target: Target) -> str:
    """Why the appliance is not healthy on ``target`` yet, or '' when it is."""
    try:
        health = api.call("GET", "/api/health")
        if health.get("version") != target.version or health.get("status") != "ok":
            return f"its api answers {health.get('status')} as {health.get('version')}"
        sick = [p["name"] for p in api.call("GET", "/api/storage/pools") if p.get("state") != "ONLINE"]
        if sick:
            return f"pool {', '.join(sick)} not ONLINE"
        idle = [e["dataset"] for e in api.call("GET", "/api/storage/nfs")["exports"] if not e.get("active")]
        if idle:
            return f"export of {', '.join(idle)} not active"
    except ApplianceApiError as exc:
        if exc.status == 503:  # its state not published yet after the restart
            return "its storage state is not published yet"
        if isinstance(exc, ApplianceUnreachable):
            return "its api does not answer"
        raise
    return ""


def _running(api: ApplianceApi) -> str | None:
    try:
        return str(api.call("GET", "/api/health").get("version"))
    except ApplianceApiError:
        return None


def _stopped(
    appliances: Sequence[ApplianceSpec],
    steps: dict[str, Step],
    apis: dict[str, ApplianceApi],
    how: Rolling,
) -> list[Step]:
    """Every appliance's step once the roll stopped: the failed one says why, the rest not started."""
    failed = next(s for s in steps.values() if s.state == "failed")
    how.tell("failed", failed.appliance, failed.reason)
    out = []
    for spec in appliances:
        step = steps.get(spec.name) or Step(spec.name, "not started")
        if step.state == "not started":
            step.reason = f"the roll stopped at {failed.appliance}; it stays on the release it runs"
            _discard(apis.get(spec.name))
            how.tell("info", spec.name, f"not started: {step.reason}")
        out.append(step)
    return out


def _discard(api: ApplianceApi | None) -> None:
    """Take back a bundle staged on an appliance the roll did not reach; best effort."""
    if api is None:
        return
    with contextlib.suppress(ApplianceApiError):
        api.exchange_once("DELETE", "/api/upgrades/bundle")


def _words(exc: ApplianceApiError, name: str) -> str:
    return str(exc).removeprefix(f"{name}: ")


def _summary(step: Step) -> str:
    if step.state == "upgraded":
        return f"upgraded from {step.before} to {step.after}, healthy"
    return f"left on {step.before}: {step.reason}"
