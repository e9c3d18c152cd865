"""`make demo`: vcsim as the vCenter, the api with the web UI over HTTPS, and the lab appliance (the
real image under qemu, on a throttled lab SAN) with its own api, until Ctrl-C.

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

from lab import down, up
from lab.appliance_api import ApiError
from lab.process import CommandError
from lab.san import Throttle
from lab.stack import ApiServer
from lab.vcsim import Vcsim

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m lab.demo", description=__doc__)
    parser.add_argument("--port", type=int, default=8443, help="HTTPS port of the web UI and api")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "var" / "demo")
    parser.add_argument("--no-appliance", action="store_true", help="do not boot the lab appliance")
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
        # SIGTERM ends the wait like Ctrl-C; leaving the `with` blocks stops and reaps every process.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        lab_dir = args.data_dir / "lab"
        try:
            with contextlib.suppress(KeyboardInterrupt):
                if not args.no_appliance:
                    boot_appliance(lab_dir)
                api.wait()
        finally:
            down.down(lab_dir, timeout=60, wipe=False)


def boot_appliance(directory: Path) -> None:
    """Boot the lab appliance (the image `make image` built) and print how to reach it."""
    image, key = up.latest_image()
    print("  booting the lab appliance under qemu (TCG: a minute or two) ...", flush=True)
    try:
        saved = up.up(
            directory, image, key, luns=2, lun_size_bytes=2 << 30, throttle=Throttle(), memory_mib=4096,
            overrides={}, fresh=True, timeout=600,
        )  # fmt: skip
    except (CommandError, ApiError) as err:
        print(f"  the lab appliance did not come up: {err}", flush=True)
        return
    password = Path(saved.admin_password_file or "").read_text(encoding="utf-8").strip()
    ports = saved.host_ports
    print(
        "\n".join(
            [
                f"  lab appliance up in {saved.boot_to_api_seconds} s (first boot: {saved.firstboot}):",
                f"    web/api  https://127.0.0.1:{ports['https']}/   admin / {password}",
                f"    ssh      ssh -i {saved.ssh_key} -p {ports['ssh']} root@127.0.0.1",
                f"    nfs      nfs://127.0.0.1/<export>?nfsport={ports['nfs']}&mountport={ports['mountd']}",
                "",
            ]
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
