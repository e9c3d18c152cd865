"""``python -m lab.up``: start the lab SAN and boot the appliance image on it (state in var/lab/)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lab import state
from lab.appliance_vm import ApplianceVm, VmConfig
from lab.process import CommandError, Daemon
from lab.san import San, Throttle, make_luns

LATEST = state.REPO / "build" / "image" / "latest.json"


def latest_lab_image(manifest: Path = LATEST) -> tuple[Path, Path]:
    """The lab disk and its SSH key from the last image build (``make image``)."""
    if not manifest.is_file():
        raise SystemExit(f"no image build found ({manifest}): run `make image` first")
    data = json.loads(manifest.read_text(encoding="utf-8"))
    if not data.get("lab_image") or not data.get("lab_key"):
        raise SystemExit(f"{manifest} has no lab disk: build without --no-lab")
    return Path(data["lab_image"]), Path(data["lab_key"])


def running(directory: Path) -> state.LabState | None:
    """The saved state if any of its processes still runs."""
    saved = state.load(directory)
    if saved is None:
        return None
    for proc in (saved.san, saved.vm):
        if Daemon(proc.pid, proc.marker).alive():
            return saved
    return None


def up(
    directory: Path,
    image: Path,
    key: Path,
    *,
    luns: int,
    lun_size_bytes: int,
    throttle: Throttle,
    memory_mib: int,
    cdrom: Path | None,
    fresh: bool,
    timeout: float,
) -> state.LabState:
    """Start SAN and VM, save the state, wait for SSH; on failure stop what was started."""
    directory.mkdir(parents=True, exist_ok=True)
    lun_list = make_luns(directory / "luns", luns, lun_size_bytes)
    san = San(directory, lun_list, throttle).start()
    vm = ApplianceVm(
        VmConfig(image, directory, san.socket, lun_list, key, memory_mib=memory_mib, cdrom=cdrom, fresh=fresh)
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
        )
        state.save(saved)
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
    parser.add_argument("--image", type=Path, help="qcow2 to boot (default: the last build's lab disk)")
    parser.add_argument("--key", type=Path, help="SSH private key for root (default: the build's lab key)")
    parser.add_argument("--luns", type=int, default=2)
    parser.add_argument("--lun-size-gib", type=float, default=2.0)
    parser.add_argument("--iops", type=int, default=Throttle.iops_total, help="SAN IOPS limit (all LUNs)")
    parser.add_argument("--mbps", type=float, default=Throttle.bps_total / 2**20, help="SAN MiB/s limit")
    parser.add_argument("--memory-mib", type=int, default=4096)
    parser.add_argument("--cdrom", type=Path, help="an ovf-env ISO to attach (iso transport)")
    parser.add_argument(
        "--fresh", action="store_true", help="new OS disk and SSDs (default: keep them, like a reboot)"
    )
    parser.add_argument("--timeout", type=float, default=420.0, help="seconds to wait for SSH")
    args = parser.parse_args()

    directory = args.dir.resolve()
    if running(directory) is not None:
        raise SystemExit(f"a lab is already up in {directory}: run `python -m lab.down` first")
    image, key = latest_lab_image()
    image, key = args.image or image, args.key or key
    try:
        saved = up(
            directory,
            image,
            key,
            luns=args.luns,
            lun_size_bytes=int(args.lun_size_gib * 2**30),
            throttle=Throttle(args.iops, int(args.mbps * 2**20)),
            memory_mib=args.memory_mib,
            cdrom=args.cdrom,
            fresh=args.fresh,
            timeout=args.timeout,
        )
    except CommandError as err:
        print(f"lab up failed: {err}", file=sys.stderr)
        raise SystemExit(1) from None
    ports = saved.host_ports
    print(f"appliance up in {saved.boot_to_ssh_seconds} s (qemu start to SSH)")
    print(f"  ssh:     ssh -i {saved.ssh_key} -p {ports['ssh']} root@127.0.0.1")
    print(f"  https:   https://127.0.0.1:{ports['https']}/")
    print(f"  nfs:     nfs://127.0.0.1/<export>?nfsport={ports['nfs']}&mountport={ports['mountd']}")
    print(f"  console: {saved.console}")
    print(f"  state:   {state.state_path(directory)}")


if __name__ == "__main__":
    main()
