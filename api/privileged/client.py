"""The api's side: ``control(verb, *args)`` asks the control service for ``verb(host, *args)`` and
returns its value or raises its typed error, as if the verb had run here.

:class:`OverSocket` on an appliance (its unit names the socket); :class:`InProcess` where there is none
(the tests, a developer's machine), handling the same lines in this process.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from api.auth import principals
from api.privileged import verbs, wire
from api.privileged.host import Host
from appliance.control.errors import ServiceDown, SystemFault

P = ParamSpec("P")
R = TypeVar("R")

# The service restarting (with the api, after an upgrade or a crash) takes its Python imports' time and,
# under emulation, tens of seconds: a change asked meanwhile waits for it rather than failing.
CONNECT_WITHIN = 60.0
# A verb's tools each have their own timeout; this only bounds a service that stopped answering.
ANSWER_WITHIN = 3600.0
SERVICE = "arcvsa-metrics.service"


class Control(Protocol):
    def __call__(
        self, verb: Callable[Concatenate[Host, P], R], /, *args: P.args, **kwargs: P.kwargs
    ) -> R: ...


class InProcess:
    """The verbs run in this process, their calls and answers serialised all the same."""

    def __init__(self, host: Host) -> None:
        self.host = host

    def __call__(self, verb: Callable[Concatenate[Host, P], R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        answer: R = wire.parse_answer(verb, verbs.handle(self.host, wire.call(verb, args, kwargs)))
        return answer


class OverSocket:
    """The control service at ``path`` (a Unix socket)."""

    def __init__(
        self, path: Path, *, connect_within: float = CONNECT_WITHIN, answer_within: float = ANSWER_WITHIN
    ) -> None:
        self.path = path
        self.connect_within, self.answer_within = connect_within, answer_within

    def __call__(self, verb: Callable[Concatenate[Host, P], R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return self._call(verb, wire.call(verb, args, kwargs))
        finally:
            # The service may have written the users or their sessions (a restore does), through a process
            # whose writes this one's cache of resolved sessions cannot see: it forgets them.
            principals.cache.moved()

    def _call(self, verb: Callable[..., R], line: bytes) -> R:
        with self._connect() as conn:
            conn.settimeout(self.answer_within)
            try:
                conn.sendall(line)
                answer = wire.read_line(conn)
            except TimeoutError:
                raise SystemFault(
                    f"the control service ({SERVICE}) gave no answer to {wire.name_of(verb)} within"
                    f" {self.answer_within:.0f} s; the storage pages show what it changed"
                ) from None
            except OSError as exc:
                raise _cut(verb, exc) from None
        if not answer.endswith(b"\n"):
            raise _cut(verb, None)
        found: R = wire.parse_answer(verb, answer)
        return found

    def _connect(self) -> socket.socket:
        deadline = time.monotonic() + self.connect_within
        while True:
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                conn.connect(str(self.path))
                return conn
            except (FileNotFoundError, ConnectionRefusedError) as exc:
                conn.close()
                if time.monotonic() >= deadline:
                    raise ServiceDown(
                        f"the control service ({SERVICE}) is not running: no change to the storage can be"
                        f" made until it is ({exc.strerror})"
                    ) from None
                time.sleep(0.1)
            except PermissionError:
                conn.close()
                raise SystemFault(
                    f"the api may not reach the control service ({SERVICE}) at {self.path}: the socket's"
                    " group is not the api's; no change to the storage can be made"
                ) from None
            except BaseException:
                conn.close()
                raise


def _cut(verb: Callable[..., Any], exc: OSError | None) -> SystemFault:
    why = f" ({exc.strerror or exc})" if exc is not None else ""
    return SystemFault(
        f"the control service ({SERVICE}) ended before it answered {wire.name_of(verb)}{why}: whether the"
        " change was made is not known; the storage pages show what it did"
    )
