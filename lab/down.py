"""``python -m lab.down``: power the appliance off (ACPI, then kill) and stop the SAN; keeps the LUNs."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from lab import state
from lab.appliance_vm import power_off
from lab.daemon import Daemon


def down(directory: Path, *, timeout: float, wipe: bool) -> bool:
    """Stop what ``lab.up`` started in ``directory``; True if the guest shut down cleanly."""
    saved = state.load(directory)
    clean = True
    if saved is not None:
        clean = power_off(Daemon(saved.vm.pid, saved.vm.marker), Path(saved.vm_qmp), timeout)
        Daemon(saved.san.pid, saved.san.marker).stop()
        for path in (saved.san_socket, saved.san_qmp):
            Path(path).unlink(missing_ok=True)
        state.state_path(directory).unlink()
    if wipe and directory.is_dir():
        shutil.rmtree(directory)
    return clean


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", type=Path, default=state.LAB_DIR, help="state folder (default var/lab)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for a clean power-off")
    parser.add_argument("--wipe", action="store_true", help="also delete the LUNs, SSDs and logs")
    args = parser.parse_args()
    directory = args.dir.resolve()
    if state.load(directory) is None and not args.wipe:
        print(f"no lab is up in {directory}")
        return
    clean = down(directory, timeout=args.timeout, wipe=args.wipe)
    print("lab down" + ("" if clean else " (the guest did not power off in time: killed)"))


if __name__ == "__main__":
    main()
