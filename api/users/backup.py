"""The administrators in a backup: names and password hashes (the passwords themselves are never known).

Restored, they replace this appliance's users, and every login ends: a session of a user the backup
does not hold must not outlive the restore.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import delete, select

from api.auth.tables import LoginSession, User
from api.backup.section import Context, Restoring, Section, Skipped


class BackupUser(BaseModel):
    """An administrator with the argon2id hash of their password."""

    model_config = ConfigDict(from_attributes=True)  # read from the users table's rows

    username: str = Field(description="login name")
    password_hash: str = Field(repr=False, description="argon2id hash of the password")
    created_at: datetime = Field(description="when the user was added")


class Users(BaseModel):
    users: list[BackupUser] = Field(description="administrators")


class UsersSection(Section):
    key = "users"
    title = "Users"
    model = Users

    def collect(self, ctx: Context, skipped: list[Skipped]) -> Users:
        rows = ctx.db.scalars(select(User).order_by(User.username))
        return Users(users=[BackupUser.model_validate(row) for row in rows])

    def store(self, ctx: Context, value: Users | None, restoring: Restoring) -> list[str]:
        if value is None or not value.users:
            restoring.lost("users", "-", "the backup holds no user: this appliance's users are kept")
            return [u.username for u in ctx.db.scalars(select(User).order_by(User.username))]
        ctx.db.execute(delete(LoginSession))
        ctx.db.execute(delete(User))
        ctx.db.add_all(User(**u.model_dump()) for u in value.users)
        restoring.sessions_ended = True
        return sorted(u.username for u in value.users)


SECTION = UsersSection()
