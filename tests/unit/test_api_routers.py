"""The api's routers take disjoint requests, so the order they are included in (the dashboards' reads
first, for speed) never decides which route answers."""

from __future__ import annotations

import re

from fastapi import APIRouter
from fastapi.routing import APIRoute
from starlette.routing import Match

from api.app import GUARDED, OPEN
from api.prometheus import routes as prometheus_routes

ROUTERS: tuple[APIRouter, ...] = (*OPEN, *GUARDED, prometheus_routes.scrape)
PARAM = re.compile(r"\{[^}]+\}")

Overlap = tuple[str, str, str, str]  # method, path, the route it was made for, another router's route


def requests(route: APIRoute) -> list[tuple[str, str]]:
    """Requests the route answers, one per method and example: its path parameters filled in with an
    id, a name, and a dataset with a slash where the parameter takes one."""
    examples = {PARAM.sub("1", route.path), PARAM.sub("tank", route.path)}
    if ":path}" in route.path:
        examples.add(PARAM.sub("tank/vdi", route.path))
    return [(method, path) for method in sorted(route.methods or ()) for path in sorted(examples)]


def overlaps(routers: tuple[APIRouter, ...]) -> list[Overlap]:
    """Each request of a route that a route of another router takes too."""
    routes = [(i, r) for i, router in enumerate(routers) for r in router.routes if isinstance(r, APIRoute)]
    found = []
    for i, route in routes:
        for method, path in requests(route):
            scope = {"type": "http", "method": method, "path": path, "root_path": "", "headers": []}
            for j, other in routes:
                if j != i and other.matches(dict(scope))[0] is Match.FULL:
                    found.append((method, path, route.path, other.path))
    return found


def test_every_router_is_included_once() -> None:
    assert len({id(r) for r in ROUTERS}) == len(ROUTERS)
    assert all(isinstance(r, APIRoute) for router in ROUTERS for r in router.routes)


def test_no_request_is_taken_by_two_routers() -> None:
    assert overlaps(ROUTERS) == []


def test_a_catch_all_in_another_router_is_an_overlap() -> None:
    shadow = APIRouter(prefix="/api/storage")

    @shadow.get("/{anything}")
    def anything(anything: str) -> str:
        return anything

    found = overlaps((*ROUTERS, shadow))
    assert ("GET", "/api/storage/exports", "/api/storage/exports", "/api/storage/{anything}") in found
    assert ("GET", "/api/storage/1", "/api/storage/{anything}", "/api/storage/exports") not in found
