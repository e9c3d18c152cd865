"""Serve the api over HTTPS: `python -m api [--host H] [--port P]`."""

from __future__ import annotations

import argparse
import logging

import uvicorn

from api.app import create_app
from api.settings import Settings
from api.tls import ensure_certificate


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
    uvicorn.run(
        create_app(settings),
        host=args.host,
        port=args.port,
        ssl_certfile=cert,
        ssl_keyfile=key,
        log_level="info",
        proxy_headers=False,
        # Longer than clients wait before reusing an idle connection: with uvicorn's 5 s a request sent as
        # the server closes the socket dies with ECONNRESET (seen from Playwright in the lab).
        timeout_keep_alive=75,
    )


if __name__ == "__main__":
    main()
