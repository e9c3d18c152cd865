"""lab.vcsim: starts on a free port, is always stopped, its hosts are the sizes it declares, and its CLI
behaves for the demo."""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from pyVmomi import vim

from lab.vcsim import (
    CLUSTER,
    DATACENTER,
    HOST_CORES,
    HOST_COUNT,
    HOST_MEMORY_GIB,
    Vcsim,
    VcsimError,
    find_vcsim,
)
from provisioning.certificate import fetch_certificate
from provisioning.session import about, connect

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def _gone(pid: int) -> bool:
    """Whether the process has exited (a zombie awaiting its parent counts as exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def _wait_gone(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_the_fixture_runs_on_loopback_with_its_own_certificate(vcsim: Vcsim) -> None:
    assert vcsim.host == "127.0.0.1" and vcsim.port > 0 and vcsim.running
    assert vcsim.url == f"https://127.0.0.1:{vcsim.port}/sdk"
    assert fetch_certificate(vcsim.host, vcsim.port, timeout=5).thumbprint_sha256 == vcsim.thumbprint_sha256
    details = json.loads(json.dumps(vcsim.details()))
    assert details["port"] == vcsim.port and details["golden_vm"] == "golden-win11"


def test_the_password_is_not_on_the_command_line(vcsim: Vcsim) -> None:
    assert vcsim.details()["pid"]
    cmdline = Path(f"/proc/{vcsim.details()['pid']}/cmdline").read_bytes()
    assert vcsim.password.encode() not in cmdline


def test_every_start_has_fresh_credentials_and_certificate(vcsim: Vcsim) -> None:
    with Vcsim(build=False) as other:
        assert other.port != vcsim.port
        assert other.password != vcsim.password
        assert other.thumbprint_sha256 != vcsim.thumbprint_sha256
        with connect(
            other.host, other.port, other.username, other.password, thumbprint_sha256=other.thumbprint_sha256
        ) as si:
            assert about(si).api_type == "VirtualCenter"


def test_stop_ends_the_process_frees_the_port_and_removes_the_files() -> None:
    sim = Vcsim(build=False).start()
    pid, port, workdir = sim.details()["pid"], sim.port, sim.workdir
    assert workdir is not None and workdir.is_dir() and _port_open(port)
    sim.stop()
    assert _gone(pid) and not _port_open(port) and not workdir.exists()
    assert not sim.running
    sim.stop()  # idempotent


def test_a_failed_start_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Its own temporary folder: other workers' vcsims come and go in /tmp meanwhile (a glob of /tmp
    # before and after once saw one of theirs appear and another go).
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(VcsimError, match="exited"):
        Vcsim(binary=shutil.which("false") or "/bin/false", start_timeout=5).start()
    assert list(tmp_path.glob("arcvsa-vcsim-*")) == []


def test_vcsim_exits_when_its_parent_dies_without_cleaning_up() -> None:
    # os._exit skips atexit and finally: only vcsim's -stdinexit (its stdin pipe closing) can stop it.
    code = (
        "import json, os, sys\n"
        "from lab.vcsim import Vcsim\n"
        "sim = Vcsim(build=False).start()\n"
        "print(json.dumps(sim.details()), flush=True)\n"
        "os._exit(0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    details = json.loads(out.stdout)
    try:
        assert _wait_gone(details["pid"]), "vcsim outlived its parent"
    finally:
        shutil.rmtree(details["workdir"], ignore_errors=True)


def test_the_hosts_are_the_sizes_the_lab_declares_as_vcenter_reports_them(vcsim: Vcsim) -> None:
    # The appliances' admission check weighs these figures: 128 GiB hosts fit every size, the 24 GiB one
    # no Large appliance.
    assert len(HOST_MEMORY_GIB) == HOST_COUNT
    with connect(
        vcsim.host, vcsim.port, vcsim.username, vcsim.password, thumbprint_sha256=vcsim.thumbprint_sha256
    ) as si:
        index = si.RetrieveContent().searchIndex
        assert index is not None
        cluster = index.FindByInventoryPath(f"{DATACENTER}/host/{CLUSTER}")
        assert isinstance(cluster, vim.ClusterComputeResource)
        hosts = sorted(cluster.host, key=lambda h: h.name)
        assert [h.name for h in hosts] == [f"DC0_C0_H{i}" for i in range(HOST_COUNT)]
        sizes = [(h.summary.hardware.memorySize, h.hardware.memorySize) for h in hosts]
        assert sizes == [(gib * 1024**3, gib * 1024**3) for gib in HOST_MEMORY_GIB]
        for h in hosts:
            hw = h.summary.hardware
            assert (hw.numCpuCores, hw.numCpuThreads) == (HOST_CORES, 2 * HOST_CORES), h.name
        assert cluster.summary.totalMemory == sum(HOST_MEMORY_GIB) * 1024**3


def test_find_vcsim_honours_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("VCSIM", raising=False)
    real = find_vcsim()
    assert Path(real).name == "arcvsa-vcsim", "the lab's simulator with sized hosts, not govmomi's vcsim"
    monkeypatch.setenv("VCSIM", real)
    assert find_vcsim() == real
    monkeypatch.setenv("VCSIM", str(tmp_path / "missing"))
    with pytest.raises(VcsimError, match="VCSIM"):
        find_vcsim()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_the_cli_prints_one_json_line_and_stops_on_a_signal(signum: int) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "lab.vcsim"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        details = json.loads(proc.stdout.readline())
        with connect(
            details["host"],
            details["port"],
            details["username"],
            details["password"],
            thumbprint_sha256=details["thumbprint_sha256"],
        ) as si:
            assert about(si).api_type == "VirtualCenter"
        proc.send_signal(signum)
        assert proc.wait(timeout=15) == 0
        assert _gone(details["pid"]) and not Path(details["workdir"]).exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
