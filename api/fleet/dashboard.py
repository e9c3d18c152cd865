"""The fleet dashboard: every appliance of every deployment read at once, each within its own budget.

Each appliance is asked over its pinned certificate for its health, its metric series over the window,
its alerts and its pools' space, all within TIMEOUT seconds from its first call: a dead appliance fails
at connect, a slow one is given up on at its budget, and neither holds up the others, which are read by
other threads meanwhile. Nothing here changes anything on an appliance.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.deployments import service as deployments
from api.deployments.table import Deployment
from api.fleet import figures
from api.fleet.schemas import (
    FleetAppliance,
    FleetDeployment,
    FleetFigures,
    FleetPoint,
    FleetSeriesPoint,
    FleetView,
    PoolSpace,
)
from api.fleet.sessions import ApplianceSessions
from api.secretbox import SecretBox
from api.vcenters.table import VCenter
from provisioning.appliance_api import ApplianceApi
from provisioning.appliance_errors import (
    ApplianceApiError,
    ApplianceCertificateMismatch,
    ApplianceRequestRefused,
    ApplianceUnreachable,
)
from provisioning.errors import Cancelled
from provisioning.health import endpoint_of
from provisioning.plan import ApplianceSpec, DeploymentPlan

#: seconds each appliance has for all its reads
TIMEOUT = 5.0
#: appliances read at once; a larger fleet waits for a free thread
WORKERS = 32
#: the appliances' sampling interval (the api's default): the narrowest bucket of a chart
INTERVAL = 10.0


@dataclass(frozen=True)
class Fleet:
    """A deployment with appliances, and the admin password stored (sealed) with it, if one is."""

    row: Deployment
    plan: DeploymentPlan
    appliances: list[ApplianceSpec]
    password: str | None


def stored(db: Session, box: SecretBox) -> list[Fleet]:
    """Every deployment that has appliances, in the deployments' order."""
    out = []
    for row in deployments.list_all(db):
        plan = DeploymentPlan.model_validate_json(row.plan_json)
        if plan.fleet is not None and plan.fleet.appliances:
            password = deployments.secrets_of(row, box).get("admin_password")
            out.append(Fleet(row, plan, list(plan.fleet.appliances), password))
    return out


def read_fleets(fleets: list[Fleet], sessions: ApplianceSessions, reads: Reads) -> list[list[dict[str, Any]]]:
    """Each fleet's appliances' readings, all appliances read at once."""
    specs = [(spec, f.password) for f in fleets for spec in f.appliances]
    read = _read_all(specs, sessions, reads)
    out, at = [], 0
    for f in fleets:
        out.append(read[at : at + len(f.appliances)])
        at += len(f.appliances)
    return out


def view(db: Session, box: SecretBox, sessions: ApplianceSessions, minutes: int) -> FleetView:
    started = time.monotonic()
    vcenters = {v.id: v.name for v in db.scalars(select(VCenter))}
    fleets = stored(db, box)
    width = figures.bucket_seconds(minutes, INTERVAL)
    out = []
    for fleet, readings in zip(fleets, read_fleets(fleets, sessions, figures_of(minutes)), strict=True):
        row, plan = fleet.row, fleet.plan
        found = [_shaped(raw, width) for raw in readings]
        out.append(
            FleetDeployment(
                id=row.id,
                name=row.name,
                vcenter=vcenters.get(row.vcenter_id, "?"),
                datacenter=plan.datacenter,
                cluster=plan.cluster,
                horizon=str(plan.horizon.endpoint) if plan.horizon else None,
                appliances=found,
            )
        )
    answered = [a for d in out for a in d.appliances if a.figures is not None]
    return FleetView(
        minutes=minutes,
        bucket_seconds=width,
        timeout_seconds=TIMEOUT,
        deployments=out,
        figures=FleetFigures.model_validate(
            figures.combine([a.figures.model_dump() for a in answered if a.figures], summed=True)
        ),
        series=[
            FleetSeriesPoint.model_validate(p)
            for p in figures.fleet_series([p.model_dump() for p in a.series] for a in answered)
        ],
        seconds=round(time.monotonic() - started, 3),
    )


#: what is read of one appliance, given a GET as its admin within its budget → the reading's fields
Reads = Callable[[Callable[[str], Any]], dict[str, Any]]


