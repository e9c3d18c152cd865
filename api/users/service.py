"""Add, list, re-password and delete administrators. Every user is an administrator."""

from __future__ import annotations

import logging

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.auth.passwords import hash_password, verify_password
from api.auth.service import Principal, now
from api.auth.tables import LoginSession, User
from api.auth.throttle import LoginThrottle
from api.errors import Conflict, InvalidInput, NotFound, TooManyAttempts

log = logging.getLogger(__name__)


def list_all(db: Session) -> list[User]:
    return list(db.scalars(select(User).order_by(User.username)))


def get(db: Session, user_id: int) -> User:
    user = db.get(User, user_id)
    if user is None:
        raise NotFound(f"No user {user_id}")
    return user


def create(db: Session, by: Principal, username: str, password: str) -> User:
    taken = f"A user named {username!r} exists already"
    if db.scalar(select(User.id).where(User.username == username)) is not None:
        raise Conflict(taken, field="username")
    user = User(username=username, password_hash=hash_password(password), created_at=now())
    db.add(user)
    try:
        db.commit()
    except IntegrityError as exc:  # added by someone else in between
        db.rollback()
        raise Conflict(taken, field="username") from exc
    log.info("user %s added by %s", username, by.username)
    return user


def change_password(
    db: Session,
    throttle: LoginThrottle,
    by: Principal,
    client: str,
    user_id: int,
    current: str | None,
    new: str,
) -> User:
    """Set a new password. Your own needs the current one (throttled like a login); another user's does not.

    The user's other sessions end: whoever knew the old password is logged out.
    """
    user = get(db, user_id)
    own = user.id == by.user_id
    if own:
        wait = throttle.retry_after(client, user.username)
        if wait > 0:
            raise TooManyAttempts(
                f"Too many wrong passwords; try again in {int(wait) + 1} s", retry_after=int(wait) + 1
            )
        if not current:
            raise InvalidInput("Enter your current password", field="current_password")
        if not verify_password(user.password_hash, current):
            throttle.failed(client, user.username)
            raise InvalidInput("The current password is wrong", field="current_password")
        throttle.succeeded(client, user.username)
    user.password_hash = hash_password(new)
    ended = delete(LoginSession).where(LoginSession.user_id == user.id)
    if own:
        ended = ended.where(LoginSession.id != by.session_id)
    db.execute(ended)
    db.commit()
    log.info("password of %s changed by %s", user.username, by.username)
    return user


def remove(db: Session, by: Principal, user_id: int) -> None:
    user = get(db, user_id)
    if user.id == by.user_id:
        raise Conflict("You cannot delete the user you are logged in as; log in as another administrator")
    name = user.username
    db.execute(delete(LoginSession).where(LoginSession.user_id == user.id))
    # Counted in the DELETE itself: two administrators deleting each other at once cannot leave none.
    others = select(func.count(User.id)).scalar_subquery()
    gone = db.execute(delete(User).where(User.id == user.id, others > 1))
    if not getattr(gone, "rowcount", 0):
        db.rollback()
        raise Conflict("The last administrator cannot be deleted")
    db.commit()
    log.info("user %s deleted by %s", name, by.username)
