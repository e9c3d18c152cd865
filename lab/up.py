"""``python -m lab.up``: start the lab SAN and boot the appliance image on it (state in var/lab/).

The VM gets an ovf-env ISO with the lab's vApp properties (lab/appliance_env.py; ``--set key=value``
changes any of them, valid or not), first boot applies them, and ``up`` waits for the api's health
(the certificate is pinned on first contact) and then, if first boot applied, for SSH.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path

from lab import appliance_env, appliance_vm, state
from lab.appliance_api import ApiError, ApplianceApi
from lab.appliance_vm import ApplianceVm, Firmware, VmConfig
from lab.daemon import Daemon
from lab.san import San, Throttle, make_luns
from process import ProcessError

LATEST = state.REPO / "build" / "image" / "latest.json"
APPLIED = ("applied", "skipped")


def latest_image(manifest: Path = LATEST) -> tuple[Path, Path]:
    """The product disk of the last image build (``make image``) and the lab's SSH key."""
    if not manifest.is_file():
        raise SystemExit(f"no image build found ({manifest}): run `make image` first")
    data = json.loads(manifest.read_text(encoding="utf-8"))
    if not data.get("image") or not data.get("lab_key"):
        raise SystemExit(f"{manifest} names no image or lab key: run `make image` again")
    return Path(data["image"]), Path(data["lab_key"])


def running(directory: Path) -> state.LabState | None:
    """The saved state if any of its processes still runs."""
    saved = state.load(directory)
    if saved is None:
        return None
    for proc in (saved.san, saved.vm):
        if Daemon(proc.pid, proc.marker).alive():
            return saved
    return None


def environment(directory: Path, key: Path, overrides: dict[str, str], fresh: bool) -> tuple[Path, Path]:
    """(ovf-env ISO, admin password file). A fresh boot gets a new password; a reboot keeps its own."""
    secret = directory / "admin-password"
    iso = directory / "ovf-env.iso"
    if fresh or not secret.is_file() or not iso.is_file():
        iso, _ = appliance_env.prepare(directory, key, overrides)
        (directory / "api.crt").unlink(missing_ok=True)
    return iso, secret