def _read_all(
    specs: list[tuple[ApplianceSpec, str | None]], sessions: ApplianceSessions, reads: Reads
) -> list[dict[str, Any]]:
    """Every appliance's raw reading, in ``specs``' order; one not done by its deadline is 'slow'."""
    if not specs:
        return []
    pool = ThreadPoolExecutor(max_workers=min(WORKERS, len(specs)), thread_name_prefix="fleet")
    try:
        futures = [pool.submit(read_one, spec, password, sessions, reads) for spec, password in specs]
        rounds = -(-len(specs) // WORKERS)  # a thread reads at most this many in turn
        deadline = time.monotonic() + TIMEOUT * rounds + 1.0
        out = []
        for (spec, _), future in zip(specs, futures, strict=True):
            try:
                out.append(future.result(timeout=max(0.0, deadline - time.monotonic())))
            except FutureTimeout:
                out.append(_failed(spec, "slow", f"no answer within {TIMEOUT:g} s", TIMEOUT))
        return out
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def figures_of(minutes: int) -> Reads:
    """The dashboard's reads: the series over the window, the latest sample, alerts and pool space."""

    def reads(read: Callable[[str], Any]) -> dict[str, Any]:
        series = read(f"/api/storage/metrics?minutes={minutes}")
        summary = read("/api/storage/metrics/summary")
        alerts = read("/api/alerts")
        try:
            space = read("/api/storage/space")
        except ApplianceRequestRefused as exc:
            if exc.status not in (404, 502, 503):
                raise
            space = None  # a release without the route, or no pool state to read yet
        return {
            "points": list(series.get("points") or []),
            "backend": summary.get("backend"),
            "alerts": list(alerts or []),
            "space": space,
        }

    return reads


def read_one(
    spec: ApplianceSpec, password: str | None, sessions: ApplianceSessions, reads: Reads
) -> dict[str, Any]:
    """One appliance's health and ``reads``, or the state and reason it could not be read."""
    started = time.monotonic()
    deadline = started + TIMEOUT
    endpoint = endpoint_of(spec)

    def took() -> float:
        return round(time.monotonic() - started, 3)

    if endpoint is None:
        return _failed(spec, "unreachable", "the plan gives no api address (api_endpoint or ipv4_address)", 0)
    if spec.api_thumbprint_sha256 is None:
        return _failed(
            spec, "unpinned", "its certificate is not pinned yet: apply pins it on first contact", 0
        )
    api = ApplianceApi(
        endpoint,
        spec.api_thumbprint_sha256,
        name=spec.name,
        timeout=TIMEOUT,
        cancelled=lambda: time.monotonic() > deadline,
    )

    def get(path: str, authorised: Callable[[str], Any] | None = None) -> Any:
        api.timeout = max(0.1, deadline - time.monotonic())  # what is left of the budget, per call
        return authorised(path) if authorised else api.call("GET", path)

    def as_admin(path: str) -> Any:
        return sessions.read(api, password or "", path)

    try:
        health = get("/api/health")
        if password is None:
            return _failed(
                spec,
                "refused",
                "no admin password stored with the deployment",
                took(),
                version=health.get("version"),
            )
        found = reads(lambda path: get(path, as_admin))
    except Cancelled:
        return _failed(spec, "slow", f"no answer within {TIMEOUT:g} s", took())
    except ApplianceCertificateMismatch as exc:
        return _failed(spec, "certificate", str(exc), took())
    except ApplianceUnreachable as exc:
        late = time.monotonic() >= deadline - 0.05
        return _failed(
            spec,
            "slow" if late else "unreachable",
            f"no answer within {TIMEOUT:g} s" if late else str(exc),
            took(),
        )
    except ApplianceApiError as exc:
        return _failed(spec, "refused", str(exc), took())
    return {
        "spec": spec,
        "state": "ok",
        "reason": None,
        "seconds": took(),
        "version": health.get("version"),
        "status": health.get("status"),
        **found,
    }


def _failed(spec: ApplianceSpec, state: str, reason: str, seconds: float, **extra: Any) -> dict[str, Any]:
    return {"spec": spec, "state": state, "reason": reason, "seconds": seconds, **extra}


def _shaped(raw: dict[str, Any], width: int) -> FleetAppliance:
    spec: ApplianceSpec = raw["spec"]
    points: list[dict[str, Any]] = raw.get("points") or []
    pools = [
        PoolSpace(
            name=str(p["name"]),
            size=int(p.get("size") or 0),
            allocated=int(p.get("allocated") or 0),
            health=str(p.get("health") or "UNKNOWN"),
        )
        for p in raw.get("space") or []
    ]
    alerts = raw.get("alerts") or []
    ok = raw["state"] == "ok"
    return FleetAppliance(
        name=spec.name,
        host=spec.host,
        address=endpoint_of(spec),
        state=raw["state"],
        reason=raw["reason"],
        healthy=ok and raw.get("status") == "ok" and not alerts and all(p.health == "ONLINE" for p in pools),
        version=raw.get("version"),
        backend=raw.get("backend"),
        figures=FleetFigures.model_validate(figures.combine(points, summed=False)) if ok else None,
        series=[FleetPoint.model_validate(p) for p in figures.buckets(points, width)],
        pools=pools,
        used_bytes=sum(p.allocated for p in pools) if raw.get("space") is not None else None,
        size_bytes=sum(p.size for p in pools) if raw.get("space") is not None else None,
        alerts=alerts,
        seconds=raw["seconds"],
    )
