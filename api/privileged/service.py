"""The control service's side: a Unix socket answering one call per connection (api.privileged.verbs),
each on a thread of its own, only to the users allowed (the kernel's word for who connected, not the
caller's).

The socket's folder and mode keep everyone else from connecting; the peer's uid is checked all the same,
so a mode set wrong does not open root's verbs to every local user.
"""

from __future__ import annotations

import logging
import os
import socket
import socketserver
import struct
import threading
from pathlib import Path

from api.privileged import verbs, wire
from api.privileged.host import Host
from appliance.control.errors import Refused

log = logging.getLogger(__name__)

CALL_WITHIN = 10.0  # a connection must send its call within this (a stuck client holds no thread)
PEERCRED = struct.Struct("3i")  # pid, uid, gid (struct ucred)


def peer_uid(conn: socket.socket) -> int:
    _, uid, _ = PEERCRED.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, PEERCRED.size))
    return uid


class Server:
    """Answers calls on ``path`` from ``allowed`` uids with the verbs run on ``host``."""

    def __init__(
        self, path: Path, host: Host, allowed: frozenset[int], *, group: int | None = None, mode: int = 0o660
    ) -> None:
        """``group``: the socket's, so that the caller's group may connect (the folder is open to all)."""
        self.path, self.host, self.allowed = path, host, allowed
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.unlink(missing_ok=True)  # a previous run's, whose process is gone
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                outer.answer(self.request)

        self._server = socketserver.ThreadingUnixStreamServer(str(path), Handler)
        self._server.daemon_threads = True
        if group is not None:
            os.chown(path, -1, group)
        os.chmod(path, mode)
        self._thread = threading.Thread(target=self._server.serve_forever, name="control", daemon=True)

    def start(self) -> Server:
        self._thread.start()
        log.info("answering the api's calls on %s", self.path)
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self.path.unlink(missing_ok=True)

    def answer(self, conn: socket.socket) -> None:
        conn.settimeout(CALL_WITHIN)
        try:
            line = wire.read_line(conn)  # first: a socket closed on unread data resets, losing the answer
        except (OSError, wire.Broken) as exc:  # a timeout, a reset, a call over the size allowed
            log.warning("dropped a call on %s: %s", self.path, exc or "no call within the time allowed")
            return
        uid = peer_uid(conn)
        if uid not in self.allowed:
            log.warning("refused a call from uid %d on %s", uid, self.path)
            conn.sendall(wire.error(Refused(f"uid {uid} may not ask the control service")))
            return
        conn.settimeout(None)
        try:
            answer = verbs.handle(self.host, line)
        except Exception as exc:  # the caller gets it as a failure without a type; its trace is here
            log.exception("a call on %s failed", self.path)
            answer = wire.error(exc)
        try:
            conn.sendall(answer)
        except OSError as exc:  # the caller went away (its own timeout); the verb's work stands
            log.warning("the caller left before its answer: %s", exc)
