"""The built web app as the api serves it: gzip twins to browsers that take gzip, hashed assets cached."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from support.api import client_for, make_settings

from api.web_assets import IMMUTABLE

SCRIPT = b"export const answer = 42;\n" * 200


@pytest.fixture
def web(tmp_path: Path) -> TestClient:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><title>arcvsa</title>")
    (dist / "assets" / "vendor-abc123.js").write_bytes(SCRIPT)
    (dist / "assets" / "vendor-abc123.js.gz").write_bytes(gzip.compress(SCRIPT))
    (dist / "assets" / "tiny-def456.css").write_text("a{}")  # too small to have a twin
    (dist / "favicon.svg").write_text("<svg/>")
    return client_for(make_settings(tmp_path / "data", web_dist=dist))


def test_gzip_twin_goes_to_a_browser_that_takes_gzip(web: TestClient) -> None:
    r = web.get("/assets/vendor-abc123.js", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert r.status_code == 200
    assert r.headers["content-encoding"] == "gzip"
    assert r.headers["content-type"].split(";")[0] in {"text/javascript", "application/javascript"}
    assert int(r.headers["content-length"]) < len(SCRIPT) / 4
    assert r.content == SCRIPT  # httpx decodes it: the twin holds the same bytes
    assert r.headers["cache-control"] == IMMUTABLE
    assert r.headers["vary"] == "Accept-Encoding"


@pytest.mark.parametrize("accept", ["identity", "br", "gzip;q=0", ""])
def test_plain_file_otherwise(web: TestClient, accept: str) -> None:
    r = web.get("/assets/vendor-abc123.js", headers={"Accept-Encoding": accept})
    assert r.status_code == 200
    assert "content-encoding" not in r.headers
    assert r.content == SCRIPT


def test_file_without_twin_and_files_outside_assets(web: TestClient) -> None:
    css = web.get("/assets/tiny-def456.css", headers={"Accept-Encoding": "gzip"})
    assert css.text == "a{}" and "content-encoding" not in css.headers
    assert css.headers["cache-control"] == IMMUTABLE
    icon = web.get("/favicon.svg", headers={"Accept-Encoding": "gzip"})
    assert icon.status_code == 200 and "cache-control" not in icon.headers


def test_client_routes_still_get_index_html(web: TestClient) -> None:
    r = web.get("/settings", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and "<title>arcvsa</title>" in r.text
    assert web.get("/api/nope").status_code == 404
