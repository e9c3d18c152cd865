"""`make demo`: vcsim as the vCenter, the api with the web UI over HTTPS, until Ctrl-C.

Everything lives under var/demo and is made anew each run (vcsim's certificate and login change per run).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
from pathlib import Path

from lab.stack import ApiServer
from lab.vcsim import Vcsim

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m lab.demo", description=__doc__)
    parser.add_argument("--port", type=int, default=8443, help="HTTPS port of the web UI and api")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "var" / "demo")
    args = parser.parse_args()

    shutil.rmtree(args.data_dir, ignore_errors=True)
    args.data_dir.mkdir(parents=True)
    password = os.environ.get("ARCVSA_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
    web_dist = ROOT / "web" / "dist"
    if not (web_dist / "index.html").exists():
        raise SystemExit("web/dist is missing: run `make web` (make demo does)")

    with Vcsim() as sim, ApiServer(args.data_dir, password, port=args.port, web_dist=web_dist) as api:
        # Printed once, to this terminal only: the api never logs secrets.
        print(
            "\n".join(
                [
                    "",
                    f"  arcvsa is up:       {api.url}/  (self-signed certificate: accept it in the browser)",
                    "  log in as:          admin",
                    f"  password:           {password}",
                    "",
                    "  the demo vCenter (vcsim) to add in 'Connect to vCenter':",
                    f"    address {sim.host}   port {sim.port}",
                    f"    user {sim.username}   password {sim.password}",
                    f"    certificate SHA-256 {sim.thumbprint_sha256}",
                    "",
                    "  Ctrl-C stops everything.",
                    "",
                ]
            ),
            flush=True,
        )
        # SIGTERM ends the wait like Ctrl-C; leaving the `with` blocks stops and reaps both processes.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        with contextlib.suppress(KeyboardInterrupt):
            api.wait()


if __name__ == "__main__":
    main()
