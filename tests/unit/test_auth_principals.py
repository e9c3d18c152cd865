"""The resolved-session cache: a second request costs no query, and every way a session ends still ends
it at once (logout, password change, deleted user, restored backup, expiry), on SQLite on disk."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, delete, event, update
from sqlalchemy.orm import Session, sessionmaker

from api.auth import principals, service
from api.auth.tables import LoginSession, User
from api.auth.throttle import LoginThrottle
from api.db import make_engine, migrate, session_factory
from api.metrics.store import MetricSample
from api.users import service as users

PASSWORD = "correct horse battery"


class Db:
    def __init__(self, path: Path) -> None:
        self.engine: Engine = make_engine(f"sqlite:///{path}")
        migrate(self.engine)
        self.factory: sessionmaker[Session] = session_factory(self.engine)
        self.queries = 0
        event.listen(self.engine, "before_cursor_execute", self._count)
        with self.factory() as s:
            service.ensure_admin(s, "admin", PASSWORD)
            s.add(User(username="ops", password_hash="x", created_at=service.now()))
            s.commit()

    def _count(self, *_: Any) -> None:
        self.queries += 1

    def login(self, username: str = "admin") -> str:
        with self.factory() as s:
            if username != "admin":  # a second user's session, made as login makes one
                user_id = s.query(User.id).filter(User.username == username).scalar()
                s.add(
                    LoginSession(
                        token_sha256=service._sha256(f"token-{username}"),
                        csrf_token="c",
                        user_id=user_id,
                        created_at=service.now(),
                        expires_at=service.now() + timedelta(hours=1),
                    )
                )
                s.commit()
                return f"token-{username}"
            return service.login(s, LoginThrottle(5, 60), "h", "admin", PASSWORD, 1).token

    def resolve(self, token: str) -> service.Principal | None:
        with self.factory() as s:
            return service.resolve(s, token, by_cookie=False)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Db]:
    d = Db(tmp_path / "api.db")
    yield d
    d.engine.dispose()


def test_a_resolved_session_is_resolved_again_without_a_query(db: Db) -> None:
    token = db.login()
    first = db.resolve(token)
    assert first is not None and first.username == "admin"
    before = db.queries
    again = db.resolve(token)
    assert again == first
    assert db.queries == before


def test_logout_ends_the_cached_session_at_once(db: Db) -> None:
    token = db.login()
    principal = db.resolve(token)
    assert principal is not None
    with db.factory() as s:
        service.logout(s, principal.session_id)
    assert db.resolve(token) is None


def test_a_password_change_ends_the_users_other_cached_sessions(db: Db) -> None:
    mine, other = db.login(), db.login()
    me = db.resolve(mine)
    assert me is not None and db.resolve(other) is not None
    with db.factory() as s:
        users.change_password(s, LoginThrottle(5, 60), me, "h", me.user_id, PASSWORD, "new password 123")
    assert db.resolve(other) is None
    assert db.resolve(mine) == me  # the session that changed it goes on


def test_deleting_a_user_ends_their_cached_session(db: Db) -> None:
    admin_token, ops_token = db.login(), db.login("ops")
    admin, ops = db.resolve(admin_token), db.resolve(ops_token)
    assert admin is not None and ops is not None
    with db.factory() as s:
        users.remove(s, admin, ops.user_id)
    assert db.resolve(ops_token) is None


def test_a_bulk_delete_of_every_session_ends_them_all(db: Db) -> None:
    tokens = [db.login(), db.login("ops")]
    assert all(db.resolve(t) is not None for t in tokens)
    with db.factory() as s:  # as a restored backup does
        s.execute(delete(LoginSession))
        s.commit()
    assert [db.resolve(t) for t in tokens] == [None, None]


def test_an_expiry_moved_into_the_past_is_seen(db: Db) -> None:
    token = db.login()
    assert db.resolve(token) is not None
    with db.factory() as s:
        s.execute(update(LoginSession).values(expires_at=service.now() - timedelta(seconds=1)))
        s.commit()
    assert db.resolve(token) is None


def test_a_cached_session_expires_on_time(db: Db, monkeypatch: pytest.MonkeyPatch) -> None:
    token = db.login()
    assert db.resolve(token) is not None
    later = service.now() + timedelta(hours=2)
    monkeypatch.setattr(service, "now", lambda: later)
    queries = db.queries
    assert db.resolve(token) is None
    assert db.queries == queries  # refused from the cached row


def test_a_row_read_before_a_committed_write_is_never_used(db: Db) -> None:
    """The race the generation closes: a reader takes its generation and reads the old row, a logout
    commits, then the reader stores what it read."""
    token = db.login()
    sha = service._sha256(token)
    generation = principals.cache.generation()
    with db.factory() as s:
        row = service.read_session(s, sha)
    assert row is not None
    with db.factory() as s:
        service.logout(s, row.session_id)
    principals.cache.put(db.engine, sha, generation, row)
    assert principals.cache.get(db.engine, sha) is None
    assert db.resolve(token) is None


def test_a_row_read_while_a_logout_is_uncommitted_is_dropped_at_its_commit(db: Db) -> None:
    """The second move: a reader that starts after the logout's DELETE ran but before it committed reads
    the old row (WAL) under the new generation; the commit must move it again."""
    token = db.login()
    principal = db.resolve(token)
    assert principal is not None
    with db.factory() as writer:
        writer.execute(delete(LoginSession).where(LoginSession.id == principal.session_id))
        assert db.resolve(token) == principal  # read from the database, not yet committed there
        writer.commit()
    assert db.resolve(token) is None


def test_a_write_to_other_tables_keeps_the_cache(db: Db) -> None:
    """The metric sampler writes every 10 s: that must not cost every caller a query."""
    token = db.login()
    assert db.resolve(token) is not None
    with db.factory() as s:
        s.execute(delete(MetricSample))
        s.commit()
    queries = db.queries
    assert db.resolve(token) is not None
    assert db.queries == queries


def test_two_databases_never_share_a_session(tmp_path: Path) -> None:
    one, two = Db(tmp_path / "one.db"), Db(tmp_path / "two.db")
    token = one.login()
    assert one.resolve(token) is not None
    assert two.resolve(token) is None
    one.engine.dispose()
    two.engine.dispose()


def test_resolve_cached_answers_a_cached_session_only_and_never_queries(db: Db) -> None:
    token = db.login()
    with db.factory() as s:
        queries = db.queries
        assert service.resolve_cached(s, token, by_cookie=False) is None  # not read yet: ask resolve
        assert db.queries == queries
    first = db.resolve(token)
    with db.factory() as s:
        queries = db.queries
        assert service.resolve_cached(s, token, by_cookie=False) == first
        assert service.resolve_cached(s, "another token", by_cookie=False) is None
        assert db.queries == queries
    with db.factory() as s:
        service.logout(s, first.session_id if first else 0)
    with db.factory() as s:
        assert service.resolve_cached(s, token, by_cookie=False) is None
