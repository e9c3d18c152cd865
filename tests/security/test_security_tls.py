"""The api's TLS as sslyze judges it against Mozilla's "intermediate" profile: the real app, served by
uvicorn with the api's own server context and a certificate as first boot makes it.

The second test is the scan's own check: Python's default server context, same certificate, must fail
it, so a pass above is sslyze's verdict on our settings and not a scan that cannot fail.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
from support.appliance_server import replayed_appliances
from support.security_kit import Tally
from support.sslyze import scan

from appliance.firstboot.tls import self_signed


def test_the_api_passes_mozilla_intermediate(tmp_path: Path, tally: Tally) -> None:
    with replayed_appliances(tmp_path, 1, "fleet", "tls-scan-password") as served:
        server, _runner = served[0]
        cert = tmp_path / "appliance-0" / "data" / "tls.crt"
        result = scan(server.endpoint, cert)
        trust = ssl.create_default_context(cafile=cert)
        health = httpx.get(f"https://{server.endpoint}/api/health", verify=trust, timeout=30)
    tally.add("tls", scans=1, compliant=int(result.compliant), suites=len(result.suites))
    for issue in result.issues:
        tally.note("tls", "issues", issue)
    assert result.compliant, "\n".join(result.issues) or result.output[-3000:]
    assert result.versions == ["TLSv1.2", "TLSv1.3"]
    assert all("GCM" in s or "CHACHA20" in s for s in result.suites), result.suites
    assert result.curves == ["secp256r1"]
    assert health.status_code == 200 and "server" not in health.headers  # no banner for anonymous callers


@contextlib.contextmanager
def _served(context: ssl.SSLContext) -> Iterator[str]:
    """A TLS listener on 127.0.0.1 answering every handshake with ``context``."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def answer() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                conn, _ = listener.accept()
                with (
                    contextlib.suppress(OSError, ssl.SSLError),
                    context.wrap_socket(conn, server_side=True) as tls,
                ):
                    tls.recv(1)

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        listener.close()


def test_the_scan_fails_pythons_default_server_context(tmp_path: Path) -> None:
    cert_pem, key_pem = self_signed("arcvsa", ipaddress.IPv4Address("127.0.0.1"), dt.datetime.now(dt.UTC))
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    cert.write_bytes(cert_pem)
    key.write_bytes(key_pem)
    default = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    default.load_cert_chain(cert, key)
    with _served(default) as endpoint:
        result = scan(endpoint, cert)
    assert not result.compliant
    checks = {issue.removeprefix("* ").split(":")[0] for issue in result.issues}
    assert checks == {"ciphers", "tls_curves"}, result.issues  # CBC suites; X448 and P-521
