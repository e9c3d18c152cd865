"""``python -m lab.up`` ended by SIGTERM while it waits for the api (a CI job's timeout, a ``kill``) stops
the SAN and the VM it started and leaves no state file. Real qemu-storage-daemon and qemu on an empty
disk that never boots, so the api never answers and the wait is where the signal lands."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from lab import state
from lab.daemon import Daemon

REPO = Path(__file__).resolve().parents[2]


def test_sigterm_while_waiting_for_the_api_stops_san_and_vm(tmp_path: Path) -> None:
    image = tmp_path / "blank.qcow2"
    tool = {name: shutil.which(name) or name for name in ("qemu-img", "ssh-keygen")}
    subprocess.run(
        [tool["qemu-img"], "create", "-q", "-f", "qcow2", str(image), "64M"], check=True, timeout=60
    )
    key = tmp_path / "lab_key"
    subprocess.run(
        [tool["ssh-keygen"], "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True, timeout=60
    )
    lab = tmp_path / "lab"
    argv = [sys.executable, "-m", "lab.up", "--dir", str(lab), "--image", str(image), "--key", str(key)]
    argv += ["--luns", "1", "--lun-size-gib", "0.0625", "--memory-mib", "256", "--timeout", "600"]
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    daemons: list[Daemon] = []
    outlived: list[Daemon] = []
    try:
        deadline = time.monotonic() + 120
        saved = None
        while saved is None and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
            saved = state.load(lab)
        assert saved is not None, f"lab.up saved no state (exit {proc.poll()})"
        daemons = [Daemon(d.pid, d.marker) for d in (saved.san, saved.vm)]
        assert all(d.alive() for d in daemons)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        outlived = [d for d in daemons if d.alive()]
        for daemon in outlived:  # not left behind for the next test, however this one fails
            daemon.stop(grace=2)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert not outlived, "qemu or qemu-storage-daemon outlived lab.up"
    assert not state.state_path(lab).exists()
