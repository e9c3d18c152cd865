"""`make demo`: vcsim as the vCenter, the api with the web UI over HTTPS, and the lab appliance (the
real image under qemu, on a throttled lab SAN) with its own api, until Ctrl-C.

vcsim runs no guests, so the lab appliance plays the appliance VM the wizard deploys: once it answers, the
demo writes a stand-in file that the api offers to the wizard (api/wizard), which fills in that
appliance's api address and disks on its Back end step. The OVAs `make ova` wrote to dist/ are offered
there too.

Everything lives under var/demo and is made anew each run (vcsim's certificate and login change per run).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import socket
import time
from pathlib import Path
from typing import Literal

from api.wizard.schemas import StandIn, StandInDisk, StandInFile
from lab import down, state, up
from lab.appliance_api import ApiError
from lab.appliance_vm import SSD_SERIALS, VmConfig
from lab.san import Throttle
from lab.stack import ApiServer
from lab.state import LabState
from lab.vcsim import Vcsim
from process import ProcessError

ROOT = Path(__file__).resolve().parents[1]
SSD_ROLES: dict[str, Literal["log", "cache"]] = {"ssd-slog": "log", "ssd-l2arc": "cache"}
STAND_IN_FILE = "stand-in.json"
# vcsim backs an NFS mount with a directory of its working folder named as the datastore, and refuses a
# mount without one: the name the wizard proposes is made ready.
WIZARD_NFS_DATASTORE = "arcvsa-vdi"
# The next demo starts from an empty var/demo, so a clean guest shutdown keeps nothing worth its minute
# under TCG: Ctrl-C asks the guest once, then stops qemu, and the terminal is back within seconds.
POWER_OFF_SECONDS = 5.0


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m lab.demo", description=__doc__)
    parser.add_argument("--port", type=int, default=8443, help="HTTPS port of the web UI and api")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "var" / "demo")
    parser.add_argument("--ova-dir", type=Path, default=ROOT / "dist", help="where the wizard finds OVAs")
    parser.add_argument("--no-appliance", action="store_true", help="do not boot the lab appliance")
    args = parser.parse_args()

    if port_taken(args.port):
        raise SystemExit(
            f"port {args.port} is in use on 127.0.0.1: is another `make demo` still running? Stop it, or "
            f"choose another port: python -m lab.demo --port N"
        )
    shutil.rmtree(args.data_dir, ignore_errors=True)
    args.data_dir.mkdir(parents=True)
    password = os.environ.get("ARCVSA_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
    web_dist = ROOT / "web" / "dist"
    if not (web_dist / "index.html").exists():
        raise SystemExit("web/dist is missing: run `make web` (make demo does)")
    stand_in = args.data_dir / STAND_IN_FILE
    env = {"ARCVSA_OVA_DIR": str(args.ova_dir.resolve())}
    if not args.no_appliance:
        env["ARCVSA_STAND_IN_FILE"] = str(stand_in)

    with (
        Vcsim() as sim,
        ApiServer(args.data_dir, password, port=args.port, web_dist=web_dist, env=env) as api,
    ):
        assert sim.workdir is not None
        (sim.workdir / WIZARD_NFS_DATASTORE).mkdir(exist_ok=True)
        # Printed once, to this terminal only: the api never logs secrets.
        print(
            "\n".join(
                [
                    "",
                    f"  arcvsa is up:       {api.url}/  (self-signed certificate: accept it in the browser)",
                    "  log in as:          admin",
                    f"  password:           {password}",
                    "",
                    "  the demo vCenter (vcsim), to add on Deploy's first step (or under vCenters):",
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
        # SIGTERM ends the wait like Ctrl-C; leaving the `with` blocks stops and reaps every process. Ctrl-C
        # is set explicitly too: a shell starts background jobs (`nohup make demo &`, a script's `&`) with
        # SIGINT ignored, and Python then leaves it ignored, so Ctrl-C or `kill -INT` would do nothing.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        lab_dir = args.data_dir / "lab"
        try:
            with contextlib.suppress(KeyboardInterrupt):
                if not args.no_appliance:
                    boot_appliance(lab_dir, stand_in)
                api.wait()
        finally:
            stop_appliance(lab_dir)


def port_taken(port: int) -> bool:
    """True when something listens on 127.0.0.1:``port`` already (the api would fail on it later)."""
    with socket.socket() as probe:
        probe.settimeout(2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def stop_appliance(lab_dir: Path) -> None:
    """Power the lab appliance off and stop its SAN, saying so on the terminal.

    A second Ctrl-C here would abandon the stop half way and leave qemu running with nobody to stop it,
    so the stop is bounded instead and further Ctrl-Cs are ignored until it is done.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if state.load(lab_dir) is None:
        return
    print("  stopping the lab appliance ...", flush=True)
    started = time.monotonic()
    clean = down.down(lab_dir, timeout=POWER_OFF_SECONDS, wipe=False)
    how = "" if clean else " (it did not power off in time: stopped)"
    print(f"  lab appliance stopped in {time.monotonic() - started:.1f} s{how}", flush=True)


def stand_in_of(saved: LabState) -> StandInFile:
    """The lab appliance as the stand-in of the first appliance the wizard deploys: its api on the host's
    forward, its LUNs as the pool's data disks and its two SSDs as SLOG and L2ARC."""
    ssd_bytes = VmConfig.__dataclass_fields__["ssd_size_bytes"].default
    assert isinstance(ssd_bytes, int)
    disks = [
        StandInDisk(guest_path=f"/dev/disk/by-id/virtio-{lun.name}", role="data", size_bytes=lun.size_bytes)
        for lun in saved.luns
    ]
    disks += [
        StandInDisk(
            guest_path=f"/dev/disk/by-id/virtio-{serial}", role=SSD_ROLES[serial], size_bytes=ssd_bytes
        )
        for serial in SSD_SERIALS
    ]
    endpoint = f"127.0.0.1:{saved.host_ports['https']}"
    return StandInFile(stand_ins=[StandIn(name="the demo's lab appliance", endpoint=endpoint, disks=disks)])


def write_atomically(path: Path, text: str) -> None:
    """Readers (the api) see the old file or the whole new one, never half of it."""
    partial = path.with_suffix(".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def boot_appliance(directory: Path, stand_in: Path) -> None:
    """Boot the lab appliance (the image `make image` built), offer it to the wizard, print how to reach it."""
    image, key = up.latest_image()
    print("  booting the lab appliance under qemu (a minute or two) ...", flush=True)
    try:
        saved = up.up(
            directory, image, key, luns=2, lun_size_bytes=2 << 30, throttle=Throttle(), memory_mib=4096,
            overrides={}, fresh=True, timeout=600,
        )  # fmt: skip
    except (ProcessError, ApiError) as err:
        print(f"  the lab appliance did not come up: {err}", flush=True)
        return
    write_atomically(stand_in, stand_in_of(saved).model_dump_json(indent=2))
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
                "  To deploy a desktop pool: Deploy in the menu. vcsim runs no VMs, so the lab appliance plays",
                "  the appliance the wizard deploys on the first host you choose (choose one host): the Back end",
                "  step fills in its api address and disks. Its admin password is the one above.",
                "",
            ]
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
