"""Domain errors and the one table that maps every error class to an HTTP status and a code.

The body is always {"detail": message, "code": code, "field": field-or-null, ...extra}, so a form can show
the message beside the field it is about.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from appliance.control import errors as ctl
from appliance.upgrade import errors as up
from ovf.errors import DescriptorInvalid
from provisioning import appliance_errors as app
from provisioning import errors as vc
from provisioning import health


class ApiError(Exception):
    """An error of the api's own domain (not of vCenter or the appliance)."""

    field: str | None = None

    def __init__(self, message: str, *, field: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        if field is not None:
            self.field = field
        self.extra = extra


class NotFound(ApiError):
    pass


class Conflict(ApiError):
    pass


class NotAuthenticated(ApiError):
    pass


class InvalidCredentials(ApiError):
    field = "password"


class CsrfRejected(ApiError):
    pass


class TooManyAttempts(ApiError):
    pass


class InvalidInput(ApiError):
    """Well-formed input the api refuses (a wrong current password, a certificate that does not fit)."""


class WouldLockOut(InvalidInput):
    """A firewall change that would cut the caller off the web interface (refused before anything ran)."""


class SecretRequired(ApiError):
    """A job needs a secret the request did not give (the api never reuses one it was given before)."""


class NoLocalStorage(ApiError):
    """A storage route on a machine without storage of its own (the fleet manager, a developer's machine)."""


class StateNotPublished(ApiError):
    """A read before the appliance's state was first observed since it started (see api.state)."""


# The one table: error class → (HTTP status, stable code). First match in MRO order wins.
ERROR_TABLE: dict[type[Exception], tuple[int, str]] = {
    NotFound: (404, "not_found"),
    Conflict: (409, "conflict"),
    NotAuthenticated: (401, "not_authenticated"),
    InvalidCredentials: (401, "invalid_credentials"),
    CsrfRejected: (403, "csrf_rejected"),
    TooManyAttempts: (429, "too_many_attempts"),
    WouldLockOut: (422, "would_lock_out"),
    InvalidInput: (422, "invalid_input"),
    NoLocalStorage: (404, "no_local_storage"),
    StateNotPublished: (503, "state_pending"),
    SecretRequired: (422, "secret_required"),
    vc.AuthenticationFailed: (422, "vcenter_auth_failed"),
    vc.Unreachable: (422, "vcenter_unreachable"),
    vc.VCenterTimeout: (422, "vcenter_timeout"),
    vc.CertificateUntrusted: (422, "certificate_untrusted"),
    vc.ThumbprintMismatch: (422, "thumbprint_mismatch"),
    vc.NotAVCenter: (422, "not_a_vcenter"),
    vc.SessionExpired: (422, "vcenter_session_expired"),
    vc.VCenterError: (422, "vcenter_error"),
    # an arcvsa appliance's own api, as the fleet manager talks to it (never a vCenter fault)
    app.ApplianceLoginFailed: (422, "appliance_login_failed"),
    app.ApplianceRequestRefused: (422, "appliance_refused"),
    app.ApplianceUnreachable: (422, "appliance_unreachable"),
    app.ApplianceCertificateMismatch: (422, "appliance_certificate_mismatch"),
    app.ApplianceBadAnswer: (422, "appliance_bad_answer"),
    health.ApplianceUnhealthy: (422, "appliance_unhealthy"),
    app.ApplianceApiError: (422, "appliance_error"),
    # a DeploymentPlan refused before any change
    vc.NameCollision: (409, "name_collision"),
    vc.HostNotInCluster: (422, "host_not_in_cluster"),
    vc.SnapshotMissing: (422, "snapshot_missing"),
    vc.InsufficientSpace: (422, "insufficient_space"),
    vc.InsufficientResources: (422, "insufficient_resources"),
    vc.PlacementNotFound: (422, "placement_not_found"),
    vc.PlanError: (422, "plan_invalid"),
    DescriptorInvalid: (422, "ovf_descriptor_invalid"),
    # the appliance's storage tools (appliance.control): refused before any tool ran, or a tool's fault
    ctl.InvalidName: (422, "invalid_name"),
    ctl.Refused: (422, "refused"),
    ctl.InvalidRequest: (422, "invalid_request"),
    ctl.AlreadyExists: (409, "already_exists"),
    ctl.DeviceInUse: (409, "device_in_use"),
    ctl.Conflict: (409, "storage_conflict"),
    ctl.NotFound: (404, "not_found"),
    ctl.ServiceDown: (503, "service_down"),
    ctl.CommandTimeout: (504, "command_timeout"),
    ctl.SystemFault: (502, "system_fault"),
    # upgrade bundles (appliance.upgrade): refused before anything was installed
    up.Malformed: (422, up.Malformed.code),
    up.Unsigned: (422, up.Unsigned.code),
    up.Tampered: (422, up.Tampered.code),
    up.NotNewer: (422, up.NotNewer.code),
    up.Incompatible: (422, up.Incompatible.code),
    up.BundleRefused: (422, up.BundleRefused.code),
    up.Busy: (409, "upgrade_busy"),
}


class ErrorBody(BaseModel):
    detail: str = Field(description="What went wrong, in words for a person")
    code: str = Field(description="Stable machine-readable code")
    field: str | None = Field(default=None, description="The input field the error is about, if any")
    thumbprint: str | None = Field(
        default=None, description="For certificate errors: the SHA-256 thumbprint the server presented"
    )
    names: list[str] | None = Field(
        default=None, description="For name collisions: the names taken by objects arcvsa does not own"
    )
    your_address: str | None = Field(
        default=None, description="For a firewall change refused as a lockout: the caller's address"
    )


class ValidationIssue(BaseModel):
    loc: list[str | int] = Field(description="Where in the request: body, query, path, then the field")
    msg: str = Field(description="What is wrong with it")
    type: str = Field(description="Stable machine-readable kind of error")


class ValidationErrorBody(ErrorBody):
    """The 422 a request the schema refuses gets (what ``install`` answers; FastAPI's default differs)."""

    errors: list[ValidationIssue] = Field(description="Every problem found in the request")


def lookup(exc: Exception) -> tuple[int, str] | None:
    for cls in type(exc).__mro__:
        if cls in ERROR_TABLE:
            return ERROR_TABLE[cls]
    return None


def _body(exc: Exception, code: str) -> dict[str, Any]:
    body: dict[str, Any] = {"detail": str(exc), "code": code, "field": getattr(exc, "field", None)}
    if isinstance(
        exc,
        vc.CertificateUntrusted | vc.ThumbprintMismatch | app.ApplianceCertificateMismatch,
    ):
        body["thumbprint"] = exc.thumbprint
    if isinstance(exc, vc.NameCollision):
        body["names"] = exc.names
    body.update(getattr(exc, "extra", {}))
    return body


def _field_of(loc: tuple[Any, ...]) -> str | None:
    # ("body", "host") → "host"; ("path", "vcenter_id") → "vcenter_id"
    names = [str(p) for p in loc[1:] if not isinstance(p, int)]
    return names[0] if names else None


def install(app: FastAPI) -> None:
    """Register the handlers that turn errors into the one body shape."""

    async def domain(_: Request, exc: Exception) -> JSONResponse:
        status, code = lookup(exc) or (500, "internal")
        headers = {}
        if isinstance(exc, TooManyAttempts):
            headers["Retry-After"] = str(exc.extra.get("retry_after", 60))
        if status == 401:
            headers["WWW-Authenticate"] = "Bearer"
        return JSONResponse(_body(exc, code), status_code=status, headers=headers)

    async def invalid(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = exc.errors()
        first = errors[0] if errors else {"loc": (), "msg": "invalid input"}
        field = _field_of(tuple(first.get("loc", ())))
        msg = str(first.get("msg", "invalid input"))
        detail = f"{field}: {msg}" if field else msg
        # "input" echoes what was sent (it may be a password): leave it out of the answer.
        slim = [{"loc": list(e.get("loc", ())), "msg": e.get("msg"), "type": e.get("type")} for e in errors]
        body = {"detail": detail, "code": "invalid_input", "field": field, "errors": slim}
        return JSONResponse(body, status_code=422)

    async def http(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse(
            {"detail": str(exc.detail), "code": code, "field": None},
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    for cls in ERROR_TABLE:
        app.add_exception_handler(cls, domain)
    _document(app)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StarletteHTTPException, http)


def _document(app: FastAPI) -> None:
    """Make the OpenAPI say what the handlers above answer: FastAPI documents its own 422 body, and no
    route documents the refusals of the login check it sits behind, which a client must expect."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = generate()
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        if "HTTPValidationError" in components:
            body = ValidationErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
            components.update(body.pop("$defs", {}))
            components["HTTPValidationError"] = {**body, "title": "HTTPValidationError"}
        components.setdefault("ErrorBody", ErrorBody.model_json_schema())
        error = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}}
        for ops in schema.get("paths", {}).values():
            for method, op in ops.items():
                if "requestBody" in op:  # a body that is not JSON (or not UTF-8) at all
                    op["responses"].setdefault("400", {"description": "The body cannot be parsed", **error})
                if not op.get("security"):
                    continue
                op["responses"].setdefault("401", {"description": "Not logged in", **error})
                if method.upper() not in ("GET", "HEAD", "OPTIONS"):
                    op["responses"].setdefault(
                        "403", {"description": "Session cookie without its CSRF header", **error}
                    )
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
