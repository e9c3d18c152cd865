"""Request dependencies: the database session, the settings and the caller's identity.

Every router but health is mounted behind `require_principal`, so a new route cannot forget it.
"""

from __future__ import annotations

import hmac
import json
import re
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from api.auth import service
from api.errors import CsrfRejected, InvalidInput, NotAuthenticated
from api.secretbox import SecretBox
from api.settings import Settings

SESSION_COOKIE = "arcvsa_session"
CSRF_COOKIE = "arcvsa_csrf"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

bearer_scheme = HTTPBearer(auto_error=False, description="Token from POST /api/auth/login")


# Dependencies that do no I/O are async: FastAPI runs a sync one on a worker thread, and under load each
# such hop (a queue, a condition, a GIL hand-off) costs more than the work.
async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_db(request: Request) -> AsyncIterator[Session]:
    """A session for the request. Making one and closing it never waits for a connection (the first query,
    on the route's worker thread, takes one), so the event loop can; a sync generator cost two hops."""
    with request.app.state.sessionmaker() as db:
        yield db


async def get_box(request: Request) -> SecretBox:
    box: SecretBox = request.app.state.secretbox
    return box


Db = Annotated[Session, Depends(get_db)]
AppSettings = Annotated[Settings, Depends(get_settings)]
Box = Annotated[SecretBox, Depends(get_box)]


async def require_principal(
    request: Request,
    db: Db,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> service.Principal:
    """The caller, on the event loop when its session is cached (every request after its first), else
    looked up on a worker thread."""
    token, by_cookie = _credentials(request, bearer)
    principal = service.resolve_cached(db, token, by_cookie=by_cookie) if token else None
    if principal is None and token:
        principal = await run_in_threadpool(service.resolve, db, token, by_cookie=by_cookie)
    return _checked(request, principal)


def principal_of(
    request: Request, db: Session, bearer: HTTPAuthorizationCredentials | None
) -> service.Principal:
    """``require_principal`` for a caller already on a worker thread (api.prometheus.auth)."""
    token, by_cookie = _credentials(request, bearer)
    return _checked(request, service.resolve(db, token, by_cookie=by_cookie) if token else None)


def cookie_suffix(request: Request) -> str:
    """``_<port>`` when the browser reached this api on a port it names (not https' or http's default).

    Cookies ignore ports: two arcvsa on one host (the demo's manager and its lab appliance, forwarded
    ports) would share one session cookie, and logging in to one would log out of the other. The port
    is the one in the Host header, which the web reads as ``location.port`` (web/src/api/session.ts)."""
    try:
        port = request.url.port
    except ValueError:  # a Host header with a port that is not a number: the plain names
        return ""
    return f"_{port}" if port else ""


def session_cookie(request: Request) -> str:
    """The session cookie's name for this instance (see cookie_suffix)."""
    return SESSION_COOKIE + cookie_suffix(request)


def csrf_cookie(request: Request) -> str:
    """The CSRF cookie's name for this instance (see cookie_suffix)."""
    return CSRF_COOKIE + cookie_suffix(request)


def _credentials(request: Request, bearer: HTTPAuthorizationCredentials | None) -> tuple[str | None, bool]:
    return (bearer.credentials, False) if bearer else (request.cookies.get(session_cookie(request)), True)


def _checked(request: Request, principal: service.Principal | None) -> service.Principal:
    if principal is None:
        raise NotAuthenticated("Log in first")
    # A cookie rides along on cross-site requests; a bearer token does not. Double-submit check.
    if principal.by_cookie and request.method not in SAFE_METHODS:
        sent = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(sent, principal.csrf_token):
            raise CsrfRejected(f"Missing or wrong {CSRF_HEADER} header")
    return principal


CurrentUser = Annotated[service.Principal, Depends(require_principal)]

_INTEGER = re.compile(r"[+-]?[0-9]+")
_INT64 = range(-(1 << 63), 1 << 63)


async def integers_in_range(request: Request) -> None:
    """Refuse an integer SQLite cannot hold, in the path, the query or a JSON body: binding it raises
    OverflowError, a 500. No row has such an id and no setting such a value."""
    scope = request.scope
    if not scope.get("path_params") and not scope.get("query_string") and request.method in SAFE_METHODS:
        return  # a dashboard's poll: nothing to look at
    route = scope.get("route")
    dependant = route.dependant if isinstance(route, APIRoute) else None
    declared = {q.alias for q in dependant.query_params} if dependant else set()
    # A parameter declared str stays text (a pool's id is a 64-bit unsigned GUID that zpool reads)
    fields = [*dependant.path_params, *dependant.query_params] if dependant else []
    texts = {f.alias for f in fields if f.field_info.annotation is str}
    query = {k: v for k, v in request.query_params.items() if k in declared}  # others are ignored anyway
    for where, params in (("path", request.path_params), ("query", query)):
        for name, value in params.items():
            if name in texts:
                continue
            if isinstance(value, str) and _INTEGER.fullmatch(value) and int(value) not in _INT64:
                _refuse([where, name])
    if request.headers.get("content-type", "").partition(";")[0].strip().lower() == "application/json":
        try:
            body = json.loads(await request.body())  # read and kept by FastAPI already: no second read
        except ValueError:
            return  # FastAPI answers malformed JSON itself
        found = _out_of_range(body, ["body"])
        if found is not None:
            _refuse(found)


def _out_of_range(value: object, loc: list[str | int]) -> list[str | int] | None:
    """Where in a parsed JSON value the first integer outside int64 is, if any."""
    if isinstance(value, int) and not isinstance(value, bool):
        return loc if value not in _INT64 else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        found = _out_of_range(inner, [*loc, key])
        if found is not None:
            return found
    return None


def _refuse(loc: list[str | int]) -> None:
    # the body a schema refusal has (HTTPValidationError), as the route documents its 422
    name = str(loc[-1]) if len(loc) > 1 else str(loc[0])
    issue = {"loc": loc, "msg": "out of range", "type": "int64_range"}
    raise InvalidInput(f"{name}: out of range", field=name, errors=[issue])
