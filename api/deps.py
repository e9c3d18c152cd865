"""Request dependencies: the database session, the settings and the caller's identity.

Every router but health is mounted behind `require_principal`, so a new route cannot forget it.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from api.auth import service
from api.errors import CsrfRejected, NotAuthenticated
from api.settings import Settings

SESSION_COOKIE = "arcvsa_session"
CSRF_COOKIE = "arcvsa_csrf"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

_bearer = HTTPBearer(auto_error=False, description="Token from POST /api/auth/login")


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_db(request: Request) -> Iterator[Session]:
    with request.app.state.sessionmaker() as db:
        yield db


Db = Annotated[Session, Depends(get_db)]
AppSettings = Annotated[Settings, Depends(get_settings)]


def require_principal(
    request: Request,
    db: Db,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> service.Principal:
    token, by_cookie = (bearer.credentials, False) if bearer else (request.cookies.get(SESSION_COOKIE), True)
    principal = service.resolve(db, token, by_cookie=by_cookie) if token else None
    if principal is None:
        raise NotAuthenticated("Log in first")
    # A cookie rides along on cross-site requests; a bearer token does not. Double-submit check.
    if by_cookie and request.method not in SAFE_METHODS:
        sent = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(sent, principal.csrf_token):
            raise CsrfRejected(f"Missing or wrong {CSRF_HEADER} header")
    return principal


CurrentUser = Annotated[service.Principal, Depends(require_principal)]
