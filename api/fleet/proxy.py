"""The manager's drill-down: an appliance's own storage routes, called through the manager.

The manager's web shows an appliance's storage pages by calling the routes they call on an appliance,
under /api/fleet/{deployment}/appliances/{name}: each call goes to that appliance's api over its pinned
certificate as its admin (the password sealed with its deployment, one session kept: api.fleet.sessions)
and the appliance's answer comes back as it gave it, status and body, so the pages show the appliance's
own refusals word for word. Only the routes of the storage pages pass: an appliance's users, settings,
upgrades and sessions stay its own.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from api.deployments import service as deployments
from api.errors import InvalidInput, NotFound
from api.fleet.sessions import ApplianceSessions
from api.secretbox import SecretBox
from provisioning.appliance_api import ApplianceApi
from provisioning.appliance_errors import ApplianceRequestRefused
from provisioning.health import endpoint_of
from provisioning.plan import DeploymentPlan

#: the appliance routes the storage pages use: these prefixes, or exactly these without the slash
PASSED = ("/api/storage/", "/api/alerts", "/api/tuning/", "/api/calibrations")
#: seconds for a read, and for a change (a pool made on SAN LUNs takes a while)
READ_TIMEOUT, CHANGE_TIMEOUT = 30.0, 300.0


def target(path: str, query: str) -> str:
    """The appliance path for ``path`` (after /api/), refused unless a storage page's route."""
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise NotFound(f"No such appliance route: /api/{path}")
    route = f"/api/{path}"
    if not any(route.startswith(p) or route == p.rstrip("/") for p in PASSED):
        raise NotFound(f"/api/{path} is not one of an appliance's storage routes the manager passes on")
    return f"{route}?{query}" if query else route


def appliance(db: Session, box: SecretBox, deployment_id: int, name: str) -> tuple[str, str, str]:
    """The api address, pinned thumbprint and admin password of the deployment's appliance ``name``, or
    why it cannot be asked."""
    row = deployments.get(db, deployment_id)
    plan = DeploymentPlan.model_validate_json(row.plan_json)
    spec = next((a for a in plan.fleet.appliances if a.name == name), None) if plan.fleet else None
    if spec is None:
        raise NotFound(f"Deployment {row.name} has no appliance {name}")
    endpoint, thumbprint = endpoint_of(spec), spec.api_thumbprint_sha256
    if endpoint is None or thumbprint is None:
        raise InvalidInput(
            f"{name}: its api address or certificate is not known yet; deploy it (apply pins its certificate)"
        )
    password = deployments.secrets_of(row, box).get("admin_password")
    if password is None:
        raise InvalidInput(f"{name}: no admin password is stored with deployment {row.name}")
    return endpoint, thumbprint, password


def forward(
    db: Session,
    box: SecretBox,
    sessions: ApplianceSessions,
    deployment_id: int,
    name: str,
    method: str,
    path: str,
    body: Any = None,
) -> tuple[int, Any]:
    endpoint, thumbprint, password = appliance(db, box, deployment_id, name)
    timeout = READ_TIMEOUT if method == "GET" else CHANGE_TIMEOUT
    api = ApplianceApi(endpoint, thumbprint, name=name, timeout=timeout)
    status, data = sessions.send(api, password, method, path, body)
    if status == 401:
        # Passed on as it is, a 401 would tell the browser that its own session with the manager is gone.
        raise ApplianceRequestRefused(
            f"{name} refused the manager's session even after a fresh login; try again, or check its admin user",
            status=status,
            code="not_authenticated",
        )
    return status, data
