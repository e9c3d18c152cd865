"""The api's access log (python -m api): changes and failures are logged, successful reads are not."""

from __future__ import annotations

import logging
import logging.config

import pytest

from api.__main__ import log_config

LINE = '%s - "%s %s HTTP/%s" %d'  # how uvicorn's http protocols log a request


def test_reads_that_succeed_are_left_out(capsys: pytest.CaptureFixture[str]) -> None:
    access = logging.getLogger("uvicorn.access")
    saved = (access.handlers[:], access.level, access.propagate)
    try:
        logging.config.dictConfig(log_config())  # the handler binds to sys.stdout now: capsys's
        for method, path, status in [
            ("GET", "/api/storage/pools", 200),
            ("HEAD", "/api/health", 200),
            ("GET", "/api/alerts", 304),
            ("POST", "/api/storage/pools", 201),
            ("DELETE", "/api/storage/exports/3", 204),
            ("GET", "/api/storage/pools", 401),
            ("GET", "/api/jobs/7", 500),
        ]:
            access.info(LINE, "10.0.0.5:50123", method, path, "1.1", status)
    finally:
        access.handlers[:], access.level, access.propagate = saved
    logged = capsys.readouterr().out.splitlines()
    assert [line.split('"')[1] for line in logged] == [
        "POST /api/storage/pools HTTP/1.1",
        "DELETE /api/storage/exports/3 HTTP/1.1",
        "GET /api/storage/pools HTTP/1.1",
        "GET /api/jobs/7 HTTP/1.1",
    ]
    assert [line.split('" ')[1].split()[0] for line in logged] == ["201", "204", "401", "500"]