def up(
    directory: Path,
    image: Path,
    key: Path,
    *,
    luns: int,
    lun_size_bytes: int,
    throttle: Throttle,
    memory_mib: int,
    overrides: dict[str, str],
    fresh: bool,
    timeout: float,
    reach_host: bool = False,
    firmware: Firmware = "bios",
) -> state.LabState:
    """Start SAN and VM, save the state, wait for the api and SSH; on failure stop what was started."""
    directory.mkdir(parents=True, exist_ok=True)
    # As the VM decides (a disk on another image is made anew), so the pinned certificate and the admin
    # password go with it: a new build booted on a kept lab dir once waited out the api's timeout on TLS.
    fresh = fresh or not appliance_vm.keeps_disk(directory, image)
    iso, secret = environment(directory, key, overrides, fresh)
    lun_list = make_luns(directory / "luns", luns, lun_size_bytes)
    san = San(directory, lun_list, throttle).start()
    vm = ApplianceVm(
        VmConfig(
            image,
            directory,
            san.socket,
            lun_list,
            key,
            memory_mib=memory_mib,
            cdrom=iso,
            fresh=fresh,
            reach_host=reach_host,
            firmware=firmware,
        )
    )
    try:
        vm.start()
        assert san.daemon is not None and vm.daemon is not None
        saved = state.LabState(
            directory=str(directory),
            image=str(image),
            ssh_key=str(key),
            san=state.DaemonState(pid=san.daemon.pid, marker=san.daemon.marker),
            vm=state.DaemonState(pid=vm.daemon.pid, marker=vm.daemon.marker),
            san_socket=str(san.socket),
            san_qmp=str(san.qmp_path),
            vm_qmp=str(vm.qmp_path),
            console=str(vm.console),
            luns=[
                state.LunState(name=lun.name, path=str(lun.path), size_bytes=lun.size_bytes)
                for lun in lun_list
            ],
            host_ports=vm.config.host_ports,
            admin_password_file=str(secret),
            api_cert=str(directory / "api.crt"),
        )
        state.save(saved)
        api = ApplianceApi(vm.config.host_ports["https"], directory / "api.crt")
        seconds, health = api.wait_health(vm.started_at, timeout, vm.check, vm.console)
        saved.boot_to_api_seconds = round(seconds, 1)
        saved.firstboot = str(health["firstboot"]["status"])
        state.save(saved)
        if saved.firstboot in APPLIED:
            saved.boot_to_ssh_seconds = round(vm.wait_ssh(timeout), 1)
            state.save(saved)
        return saved
    except BaseException:
        vm.kill()
        san.stop()
        state.state_path(directory).unlink(missing_ok=True)
        raise


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", type=Path, default=state.LAB_DIR, help="state folder (default var/lab)")
    parser.add_argument("--image", type=Path, help="qcow2 to boot (default: the last build's disk)")
    parser.add_argument("--key", type=Path, help="SSH private key for root (default: the build's lab key)")
    parser.add_argument("--luns", type=int, default=2)
    parser.add_argument("--lun-size-gib", type=float, default=2.0)
    parser.add_argument("--iops", type=int, default=Throttle.iops_total, help="SAN IOPS limit (all LUNs)")
    parser.add_argument("--mbps", type=float, default=Throttle.bps_total / 2**20, help="SAN MiB/s limit")
    parser.add_argument("--memory-mib", type=int, default=4096)
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a vApp property (repeatable)"
    )
    parser.add_argument(
        "--fresh", action="store_true", help="new OS disk, SSDs and first boot (default: keep them, a reboot)"
    )
    parser.add_argument("--timeout", type=float, default=420.0, help="seconds to wait for the api, then SSH")
    parser.add_argument(
        "--reach-host",
        action="store_true",
        help="let the guest send out through the host (qemu restrict=off), e.g. to lab.ntp at 10.0.2.2",
    )
    parser.add_argument(
        "--firmware",
        choices=("bios", "efi"),
        default="bios",
        help="SeaBIOS (default) or OVMF, as vSphere boots the OVA; a kept disk keeps its UEFI variables",
    )
    args = parser.parse_args()

    directory = args.dir.resolve()
    if running(directory) is not None:
        raise SystemExit(f"a lab is already up in {directory}: run `python -m lab.down` first")
    image, key = latest_image() if not (args.image and args.key) else (args.image, args.key)
    # SIGTERM (a CI job's timeout, `kill`) ends the boot as Ctrl-C does, so up() stops the SAN and the VM
    # it started instead of leaving them running with no state file that names them.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        saved = up(
            directory,
            args.image or image,
            args.key or key,
            luns=args.luns,
            lun_size_bytes=int(args.lun_size_gib * 2**30),
            throttle=Throttle(args.iops, int(args.mbps * 2**20)),
            memory_mib=args.memory_mib,
            overrides=appliance_env.parse_overrides(args.set),
            fresh=args.fresh,
            timeout=args.timeout,
            reach_host=args.reach_host,
            firmware=args.firmware,
        )
    except (ProcessError, ApiError, ValueError, KeyError) as err:
        print(f"lab up failed: {err}", file=sys.stderr)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        print("lab up interrupted: stopped the SAN and the VM", file=sys.stderr)
        raise SystemExit(130) from None
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    ports = saved.host_ports
    print(f"appliance api up in {saved.boot_to_api_seconds} s (qemu start to /api/health)")
    print(f"  first boot: {saved.firstboot}")
    print(f"  https:   https://127.0.0.1:{ports['https']}/  (admin password in {saved.admin_password_file})")
    if saved.boot_to_ssh_seconds is not None:
        print(f"  ssh:     ssh -i {saved.ssh_key} -p {ports['ssh']} root@127.0.0.1")
    print(f"  nfs:     nfs://127.0.0.1/<export>?nfsport={ports['nfs']}&mountport={ports['mountd']}")
    print(f"  console: {saved.console}")
    print(f"  state:   {state.state_path(directory)}")


if __name__ == "__main__":
    main()
