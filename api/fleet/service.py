"""Read a deployment as it is now: its objects in vCenter (one retrieval) and each appliance's own api.

Nothing here changes anything: vCenter is only read (provisioning.live), and an appliance is only asked
over its pinned certificate, never trusted on first use here (apply pins it when it first meets it).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from sqlalchemy.orm import Session

from api.deployments import service as deployments
from api.fleet.schemas import ApplianceStatus, DeploymentInventory, OwnedDesktop, ZfsPoolStatus
from api.fleet.sessions import ApplianceSessions
from api.secretbox import SecretBox
from provisioning import session
from provisioning.appliance_api import ApplianceApi
from provisioning.appliance_errors import ApplianceApiError, ApplianceRequestRefused
from provisioning.diff import teardown
from provisioning.health import endpoint_of
from provisioning.live import read_state
from provisioning.plan import ApplianceSpec, DeploymentPlan

#: seconds allowed to each appliance for all its calls (health, login, pools)
PROBE_TIMEOUT = 5.0


def inventory(db: Session, box: SecretBox, deployment_id: int, timeout: float) -> DeploymentInventory:
    row = deployments.get(db, deployment_id)
    plan = DeploymentPlan.model_validate_json(row.plan_json)
    si = deployments.vcenter_login(db, box, row, timeout)()
    try:
        live = read_state(si, plan.datacenter, plan.cluster)
    finally:
        session.logout(si)
    owned = sorted(
        (vm for vms in live.vms.values() for vm in vms if vm.owner == plan.name and vm.source is not None),
        key=lambda vm: vm.name,
    )
    wanted = set(plan.pool.desktop_names()) if plan.pool else set()
    present = [vm for vm in owned if vm.name in wanted]
    source = plan.pool.source if plan.pool else None
    return DeploymentInventory(
        planned=len(wanted),
        present=len(present),
        current=sum(1 for vm in present if vm.source == source),
        powered_on=sum(1 for vm in present if vm.power_state == "poweredOn"),
        desktops=[OwnedDesktop(name=vm.name, power_state=vm.power_state, source=vm.source) for vm in owned],
        teardown=teardown(plan.name, live).actions,
    )


def appliances(
    db: Session, box: SecretBox, sessions: ApplianceSessions, deployment_id: int
) -> list[ApplianceStatus]:
    row = deployments.get(db, deployment_id)
    plan = DeploymentPlan.model_validate_json(row.plan_json)
    if plan.fleet is None:
        return []
    password = deployments.secrets_of(row, box).get("admin_password")
    pool = plan.nfs.dataset()[0] if plan.nfs else None
    specs = plan.fleet.appliances
    pool_of_threads = ThreadPoolExecutor(max_workers=min(16, len(specs)), thread_name_prefix="probe")
    try:
        futures = [
            pool_of_threads.submit(probe, spec, password, pool, sessions, PROBE_TIMEOUT) for spec in specs
        ]
        deadline = time.monotonic() + PROBE_TIMEOUT * 4  # health, a login, the pool (and a login again)
        out = []
        for spec, future in zip(specs, futures, strict=True):
            try:
                out.append(future.result(timeout=max(0.0, deadline - time.monotonic())))
            except FutureTimeout:
                out.append(_status(spec, alerts=[f"no answer within {PROBE_TIMEOUT * 4:g} s"]))
        return out
    finally:
        pool_of_threads.shutdown(wait=False, cancel_futures=True)


def _status(spec: ApplianceSpec, **values: object) -> ApplianceStatus:
    base: dict[str, object] = {
        "name": spec.name, "host": spec.host, "address": endpoint_of(spec), "reachable": False,
        "healthy": False, "version": None, "pools": None, "alerts": [], "seconds": 0.0,
    }  # fmt: skip
    return ApplianceStatus.model_validate({**base, **values})


def probe(
    spec: ApplianceSpec, password: str | None, pool: str | None, sessions: ApplianceSessions, timeout: float
) -> ApplianceStatus:
    """Ask one appliance's api: /api/health, then (as its admin, the manager's kept session) its pool(s)."""
    started = time.monotonic()
    endpoint = endpoint_of(spec)
    if endpoint is None:
        return _status(spec, alerts=["the plan gives no api address (api_endpoint or ipv4_address)"])
    if spec.api_thumbprint_sha256 is None:
        return _status(spec, alerts=["its certificate is not pinned yet: apply pins it on first contact"])
    api = ApplianceApi(endpoint, spec.api_thumbprint_sha256, name=spec.name, timeout=timeout)
    alerts: list[str] = []
    try:
        health = api.health()
    except ApplianceApiError as exc:
        return _status(spec, alerts=[f"unreachable: {exc}"], seconds=time.monotonic() - started)
    if health.get("status") != "ok":
        alerts.append(f"its api reports status {health.get('status')!r}")
    pools: list[ZfsPoolStatus] | None = None
    if password is None:
        alerts.append("no admin password stored with the plan: pool state unknown")
    else:
        try:
            pools = _pools(api, password, pool, sessions)
        except ApplianceApiError as exc:
            alerts.append(f"pool state unreadable: {exc}")
    for p in pools or []:
        if p.state != "ONLINE":
            alerts.append(f"pool {p.name} is {p.state}")
        if p.data_errors or p.device_errors:
            alerts.append(f"pool {p.name}: {p.data_errors} data errors, {p.device_errors} device errors")
    return _status(
        spec, reachable=True, healthy=not alerts, version=health.get("version"), pools=pools,
        alerts=alerts, seconds=time.monotonic() - started,
    )  # fmt: skip


def _pools(
    api: ApplianceApi, password: str, pool: str | None, sessions: ApplianceSessions
) -> list[ZfsPoolStatus]:
    if pool is None:
        answers = list(sessions.read(api, password, "/api/storage/pools"))
    else:
        try:
            answers = [sessions.read(api, password, f"/api/storage/pools/{pool}")]
        except ApplianceRequestRefused as exc:
            # only the storage's own 404 means no such pool: a machine without storage answers 404 too
            if exc.status != 404 or exc.code != "not_found":
                raise
            return [ZfsPoolStatus(name=pool, state="MISSING", data_errors=0, device_errors=0)]
    return [
        ZfsPoolStatus(
            name=str(p["name"]),
            state=str(p["state"]),
            data_errors=int(p.get("error_count") or 0),
            device_errors=sum(
                int(v.get(k) or 0)
                for v in p.get("vdevs") or []
                for k in ("read_errors", "write_errors", "checksum_errors")
            ),
        )
        for p in answers
    ]
