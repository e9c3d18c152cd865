"""Users and sessions: bootstrap the first admin, log in, resolve a token, log out."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from api.auth import principals
from api.auth.passwords import hash_password, verify_password
from api.auth.tables import LoginSession, User
from api.auth.throttle import LoginThrottle
from api.errors import InvalidCredentials, TooManyAttempts


@dataclass(frozen=True)
class Principal:
    """Who made a request, and how they proved it."""

    user_id: int
    username: str
    session_id: int
    csrf_token: str
    by_cookie: bool


@dataclass(frozen=True)
class NewSession:
    token: str
    csrf_token: str
    expires_at: datetime
    username: str


def _sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def now() -> datetime:
    return datetime.now(UTC)


def _aware(ts: datetime) -> datetime:
    # SQLite gives back naive datetimes; every time we store is UTC.
    return ts if ts.tzinfo else ts.replace(tzinfo=UTC)


def ensure_admin(db: Session, username: str, password: str | None, password_hash: str | None = None) -> bool:
    """Create the first administrator if there is no user yet. Returns whether one was created.

    ``password_hash`` (argon2id, from first boot) is used when no plain password is given.
    """
    if db.scalar(select(User.id).limit(1)) is not None or not (password or password_hash):
        return False
    stored = hash_password(password) if password else password_hash
    db.add(User(username=username, password_hash=stored, created_at=now()))
    db.commit()
    return True


def login(
    db: Session, throttle: LoginThrottle, client: str, username: str, password: str, hours: float
) -> NewSession:
    wait = throttle.retry_after(client, username)
    if wait > 0:
        raise TooManyAttempts(
            f"Too many failed logins; try again in {int(wait) + 1} s", retry_after=int(wait) + 1
        )
    user = db.scalar(select(User).where(User.username == username))
    if not verify_password(user.password_hash if user else None, password) or user is None:
        throttle.failed(client, username)
        raise InvalidCredentials("Wrong user name or password")
    throttle.succeeded(client, username)
    token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    expires = now() + timedelta(hours=hours)
    db.execute(delete(LoginSession).where(LoginSession.expires_at < now()))
    db.add(
        LoginSession(
            token_sha256=_sha256(token),
            csrf_token=csrf,
            user_id=user.id,
            created_at=now(),
            expires_at=expires,
        )
    )
    db.commit()
    return NewSession(token=token, csrf_token=csrf, expires_at=expires, username=user.username)


def resolve(db: Session, token: str, *, by_cookie: bool) -> Principal | None:
    sha = _sha256(token)
    bind = db.get_bind()
    row = principals.cache.get(bind, sha)
    if row is None:
        generation = principals.cache.generation()  # before the read: see principals.cache.put
        row = read_session(db, sha)
        if row is None:
            return None
        principals.cache.put(bind, sha, generation, row)
    return _principal(row, by_cookie)


def resolve_cached(db: Session, token: str, *, by_cookie: bool) -> Principal | None:
    """``resolve``'s answer when this process has the session's row already (no query, so the event loop
    may ask); None means "ask ``resolve``", not "unauthenticated"."""
    row = principals.cache.get(db.get_bind(), _sha256(token))
    return None if row is None else _principal(row, by_cookie)


def _principal(row: principals.Row, by_cookie: bool) -> Principal | None:
    if _aware(row.expires_at) <= now():
        return None
    return Principal(row.user_id, row.username, row.session_id, row.csrf_token, by_cookie)


def read_session(db: Session, token_sha256: str) -> principals.Row | None:
    # Columns, not the LoginSession entity: loading an ORM object (identity map, instance state) costs
    # more than the query itself, and every request pays it.
    found = db.execute(
        select(
            LoginSession.user_id,
            User.username,
            LoginSession.id,
            LoginSession.csrf_token,
            LoginSession.expires_at,
        )
        .join(User, User.id == LoginSession.user_id)
        .where(LoginSession.token_sha256 == token_sha256)
    ).first()
    return None if found is None else principals.Row(*found)


def logout(db: Session, session_id: int) -> None:
    db.execute(delete(LoginSession).where(LoginSession.id == session_id))
    db.commit()
