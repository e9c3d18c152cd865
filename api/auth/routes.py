"""/api/auth: log in (the only open route besides health), log out, who am I."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status

from api.auth import service
from api.auth.schemas import LoginRequest, LoginResult, Me, TokenResult
from api.deps import AppSettings, CurrentUser, Db, csrf_cookie, session_cookie
from api.errors import ErrorBody

public = APIRouter(prefix="/api/auth", tags=["auth"])
router = APIRouter(prefix="/api/auth", tags=["auth"])


def _login(body: LoginRequest, request: Request, db: Db, settings: AppSettings) -> service.NewSession:
    client = request.client.host if request.client else "unknown"
    return service.login(
        db, request.app.state.throttle, client, body.username, body.password, settings.session_hours
    )


@public.post(
    "/login",
    responses={401: {"model": ErrorBody}, 429: {"model": ErrorBody}},
)
def login(
    body: LoginRequest, request: Request, response: Response, db: Db, settings: AppSettings
) -> LoginResult:
    """Log in; sets the session cookie (HttpOnly) and the CSRF cookie the web sends back as a header."""
    new = _login(body, request, db, settings)
    max_age = int(settings.session_hours * 3600)
    secure = settings.cookie_secure
    response.set_cookie(
        session_cookie(request),
        new.token,
        max_age=max_age,
        httponly=True,
        secure=secure,
        samesite="strict",
        path="/",
    )
    response.set_cookie(
        csrf_cookie(request),
        new.csrf_token,
        max_age=max_age,
        httponly=False,
        secure=secure,
        samesite="strict",
        path="/",
    )
    # The token stays out of the body: page scripts must not be able to read the browser's credential.
    return LoginResult(username=new.username, expires_at=new.expires_at)


@public.post("/token", responses={401: {"model": ErrorBody}, 429: {"model": ErrorBody}})
def token(body: LoginRequest, request: Request, db: Db, settings: AppSettings) -> TokenResult:
    """Log in as a script: a bearer token in the body, no cookies (same checks and throttle as login)."""
    new = _login(body, request, db, settings)
    return TokenResult(token=new.token, expires_at=new.expires_at)


@router.post("/logout", status_code=status.HTTP_204_NO_CONTENT)
def logout(user: CurrentUser, db: Db, request: Request, response: Response) -> None:
    """End this session."""
    service.logout(db, user.session_id)
    response.delete_cookie(session_cookie(request), path="/")
    response.delete_cookie(csrf_cookie(request), path="/")


@router.get("/me")
def me(user: CurrentUser) -> Me:
    """Who is logged in."""
    return Me(username=user.username)
