"""The api served over HTTPS as its own process, as in production, for the demo and the e2e tests."""

from __future__ import annotations

import os
import signal
import ssl
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import TracebackType

from lab.daemon import die_with_parent, free_port


class ApiServer:
    """`python -m api` on 127.0.0.1:port with its own data dir; stopped (and reaped) on exit."""

    def __init__(
        self,
        data_dir: Path,
        admin_password: str,
        *,
        port: int = 0,
        web_dist: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.port = port or free_port()
        self.url = f"https://127.0.0.1:{self.port}"
        self._env = {
            **os.environ,
            "ARCVSA_DATA_DIR": str(data_dir),
            "ARCVSA_ADMIN_PASSWORD": admin_password,
        }
        if web_dist:
            self._env["ARCVSA_WEB_DIST"] = str(web_dist)
        self._env.update(env or {})
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60) -> ApiServer:
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "api", "--host", "127.0.0.1", "--port", str(self.port)],
            env=self._env,
            start_new_session=True,
            # Its own session keeps a terminal's Ctrl-C for the caller, who stops it in order; but should
            # the caller be killed outright, the api must not outlive it holding the port.
            preexec_fn=die_with_parent,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"the api exited with {self._proc.returncode} while starting")
            if self._healthy():
                return self
            time.sleep(0.3)
        self.stop()
        raise TimeoutError(f"the api did not answer {self.url}/api/health within {timeout:.0f} s")

    @property
    def pid(self) -> int:
        """The api's process id (it must have been started)."""
        if self._proc is None:
            raise RuntimeError("the api has not been started")
        return self._proc.pid

    def _healthy(self) -> bool:
        cert = self.data_dir / "tls.crt"
        if not cert.exists():
            return False
        # Trust exactly the certificate this server made: no unverified TLS even in the lab.
        ctx = ssl.create_default_context(cafile=str(cert))
        try:
            with urllib.request.urlopen(f"{self.url}/api/health", timeout=2, context=ctx) as r:  # noqa: S310
                return bool(r.status == 200)
        except (OSError, ssl.SSLError):
            return False

    def stop(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            return
        os.killpg(self._proc.pid, signal.SIGTERM)
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self._proc.pid, signal.SIGKILL)
            self._proc.wait(timeout=10)

    def wait(self) -> int:
        assert self._proc is not None
        return self._proc.wait()

    def __enter__(self) -> ApiServer:
        return self.start()

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
