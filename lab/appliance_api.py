"""The lab appliance's api from the host: its certificate pinned on first contact, health, login.

First boot makes a self-signed certificate per appliance; the lab has no CA to check it against, so
it pins the one it sees first (saved in the lab folder) and refuses any other afterwards. The HTTPS
exchange itself is provisioning.appliance_api's (the fleet talks to real appliances the same way).
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from lab import console as vmconsole
from provisioning.appliance_api import ApplianceApi as PinnedApi
from provisioning.appliance_errors import ApplianceApiError
from provisioning.certificate import thumbprint_sha256


class ApiError(RuntimeError):
    """The appliance's api answered with an error status, or not at all."""


class ApplianceApi:
    """HTTPS to 127.0.0.1:<port> (a forward to the guest's 443) with a pinned certificate."""

    def __init__(self, port: int, cert_file: Path, timeout: float = 30.0) -> None:
        self.port = port
        self.cert_file = cert_file
        self.timeout = timeout

    def pin(self) -> None:
        """Save the certificate the appliance presents now (trust on first use)."""
        pem = ssl.get_server_certificate(("127.0.0.1", self.port), timeout=self.timeout)
        self.cert_file.write_text(pem, encoding="ascii")

    def _client(self, token: str | None) -> PinnedApi:
        # The pin is the saved certificate's SHA-256; the certificate names the appliance, not the forward.
        der = x509.load_pem_x509_certificate(self.cert_file.read_bytes()).public_bytes(Encoding.DER)
        client = PinnedApi(f"127.0.0.1:{self.port}", thumbprint_sha256(der), timeout=self.timeout)
        client.token = token
        return client

    def request(
        self, method: str, path: str, body: dict[str, Any] | None = None, token: str | None = None
    ) -> tuple[int, Any]:
        """(status, decoded JSON body)."""
        try:
            return self._client(token).exchange(method, path, body)
        except ApplianceApiError as exc:  # refused, reset, TLS, wrong certificate: typed appliance faults
            raise ApiError(f"{method} {path}: {exc}") from exc

    def health(self) -> dict[str, Any]:
        status, data = self.request("GET", "/api/health")
        if status != 200:
            raise ApiError(f"/api/health answered {status}: {data}")
        return dict(data)

    def token(self, username: str, password: str) -> str:
        """A bearer token for the admin (raises ApiError on a wrong password)."""
        status, data = self.request("POST", "/api/auth/token", {"username": username, "password": password})
        if status != 200:
            raise ApiError(f"login as {username} answered {status}: {data}")
        return str(data["token"])

    def wait_health(
        self,
        started_at: float,
        timeout: float,
        check: Callable[[], None] | None = None,
        console: Path | None = None,
    ) -> tuple[float, dict[str, Any]]:
        """Wait until /api/health answers; pins the certificate on first contact. Returns (seconds since
        ``started_at`` (monotonic), health). ``check`` raises to stop the wait (qemu ended, the guest
        panicked: ApplianceVm.check); a timeout's error ends with ``console``'s last lines."""
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            if check is not None:
                check()
            try:
                if not self.cert_file.is_file():
                    self.pin()
                health = self.health()
                return time.monotonic() - started_at, health
            except (OSError, ApiError, ssl.SSLError) as exc:
                last = str(exc)
            time.sleep(2)
        ends = f"; console ends:\n{vmconsole.tail(console)}" if console is not None else ""
        raise ApiError(f"no api health within {timeout:.0f} s (last: {last}){ends}")
