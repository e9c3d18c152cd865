"""The FastAPI application: wiring only (routes, services and errors live in their own modules)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request, Response
from fastapi.responses import FileResponse
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api import VERSION, db, errors, health, web_assets
from api.alerts import routes as alert_routes
from api.appliance import routes as appliance_routes
from api.appliance import service as appliance_service
from api.auth import routes as auth_routes
from api.auth import service as auth_service
from api.auth.throttle import LoginThrottle
from api.backup import routes as backup_routes
from api.calibration import routes as calibration_routes
from api.calibration import service as calibration_service
from api.certificate import routes as certificate_routes
from api.deployments import routes as deployment_routes
from api.deployments import service as deployment_service
from api.deps import integers_in_range, require_principal
from api.exports import routes as export_routes
from api.exports import service as export_service
from api.firewall import routes as firewall_routes
from api.fleet import routes as fleet_routes
from api.fleet.alerts import FleetAlerts
from api.fleet.sessions import ApplianceSessions
from api.iscsi import routes as iscsi_routes
from api.jobs import routes as job_routes
from api.metrics import routes as metric_routes
from api.notify import checker as notify_checker
from api.notify import routes as notify_routes
from api.prometheus import routes as prometheus_routes
from api.prometheus.auth import require_scraper
from api.secretbox import SecretBox
from api.sections import BACKUP_SECTIONS
from api.settings import Settings
from api.state import poll as state_poll
from api.state.snapshot import Store
from api.storage import routes as storage_routes
from api.support import routes as support_routes
from api.tuning import routes as tuning_routes
from api.upgrades import routes as upgrade_routes
from api.users import routes as user_routes
from api.vcenters import routes as vcenter_routes
from api.wizard import routes as wizard_routes
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway, SubprocessRunner

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Strict-Transport-Security": "max-age=31536000",
    "Content-Security-Policy": (
        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "font-src 'self' data:; frame-ancestors 'none'"
    ),
}


class _SecurityHeaders:
    """The security headers on every answer, no-store on the api's. A plain ASGI middleware: Starlette's
    BaseHTTPMiddleware runs each request through an extra task and body stream, which the appliance (a
    small VM, under emulation in the lab) pays for on every call."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope["path"].startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for k, v in SECURITY_HEADERS.items():
                    headers.setdefault(k, v)
                if api:
                    headers.setdefault("Cache-Control", "no-store")
            await send(message)

        await self.app(scope, receive, send_with_headers)


# Every router behind the login check, what the dashboards poll first: a request is matched against
# each router in turn, route by route, until one takes it. No request two routers could both take
# (tests/unit/test_api_routers.py), so the order changes only how soon one does.
GUARDED = (
    appliance_routes.router,
    alert_routes.router,
    metric_routes.router,
    export_routes.router,
    storage_routes.router,
    auth_routes.router,
    vcenter_routes.router,
    prometheus_routes.router,
    iscsi_routes.router,
    tuning_routes.router,
    calibration_routes.router,
    deployment_routes.router,
    wizard_routes.router,
    fleet_routes.router,
    fleet_routes.fleet_router,
    job_routes.router,
    user_routes.router,
    certificate_routes.router,
    notify_routes.router,
    firewall_routes.router,
    support_routes.router,
    backup_routes.router,
    upgrade_routes.router,
)
# Open to everyone but the scraper's, which takes its own token.
OPEN = (health.router, auth_routes.public)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The api."""
    settings = settings or Settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = db.make_engine(settings.database_url)
    db.migrate(engine)
    factory = db.session_factory(engine)
    with factory() as s:
        password = settings.admin_password.get_secret_value() if settings.admin_password else None
        auth_service.ensure_admin(
            s, settings.admin_user, password, appliance_service.admin_password_hash(settings)
        )

    # The schema is served behind login like every route (below); no CDN-backed docs pages.
    app = FastAPI(
        title="arcvsa",
        version=VERSION,
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        lifespan=notify_checker.lifespan,  # checks alerts while serving (the sampler is a service of its own)
    )
    app.state.settings = settings
    app.state.sessionmaker = factory
    app.state.secretbox = SecretBox(settings.key_file)
    app.state.throttle = LoginThrottle(settings.login_attempts, settings.login_window_seconds)
    # The one way to the storage tools (zpool, zfs, ...); tests replace it with recorded outputs.
    app.state.storage_gateway = Gateway(SubprocessRunner())
    app.state.storage_files = LocalFiles(Path("/"))
    # What every read answers from: the appliance's state as last observed (api.state).
    app.state.snapshot = Store(settings.state_file)
    app.state.jobs = deployment_service.job_runner(app.state)
    app.state.calibrations = calibration_service.Runner(factory)
    app.state.backup_sections = BACKUP_SECTIONS
    # The manager's bearer tokens with its appliances (the fleet dashboard polls them).
    app.state.appliance_sessions = ApplianceSessions()
    # On the manager, every appliance's alerts, read at most once per interval for all who ask.
    app.state.fleet_alerts = FleetAlerts(factory, app.state.secretbox, app.state.appliance_sessions)
    errors.install(app)
    app.add_middleware(_SecurityHeaders)

    for router in OPEN:
        app.include_router(router)
    # Everything else sits behind the login check, declared once here.
    guarded = [Depends(require_principal), Depends(integers_in_range)]
    for router in GUARDED:
        app.include_router(router, dependencies=guarded)
    # A scraper's token opens the exposition and nothing else (api.prometheus.auth).
    app.include_router(
        prometheus_routes.scrape, dependencies=[Depends(require_scraper), Depends(integers_in_range)]
    )

    @app.get("/api/openapi.json", include_in_schema=False, dependencies=guarded)
    def openapi() -> dict[str, Any]:
        return app.openapi()

    if settings.web_dist:
        _serve_web(app, settings.web_dist)
    app.state.jobs.resume_interrupted()  # jobs a stopped api left running go on
    # With a control service, it does these three as it starts (api.metrics.sampler): the calibrations
    # are its runs, the NFS server and the published state its tools'.
    if settings.control_socket is None:
        calibration_service.mark_interrupted(factory)  # a cut load is never rerun on its own
        app.state.nfs_start = export_service.start(app.state)  # on an appliance: serve the stored exports
        app.state.state_start = state_poll.start(app.state)  # on an appliance: this boot's first snapshot
    return app


def _serve_web(app: FastAPI, dist: Path) -> None:
    """Serve the built single-page app; unknown paths get index.html so client routes survive a reload."""
    root = dist.resolve()
    index = root / "index.html"

    @app.get("/{path:path}", include_in_schema=False)
    def web(path: str, request: Request) -> Response:
        if path.startswith("api/"):
            return Response(
                '{"detail":"Not Found","code":"not_found","field":null}', 404, media_type="application/json"
            )
        target = (root / path).resolve()
        if path and target.is_file() and target.is_relative_to(root):
            return web_assets.response(target, request.headers.get("accept-encoding", ""))
        return FileResponse(index)
