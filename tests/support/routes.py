"""The api routes as the app dispatches them, read from the app itself (so a new route is never missed)."""

from __future__ import annotations

import re

from fastapi import FastAPI

# The only routes a caller may use without a session.
OPEN = frozenset({("GET", "/api/health"), ("POST", "/api/auth/login"), ("POST", "/api/auth/token")})


def api_routes(app: FastAPI) -> list[tuple[str, str]]:
    """(method, path) of every api route the app would dispatch, included routers unrolled."""
    out: list[tuple[str, str]] = []
    for route in app.routes:
        # FastAPI ≥ 0.16x keeps included routers as one entry each; unroll them to their routes.
        contexts = route.effective_route_contexts() if hasattr(route, "effective_route_contexts") else [route]
        for ctx in contexts:
            path = re.sub(r"\{(\w+):\w+\}", r"{\1}", getattr(ctx, "path", ""))  # '{name:path}' as documented
            methods = getattr(getattr(ctx, "original_route", ctx), "methods", None) or set()
            if path.startswith("/api/"):
                out.extend((m, path) for m in sorted(methods) if m != "HEAD")
    return out


def guarded_routes(app: FastAPI) -> list[tuple[str, str]]:
    """Every api route but the open ones."""
    return [r for r in api_routes(app) if r not in OPEN]


def sample_url(path: str) -> str:
    """The path with each parameter filled with a value every route parses ('1')."""
    return re.sub(r"\{[^}]+\}", "1", path)
