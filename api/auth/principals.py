"""Resolved login sessions, kept in memory: authenticating a request is a dict lookup, not a query.

Every route but health resolves its caller. Under a dashboard's polling load that query (SQLAlchemy's
statement path and SQLite) is a large share of the api's CPU per request, which every request queued
behind the ones before it pays again. The cache is exact, not a time-to-live: any write to the users or
login_sessions tables, through any Session of this process, moves a generation when it runs and again
when it commits, and a row read under an older generation is not used. The api is those tables' only
writer but for a restore, which the control service runs (api.privileged): every answer of that
service moves the generation too. A logout, a password change, a deleted user or a restored backup end sessions at once, as
they did without the cache. Rows are cached per engine (the tests run several databases in one process).
"""

from __future__ import annotations

import threading
import weakref
from datetime import datetime
from itertools import chain
from typing import Any, NamedTuple

from sqlalchemy import Connection, Engine, event
from sqlalchemy.orm import ORMExecuteState, Session, UOWTransaction

from api.auth.tables import LoginSession, User

LIMIT = 4096  # sessions per database; past it the cache starts over (logins are rate-limited)
_TABLES = frozenset({User.__tablename__, LoginSession.__tablename__})
_TOUCHED = "arcvsa.auth_tables_written"  # Session.info key: this transaction wrote them


class Row(NamedTuple):
    user_id: int
    username: str
    session_id: int
    csrf_token: str
    expires_at: datetime


class _Cache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = 0
        self._rows: weakref.WeakKeyDictionary[Engine, dict[str, tuple[int, Row]]] = (
            weakref.WeakKeyDictionary()
        )

    def generation(self) -> int:
        return self._generation

    def moved(self) -> None:
        with self._lock:
            self._generation += 1

    def get(self, bind: Engine | Connection, token_sha256: str) -> Row | None:
        found = self._rows.get(bind.engine, {}).get(token_sha256)
        if found is None or found[0] != self._generation:
            return None
        return found[1]

    def put(self, bind: Engine | Connection, token_sha256: str, generation: int, row: Row) -> None:
        """Keep a row read under ``generation`` (taken before the query: a write that commits between
        the two has moved it since, and the row is never used)."""
        with self._lock:
            rows = self._rows.setdefault(bind.engine, {})
            if len(rows) >= LIMIT:
                rows.clear()
            rows[token_sha256] = (generation, row)


cache = _Cache()


def _writes_auth(statement: Any) -> bool:
    table = getattr(statement, "table", None)  # INSERT, UPDATE, DELETE name theirs; text() has none
    return table is None or getattr(table, "name", None) in _TABLES


@event.listens_for(Session, "do_orm_execute")
def _on_execute(state: ORMExecuteState) -> None:
    if not state.is_select and _writes_auth(state.statement):
        state.session.info[_TOUCHED] = True
        cache.moved()


@event.listens_for(Session, "before_flush")
def _on_flush(session: Session, _flush: UOWTransaction, _instances: object) -> None:
    if any(isinstance(o, User | LoginSession) for o in chain(session.new, session.dirty, session.deleted)):
        session.info[_TOUCHED] = True
        cache.moved()


@event.listens_for(Session, "after_commit")
def _on_commit(session: Session) -> None:
    # Readers on other connections saw the old rows until now: whatever they cached since the first move
    # carries that move's generation, so move again.
    if session.info.pop(_TOUCHED, False):
        cache.moved()
