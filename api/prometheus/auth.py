"""Who may read the exposition: a scrape token, or a login session (bearer or cookie) like any route.

A scrape token opens this one route: every other route sits behind ``api.deps.require_principal``, which knows
only sessions, so a token leaked from a Prometheus host reads metrics and changes nothing.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials

from api.deps import Db, principal_of
from api.deps import bearer_scheme as session_bearer  # one Bearer scheme in the OpenAPI
from api.errors import NotAuthenticated
from api.prometheus import tokens


def require_scraper(
    request: Request,
    db: Db,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(session_bearer)],
) -> str:
    """The caller's name: the scrape token's, or the logged-in user's; 401 otherwise."""
    if bearer is not None and bearer.credentials.startswith(tokens.PREFIX):
        found = tokens.resolve(db, bearer.credentials)
        if found is None:
            raise NotAuthenticated("Unknown or revoked scrape token")
        return f"scrape token {found.name}"
    return principal_of(request, db, bearer).username
