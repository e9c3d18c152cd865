"""Calls over the system bus with ``dbus-send --print-reply`` and a parser for its typed output.

dbus-send prints one value per line (``uint16 101``, ``string "/t1/ds"``, ``boolean false``) with
``struct {`` / ``array [`` nesting; we read that back into lists (structs, arrays) and Python scalars.
"""

from __future__ import annotations

import re
from typing import Any

from appliance.control.errors import BadOutput
from appliance.control.gateway import Gateway, Rules

INTS = {"byte", "int16", "uint16", "int32", "uint32", "int64", "uint64"}
SCALAR = re.compile(r"(\w+) (.*)")


def call(
    gw: Gateway,
    dest: str,
    path: str,
    method: str,
    *args: str,
    rules: Rules = (),
    timeout: float = 30.0,
) -> list[Any]:
    """Call ``method`` (interface.Method) with typed args ("uint16:101"); return the parsed reply values."""
    argv = ["dbus-send", "--system", "--print-reply", f"--dest={dest}", path, method, *args]
    result = gw.run(argv, rules=rules, timeout=timeout)
    return parse(result.stdout)


def _scalar(kind: str, raw: str) -> Any:
    if kind in INTS:
        return int(raw)
    if kind == "double":
        return float(raw)
    if kind == "boolean":
        return raw == "true"
    if kind in {"string", "object"} or kind == "object path":
        return raw[1:-1] if raw.startswith('"') else raw
    raise BadOutput(f"dbus-send: unknown type {kind!r}")


def parse(stdout: str) -> list[Any]:
    """Values of a ``--print-reply`` answer (the 'method return' header line is skipped)."""
    stack: list[list[Any]] = [[]]
    for line in stdout.splitlines():
        text = line.strip()
        if not text or text.startswith("method return"):
            continue
        if text in ("struct {", "array ["):
            stack.append([])
        elif text in ("}", "]"):
            if len(stack) < 2:
                raise BadOutput("dbus-send: unbalanced output")
            done = stack.pop()
            stack[-1].append(done)
        elif text.startswith("object path "):
            stack[-1].append(_scalar("object", text[len("object path ") :]))
        else:
            match = SCALAR.fullmatch(text)
            if not match:
                raise BadOutput(f"dbus-send: cannot read {text!r}")
            stack[-1].append(_scalar(match.group(1), match.group(2)))
    if len(stack) != 1:
        raise BadOutput("dbus-send: unbalanced output")
    return stack[0]
