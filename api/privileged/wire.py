"""What crosses between the api and the control service: one call and its answer, each a line of JSON.

A call names a verb (a function of the fixed set in api.privileged.verbs) and gives its arguments, each
serialised by the type the verb declares for it; the answer is the verb's value, serialised by its return
type, or the typed error it raised. The error comes back as the same class with the same message and
fields, so the api answers it as if the verb had run in its own process (api.errors' one table).
"""

from __future__ import annotations

import inspect
import json
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any, get_type_hints

from pydantic import SecretBytes, SecretStr, TypeAdapter, ValidationError

from api.errors import ERROR_TABLE, ApiError
from appliance.control.errors import ControlError, InvalidRequest, SystemFault

MAX_LINE = 16 << 20  # a call or an answer; the largest is a restore's backup file (8 MiB, in base64)


class Broken(SystemFault):
    """The control service answered something that is not an answer (another version's, or cut short)."""


class Failed(SystemFault):
    """A verb failed in the control service with an error that has no type of its own (its journal says
    why); nothing is known of what it changed."""


@dataclass(frozen=True)
class Signature:
    """A verb's declared argument types and return type, as pydantic adapters."""

    name: str
    parameters: inspect.Signature
    arguments: dict[str, TypeAdapter[Any]]
    answer: TypeAdapter[Any]


def name_of(verb: Callable[..., Any]) -> str:
    return f"{verb.__module__}:{verb.__qualname__}"


@cache
def signature(verb: Callable[..., Any]) -> Signature:
    """The verb's types; its first parameter is the host the service gives it, never sent."""
    hints = get_type_hints(verb)
    parameters = inspect.signature(verb)
    names = list(parameters.parameters)[1:]
    return Signature(
        name=name_of(verb),
        parameters=parameters,
        arguments={name: TypeAdapter(hints[name]) for name in names},
        answer=TypeAdapter(hints["return"]),
    )


def call(verb: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes:
    """The line that asks for ``verb(host, *args, **kwargs)``."""
    sig = signature(verb)
    bound = sig.parameters.bind(None, *args, **kwargs)
    bound.apply_defaults()
    sent = {name: _json(sig.arguments[name], value) for name, value in list(bound.arguments.items())[1:]}
    return _line({"verb": sig.name, "args": sent})


def arguments(verb: Callable[..., Any], sent: object) -> dict[str, Any]:
    """The call's arguments, validated by the verb's own types (refused as an invalid request)."""
    sig = signature(verb)
    if not isinstance(sent, dict) or set(sent) != set(sig.arguments):
        given = sorted(sent) if isinstance(sent, dict) else type(sent).__name__
        raise InvalidRequest(f"{sig.name} takes {sorted(sig.arguments)}, not {given}")
    found = {}
    for name, value in sent.items():
        try:
            found[name] = sig.arguments[name].validate_python(value)
        except ValidationError as exc:
            raise InvalidRequest(f"{sig.name}: {name}: {exc.errors()[0]['msg']}") from None
    return found


def answer(verb: Callable[..., Any], value: object) -> bytes:
    return _line({"answer": _json(signature(verb).answer, value)})


def error(exc: Exception) -> bytes:
    """The line that carries ``exc``: its class, message and the fields it was given."""
    fields = {k: v for k, v in vars(exc).items() if _plain(v)}
    return _line({"error": {"type": name_of(type(exc)), "message": str(exc), "fields": fields}})


def parse_call(line: bytes) -> tuple[str, object]:
    found = _parse(line)
    verb, args = found.get("verb"), found.get("args")
    if not isinstance(verb, str):
        raise InvalidRequest("a call names its verb")
    return verb, args


def parse_answer(verb: Callable[..., Any], line: bytes) -> Any:
    """The verb's value; its error raised as the class it was raised as."""
    found = _parse(line)
    if "error" in found:
        raise _rebuilt(found["error"])
    if "answer" not in found:
        raise Broken(f"the control service's answer to {name_of(verb)} has neither a value nor an error")
    try:
        return signature(verb).answer.validate_python(found["answer"])
    except ValidationError as exc:
        raise Broken(f"the control service's answer to {name_of(verb)} is not its type: {exc}") from None


def _rebuilt(carried: object) -> Exception:
    if not isinstance(carried, dict) or not isinstance(carried.get("message"), str):
        return Broken(f"the control service's error is not one: {carried!r:.200}")
    cls = _carried_types().get(str(carried.get("type")))
    if cls is None:
        return Failed(f"the control service failed: {carried['message']}")
    exc = cls.__new__(cls)
    Exception.__init__(exc, carried["message"])
    fields = carried.get("fields")
    if isinstance(fields, dict):
        exc.__dict__.update(fields)
    return exc


def carried(exc: Exception) -> bool:
    """Whether ``exc`` comes back as itself (else as :class:`Failed`, and its service logs it)."""
    return name_of(type(exc)) in _carried_types()


def _carried_types() -> dict[str, type[Exception]]:
    """The errors that come back as themselves: the typed ones the api's table answers."""
    found: dict[str, type[Exception]] = {}
    for root in (ControlError, ApiError, *ERROR_TABLE):
        for cls in _with_subclasses(root):
            found[name_of(cls)] = cls
    return found


def _with_subclasses(cls: type[Exception]) -> Iterator[type[Exception]]:
    yield cls
    for sub in cls.__subclasses__():
        yield from _with_subclasses(sub)


def _json(adapter: TypeAdapter[Any], value: object) -> Any:
    """``value`` as JSON by its type, a secret's value included: pydantic's JSON masks secrets, and a
    CHAP secret or a password must reach the verb that applies it (the line goes nowhere else)."""
    return _revealed(adapter.dump_python(value, mode="python"), adapter.dump_python(value, mode="json"))


def _revealed(python: object, json_: object) -> object:
    """``json_`` with each secret the Python form holds at the same place put back as itself."""
    if isinstance(python, SecretStr):
        return python.get_secret_value()
    if isinstance(python, SecretBytes):
        return python.get_secret_value().decode()
    if isinstance(python, dict) and isinstance(json_, dict):
        return {k: _revealed(python.get(k), v) for k, v in json_.items()}
    if isinstance(python, list | tuple) and isinstance(json_, list) and len(python) == len(json_):
        return [_revealed(p, j) for p, j in zip(python, json_, strict=True)]
    return json_


def _plain(value: object) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def _parse(line: bytes) -> dict[str, Any]:
    try:
        found = json.loads(line)
    except ValueError:
        raise Broken(f"not a line of JSON ({len(line)} bytes)") from None
    if not isinstance(found, dict):
        raise Broken(f"not a JSON object ({len(line)} bytes)")
    return found


def read_line(conn: socket.socket) -> bytes:
    """Up to and with the first newline, or what came before the end (then without one)."""
    got = bytearray()
    while not got.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        got += chunk
        if len(got) > MAX_LINE:
            raise Broken(f"a call or answer over {MAX_LINE} bytes")
    return bytes(got)
