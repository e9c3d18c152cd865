"""`make demo-test`: the newcomer's first hour, as the README tells it.

Starts `make demo`, reads only what it prints (the address, the admin password, vcsim's address, login
and certificate, the lab appliance's password) and hands that text, and nothing else, to
tests/e2e/demo.spec.ts: log in, connect vCenter, deploy a desktop pool on the demo's lab appliance through
the wizard, destroy it, and deploy it again. Screenshots of every step land in web/test-results/demo/.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.lab, pytest.mark.timeout(3600)]

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
BOOTED = re.compile(r"lab appliance up in|the lab appliance did not come up")
BOOT_SECONDS = 900
# "Ctrl-C stops everything": the terminal is back within this, with nothing left listening or running.
STOP_SECONDS = 60


class Demo:
    """`make demo` in its own process group; every line it prints is kept."""

    def __init__(self) -> None:
        make = shutil.which("make")
        assert make, "make is missing"
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self.proc = subprocess.Popen(
            [make, "--no-print-directory", "demo"],
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            print(f"[demo] {line}", end="", flush=True)
            self._queue.put(line)
        self._queue.put(None)

    def wait_for(self, pattern: re.Pattern[str], seconds: float) -> str:
        """The first line matching `pattern`; fails when the demo ends or time runs out first."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                pytest.fail(f"make demo ended ({self.proc.wait()}) before printing {pattern.pattern!r}")
            self.lines.append(line)
            if pattern.search(line):
                return line
        pytest.fail(f"make demo printed no {pattern.pattern!r} within {seconds:.0f} s")

    def unread(self) -> list[str]:
        """The lines printed since the last wait_for, without waiting for more."""
        lines = []
        with contextlib.suppress(queue.Empty):
            while (line := self._queue.get_nowait()) is not None:
                lines.append(line)
        return lines

    def interrupt(self) -> float:
        """Ctrl-C, as a user ends it; seconds until `make demo` ended (it stops the lab appliance, the api
        and vcsim first). Fails if it is still running after STOP_SECONDS."""
        started = time.monotonic()
        os.killpg(self.proc.pid, signal.SIGINT)
        try:
            self.proc.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(
                f"make demo was still running {STOP_SECONDS} s after Ctrl-C; it printed since:\n"
                + "".join(self.unread())
            )
        return time.monotonic() - started

    def stop(self) -> None:
        """Whatever happened, nothing of this demo outlives the test."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=30)


def printed_ports(printed: str) -> dict[str, int]:
    """Every port the demo told the user to use: its web UI, vcsim, and the lab appliance's web and SSH."""
    patterns = {
        "arcvsa": r"arcvsa is up:\s+https://[^:/\s]+:(\d+)",
        "vcsim": r"address \S+\s+port (\d+)",
        "lab appliance web": r"web/api\s+https://127\.0\.0\.1:(\d+)",
        "lab appliance ssh": r"-p (\d+) root@",
    }
    ports = {}
    for name, pattern in patterns.items():
        found = re.search(pattern, printed)
        assert found, f"the demo printed no {name} port"
        ports[name] = int(found.group(1))
    return ports


def listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def processes_of(folder: Path) -> list[str]:
    """Command lines naming `folder` (the lab appliance's qemu and the SAN name their disks in it)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        text = " ".join(arg.decode(errors="replace") for arg in argv)
        if str(folder) in text and "pytest" not in text:
            found.append(f"{cmdline.parent.name}: {text[:200]}")
    return found


def test_the_demo_deploys_destroys_and_deploys_again(capsys: pytest.CaptureFixture[str]) -> None:
    npx = shutil.which("npx")
    assert npx, "npx is missing (make setup)"
    demo = Demo()
    try:
        demo.wait_for(re.compile(r"arcvsa is up:"), 600)
        booted = demo.wait_for(BOOTED, BOOT_SECONDS)
        assert "did not come up" not in booted, booted
        demo.wait_for(re.compile(r"To deploy a desktop pool"), 30)
        printed = "".join(demo.lines)
        url = re.search(r"arcvsa is up:\s+(https://\S+?)/?\s", printed)
        assert url, "the demo printed no address"
        output = WEB / "test-results" / "demo"
        env = {**os.environ, "ARCVSA_URL": url.group(1), "ARCVSA_DEMO_OUTPUT": printed}
        with capsys.disabled():
            argv = [
                npx,
                "--no-install",
                "playwright",
                "test",
                "demo.spec.ts",
                "--reporter=list",
                f"--output={output}",
            ]
            run = subprocess.run(argv, cwd=WEB, env=env, timeout=3000, check=False)
        assert run.returncode == 0, "the Playwright demo journey failed (its output is above)"
        ports = printed_ports(printed)
        seconds = demo.interrupt()
        print(f"Ctrl-C ended make demo in {seconds:.1f} s")
        still = [f"{name} ({port})" for name, port in ports.items() if listening(port)]
        assert not still, f"after Ctrl-C these still answer: {', '.join(still)}"
        leftovers = processes_of(ROOT / "var" / "demo")
        assert not leftovers, "after Ctrl-C these still run:\n" + "\n".join(leftovers)
    finally:
        demo.stop()
