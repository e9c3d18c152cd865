"""A TCP relay on 127.0.0.1 that can slow what clients send (an OVA upload over a slow link to vCenter).

Bytes really flow through it to the real server behind (vcsim), TLS untouched end to end: only the pace
of the client-to-server direction changes, and `rate` can be changed while it runs.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from types import TracebackType
from typing import Self

CHUNK = 16 * 1024


class SlowProxy:
    """Relays 127.0.0.1:`port` to `upstream` (host, port); client→server at most `rate` bytes/s (None: free)."""

    def __init__(self, upstream: tuple[str, int], rate: float | None = None) -> None:
        self.upstream, self.rate = upstream, rate
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self._open: list[socket.socket] = []
        self._stop = threading.Event()

    def _pump(self, src: socket.socket, dst: socket.socket, paced: bool) -> None:
        try:
            while data := src.recv(CHUNK):
                if paced and self.rate:
                    time.sleep(len(data) / self.rate)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            self._open += [client, server]
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def __enter__(self) -> Self:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self.listener.close()
        for s in self._open:
            s.close()
