"""Serve the api over HTTPS: `python -m api [--host H] [--port P]`."""

from __future__ import annotations

import argparse
import copy
import gc
import logging
import sys

import uvicorn
import uvicorn.config

from api import serving
from api.app import create_app
from api.settings import Settings
from api.tls import ensure_certificate

log = logging.getLogger("arcvsa.api")


class ChangesAndFailures(logging.Filter):
    """uvicorn's access log keeps a request that may change something (not GET/HEAD/OPTIONS) or failed
    (status >= 400): dashboards polling reads would fill the journal with lines journald and rsyslog pay
    for, and bury the lines an admin looks for."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        if len(args) != 5:  # not a request line: keep it
            return True
        _client, method, _path, _version, status = args
        return method not in {"GET", "HEAD", "OPTIONS"} or not isinstance(status, int) or status >= 400


def log_config() -> dict[str, object]:
    """uvicorn's own logging configuration with ChangesAndFailures on its access log."""
    config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    config["filters"] = {"changes_and_failures": {"()": ChangesAndFailures}}
    config["handlers"]["access"]["filters"] = ["changes_and_failures"]
    return config


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m api", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8443)
    args = parser.parse_args()
    # The api's own records (arcvsa.*: restores, upgrades, log forwarding) go to stderr, so to the journal
    # (and on to a remote syslog when forwarding is on); uvicorn configures its own loggers.
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    settings = Settings()
    cert, key = ensure_certificate(settings.data_dir)
    app = create_app(settings)
    # What is built by now (modules, routes, schemas: ~175k objects) lives as long as the process. A full
    # collection walks all of it with the GIL held, a stall for every request in flight. Frozen, the
    # collector walks only what came since.
    gc.freeze()
    served = serving.config(
        app,
        args.host,
        args.port,
        cert,
        key,
        log_level="info",
        log_config=log_config(),
        proxy_headers=False,
        # Longer than clients wait before reusing an idle connection: with uvicorn's 5 s a request sent as
        # the server closes the socket dies with ECONNRESET (seen from Playwright in the lab).
        timeout_keep_alive=75,
    )
    server = uvicorn.Server(served)
    server.run()
    if not server.started:
        sys.exit(3)  # as uvicorn.run: the port or the certificate refused, systemd restarts us


if __name__ == "__main__":
    main()
