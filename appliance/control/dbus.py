"""Calls over the system bus with systemd's ``busctl --json=short``: a typed reply as JSON.

busctl prints a reply as ``{"type": "<signature>", "data": [...]}``: structs and arrays are JSON arrays,
integers, booleans and strings JSON's own, so nothing of a human format is parsed here. A method that
answers nothing prints nothing. A refusal goes to stderr as ``Call failed: <the service's message>``,
which the caller's rules type.
"""

from __future__ import annotations

import json
from typing import Any

from appliance.control.errors import BadOutput
from appliance.control.gateway import Gateway, Rules


def call(
    gw: Gateway,
    dest: str,
    path: str,
    method: str,
    signature: str = "",
    *args: str | int,
    rules: Rules = (),
    timeout: float = 30.0,
) -> list[Any]:
    """Call ``method`` (interface.Member) with ``args`` of D-Bus ``signature`` ("q", "ss"); return the
    reply's values (empty for a method that answers nothing)."""
    interface, _, member = method.rpartition(".")
    if not interface or not member:
        raise ValueError(f"not interface.Member: {method!r}")
    if len(args) != len(signature):  # one argument per basic type: no containers are sent
        raise ValueError(f"{method}: signature {signature!r} for {len(args)} argument(s)")
    argv = ["busctl", "--system", "--json=short", f"--timeout={timeout:g}s", "call", dest, path]
    argv += [interface, member, *([signature, *(str(a) for a in args)] if signature else [])]
    result = gw.run(argv, rules=rules, timeout=timeout + 5)
    return parse(result.stdout)


def parse(stdout: str) -> list[Any]:
    """The values of one busctl JSON reply; empty when the method answered nothing."""
    if not stdout.strip():
        return []
    try:
        reply = json.loads(stdout)
    except json.JSONDecodeError as exc:
        raise BadOutput(f"busctl: not a JSON reply: {stdout[:200]!r}") from exc
    if not isinstance(reply, dict) or not isinstance(reply.get("data"), list) or "type" not in reply:
        raise BadOutput(f"busctl: a reply without type and data: {stdout[:200]!r}")
    return reply["data"]
