"""Real local servers that answer like the wrong things at an appliance's address: another service's HTTPS
(its own certificate, a 404 or a foreign JSON), plain HTTP on the TLS port, a port that refuses and only
later listens. Each answers over real sockets, so the health wait's classification meets what it would
meet on a network, not a mock that cannot fail."""

from __future__ import annotations

import json
import socket
import ssl
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from lab.daemon import free_port
from lab.vcsim import write_self_signed
from provisioning.certificate import thumbprint_sha256

#: path → (HTTP status, body bytes, content type)
Answer = Callable[[str], tuple[int, bytes, str]]


def certificate(folder: Path, common_name: str, organisation: str) -> tuple[Path, Path, str]:
    """A self-signed certificate for `common_name`, valid a day (cert path, key path, SHA-256 thumbprint)."""
    cert_path, key_path = write_self_signed(
        folder, common_name, organisation=organisation, stem=common_name, days=1
    )
    der = x509.load_pem_x509_certificate(cert_path.read_bytes()).public_bytes(serialization.Encoding.DER)
    return cert_path, key_path, thumbprint_sha256(der)


def json_answer(status: int, body: Any) -> Answer:
    """Every path answers `status` with `body` as JSON."""
    data = json.dumps(body).encode()
    return lambda path: (status, data, "application/json")


class Server:
    """An HTTP(S) server on 127.0.0.1:`port` (a free one by default) answering with `answer`.

    `tls`: (cert, key) to serve HTTPS, None for plain HTTP. `listen_after`: seconds during which the port
    refuses connections before the server binds it (an appliance whose api is not up yet).
    """

    def __init__(
        self,
        answer: Answer,
        *,
        tls: tuple[Path, Path] | None,
        port: int = 0,
        listen_after: float = 0.0,
    ) -> None:
        self.answer, self.tls, self.listen_after = answer, tls, listen_after
        self.port = port or free_port()
        self.endpoint = f"127.0.0.1:{self.port}"
        self.hits = 0
        self.httpd: ThreadingHTTPServer | None = None
        self._timer: threading.Timer | None = None

    def _serve(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.hits += 1
                status, data, kind = server.answer(self.path)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_POST = do_GET

            def log_message(self, *args: object) -> None:
                pass

        httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        if self.tls is not None:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*self.tls)
            httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
        self.httpd = httpd
        threading.Thread(target=httpd.serve_forever, daemon=True).start()

    def __enter__(self) -> Self:
        if self.listen_after > 0:
            self._timer = threading.Timer(self.listen_after, self._serve)
            self._timer.start()
        else:
            self._serve()
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer.join()
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()


class Silent:
    """A port that takes connections into its backlog and never answers: TLS never starts (a frozen boot)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.endpoint = f"127.0.0.1:{self.sock.getsockname()[1]}"

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.sock.close()


def closed_port() -> str:
    """host:port where nothing listens: connections are refused."""
    return f"127.0.0.1:{free_port()}"
