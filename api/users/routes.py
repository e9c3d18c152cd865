"""/api/users: the local administrators."""

from __future__ import annotations

from datetime import UTC

from fastapi import APIRouter, Request, Response, status

from api.auth.tables import User
from api.deps import CurrentUser, Db
from api.errors import ErrorBody
from api.users import service
from api.users.schemas import PasswordChange, UserCreate, UserView

router = APIRouter(prefix="/api/users", tags=["users"])

REFUSED: dict[int | str, dict[str, object]] = {
    404: {"model": ErrorBody},
    409: {"model": ErrorBody},
    422: {"model": ErrorBody},
}


def _view(user: User, me: CurrentUser) -> UserView:
    # SQLite hands back naive datetimes; every one stored is UTC, and the schema promises an offset.
    created = user.created_at if user.created_at.tzinfo else user.created_at.replace(tzinfo=UTC)
    return UserView(id=user.id, username=user.username, created_at=created, you=user.id == me.user_id)


@router.get("")
def list_users(db: Db, me: CurrentUser) -> list[UserView]:
    """Every administrator (passwords are never returned)."""
    return [_view(u, me) for u in service.list_all(db)]


@router.post("", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_user(body: UserCreate, db: Db, me: CurrentUser) -> UserView:
    """Add an administrator."""
    return _view(service.create(db, me, body.username, body.password), me)


@router.put("/{user_id}/password", responses={**REFUSED, 429: {"model": ErrorBody}})
def change_password(
    user_id: int, body: PasswordChange, request: Request, db: Db, me: CurrentUser
) -> UserView:
    """Set a user's password; your own needs the current one. The user's other sessions end."""
    client = request.client.host if request.client else "unknown"
    user = service.change_password(
        db, request.app.state.throttle, me, client, user_id, body.current_password, body.new_password
    )
    return _view(user, me)


@router.delete("/{user_id}", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def delete_user(user_id: int, db: Db, me: CurrentUser) -> Response:
    """Delete an administrator and end their sessions (never yourself, never the last one)."""
    service.remove(db, me, user_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
