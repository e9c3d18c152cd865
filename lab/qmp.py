"""A minimal QMP client (QEMU's JSON monitor protocol) over a unix socket."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

# How long one step (connect, greeting, a command's reply) may take before the monitor counts as gone.
QMP_SECONDS = 30.0


class QmpError(RuntimeError):
    """QEMU answered a command with an error, or the monitor went away."""


class Qmp:
    """One QMP connection: capabilities negotiated on open, events skipped while waiting for a reply."""

    def __init__(self, path: Path, timeout: float = QMP_SECONDS) -> None:
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        self._sock.connect(str(path))
        self._file = self._sock.makefile("rwb")
        greeting = self._read()
        if "QMP" not in greeting:
            raise QmpError(f"not a QMP greeting: {greeting}")
        self.execute("qmp_capabilities")

    def _read(self) -> dict[str, Any]:
        line = self._file.readline()
        if not line:
            raise QmpError("QMP connection closed")
        message: dict[str, Any] = json.loads(line)
        return message

    def execute(self, command: str, arguments: dict[str, Any] | None = None) -> Any:
        """Run one command and return its ``return`` value."""
        request: dict[str, Any] = {"execute": command}
        if arguments:
            request["arguments"] = arguments
        self._file.write(json.dumps(request).encode() + b"\n")
        self._file.flush()
        while True:
            reply = self._read()
            if "event" in reply:
                continue
            if "error" in reply:
                raise QmpError(f"{command}: {reply['error']}")
            return reply.get("return")

    def close(self) -> None:
        """Close the connection (the QEMU process keeps running)."""
        try:
            self._file.close()
        finally:
            self._sock.close()

    def __enter__(self) -> Qmp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
