"""A small JSON-over-HTTPS server on 127.0.0.1 with its own self-signed certificate, for lab stand-ins
(a fake Horizon Connection Server, an appliance api's health endpoint)."""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Callable
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from lab.vcsim import write_self_signed
from provisioning.certificate import thumbprint_sha256

#: (method, path with query, headers, body bytes) → (HTTP status, JSON-able answer or None for no body)
Route = Callable[[str, str, Message, bytes], tuple[int, Any]]


class JsonHttpsServer:
    """Serves `route` on a free port until the `with` block ends; `thumbprint` pins its certificate."""

    def __init__(self, folder: Path, route: Route) -> None:
        cert, key = write_self_signed(folder)
        self.thumbprint = thumbprint_sha256(
            x509.load_pem_x509_certificate(cert.read_bytes()).public_bytes(Encoding.DER)
        )

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                status, answer = route(
                    self.command, self.path, self.headers, self.rfile.read(length) if length else b""
                )
                data = b"" if answer is None else json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _serve

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.port: int = self.httpd.server_address[1]
        self.endpoint = f"127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
