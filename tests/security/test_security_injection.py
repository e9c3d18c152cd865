"""Injection attempts in every name that reaches zfs, zpool, ganesha/knfsd or targetcli: 422, no command.

The fields come from the app's OpenAPI: every string (and every map key) in the path and body of each
operation that drives the appliance's tools is a name here, except enums. Each gets shell, option and
path tricks, appended to a good value and on their own; the answer must be 422 and the strict replay
must have seen no command at all during that request. A good value must be known for every such field
(GOOD below), so a new field is either given one or the test fails: none is skipped silently. Each
operation's baseline (all good values) must pass validation, so a 422 is the injected field's.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from support.security_kit import Api, Tally

from api.openapi import document

OPENAPI: dict[str, Any] = document()
# Operations whose input reaches the storage tools (argv, ganesha's config, LIO) — by path prefix.
TOOL_PREFIXES = ("/api/storage/", "/api/tuning/parameters", "/api/calibrations")
LUN0, LUN1 = "/dev/disk/by-id/virtio-lun0", "/dev/disk/by-id/virtio-lun1"
# A good value per field, by its last name in the path ({x} for a path parameter, <key> for a map key).
GOOD: dict[str, Any] = {
    "name": "tank/ds",
    "{name}": "tank",
    "{pool_id}": "4958685680270539150",
    "data.[]": LUN0,
    "log.[]": LUN1,
    "cache.[]": LUN1,
    "spares.[]": LUN1,
    "devices.[]": LUN1,
    "old": LUN0,
    "new": LUN1,
    "path": LUN0,
    "confirm": "virtio-lun0",  # the wipe's typed disk name: compared, never passed to a tool
    "volblocksize": "16K",
    "snapshot": "tank/ds@golden",
    "target": "tank/clone",
    "dataset": "tank/ds",
    "clients.[]": "10.0.2.2",
    "iqn": "iqn.2026-01.org.arcvsa:tank-lun0",
    "{iqn}": "iqn.2026-01.org.arcvsa:tank-lun0",
    "zvol": "tank/lun0",
    "initiators.[]": "iqn.1998-01.com.vmware:esxi-01",
    "chap.user": "esxi",
    "chap.secret": "lab-only-secret-1",
    "params.<key>": "zfs_txg_timeout",
    "target.name": "tank/ds",
    "properties.<key>": "compression",
    "properties.<value>": "lz4",
    "profile.read_bssplit": "4k/100",
    "profile.write_bssplit": "4k/100",
}
# Per operation, where one name means another thing (a snapshot's path parameter is pool/ds@snap).
GOOD_FOR: dict[tuple[str, str], Any] = {
    ("/api/storage/datasets/{name}", "{name}"): "tank/ds",
    ("/api/storage/snapshots/{name}", "{name}"): "tank/ds@golden",
    ("/api/storage/volumes", "name"): "tank/lun0",
    ("/api/storage/snapshots", "name"): "tank/ds@golden",
    ("/api/storage/pools", "name"): "tank",
    ("/api/storage/imports/{pool_id}", "name"): "tank",
}
TRICKS = [
    ";reboot",
    "$(reboot)",
    "`reboot`",
    "|reboot",
    "&&reboot",
    "\nreboot",
    " -o mountpoint=/",
    "'",
    '"',
    "\\",
    ">x",
    "*",
    "\t",
    "%s%n",
]
# Optional fields left out of the baseline: ids the api picks itself when none is given.
NOT_SENT = {"export_id"}
ALONE = ["-f", "--help", "", " "]  # instead of the value: options and blanks
BODY_ONLY = ["/../../etc/shadow"]  # "/" would route elsewhere in a path parameter


@dataclass(frozen=True)
class Field:
    path: tuple[str, ...]  # ("{name}",) for a path parameter, ("chap", "user"), ("clients", "[]") ...

    @property
    def key(self) -> str:
        tail = [p for p in self.path]
        # the last named part with what follows it: 'clients.[]', 'chap.user', 'params.<key>'
        named = [i for i, p in enumerate(tail) if p not in ("[]", "<key>", "<value>")]
        start = max(0, named[-1] - 1) if named else 0
        last = ".".join(tail[named[-1] :]) if named else ".".join(tail)
        two = ".".join(tail[start:])
        return two if two in GOOD else last


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = OPENAPI["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _strings(schema: dict[str, Any], path: tuple[str, ...]) -> Iterator[Field]:
    schema = _resolve(schema)
    for variant in schema.get("anyOf", []) + schema.get("oneOf", []) + schema.get("allOf", []):
        yield from _strings(variant, path)
    kind = schema.get("type")
    if kind == "object":
        for name, sub in schema.get("properties", {}).items():
            yield from _strings(sub, (*path, name))
        extra = schema.get("additionalProperties")
        if extra is True or isinstance(extra, dict):  # a map: its keys (and free values) are names too
            yield Field((*path, "<key>"))
            yield from _strings(extra if isinstance(extra, dict) else {"type": "string"}, (*path, "<value>"))
    elif kind == "array":
        yield from _strings(schema.get("items", {}), (*path, "[]"))
    elif kind == "string" and "enum" not in schema and "const" not in schema:
        yield Field(path)


def _example(schema: dict[str, Any], path: tuple[str, ...], op: str) -> Any:
    """A valid value for a schema: good values for names, the first enum, small numbers."""
    schema = _resolve(schema)
    variants = [
        v for v in schema.get("anyOf", []) + schema.get("oneOf", []) if _resolve(v).get("type") != "null"
    ]
    if variants:
        return _example(variants[0], path, op)
    if "allOf" in schema:
        return _example(schema["allOf"][0], path, op)
    kind = schema.get("type")
    if "enum" in schema or "const" in schema:
        return schema.get("enum", [schema.get("const")])[0]
    if kind == "object":
        out: dict[str, Any] = {}
        # every property, optional ones too: each must be there for its own injection
        for name, sub in schema.get("properties", {}).items():
            if name not in NOT_SENT:
                out[name] = _example(sub, (*path, name), op)
        extra = schema.get("additionalProperties")
        if extra is True or isinstance(extra, dict):  # one entry, so its key and value can be tried
            value = extra if isinstance(extra, dict) and extra else {"type": "string"}
            out[_good(Field((*path, "<key>")), op)] = _example(value, (*path, "<value>"), op)
        return out
    if kind == "array":
        return [_example(schema.get("items", {}), (*path, "[]"), op)]
    if kind == "string":
        return _good(Field(path), op)
    if "default" in schema and kind in ("integer", "number", "boolean"):
        return schema["default"]
    if kind == "integer":
        return max(int(schema.get("minimum", 1)), 64 << 20 if "size" in path[-1] else 5)
    if kind == "number":
        return float(schema.get("minimum", 1))
    if kind == "boolean":
        return False
    return None


def _good(field: Field, op: str) -> Any:
    key = field.key
    if (op, key) in GOOD_FOR:
        return GOOD_FOR[(op, key)]
    assert key in GOOD, f"{op}: field {'.'.join(field.path)} has no good value in GOOD: classify it"
    return GOOD[key]


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    spec: dict[str, Any]

    @property
    def params(self) -> dict[str, dict[str, Any]]:
        return {p["name"]: p["schema"] for p in self.spec.get("parameters", []) if p["in"] == "path"}

    @property
    def body(self) -> dict[str, Any] | None:
        content = self.spec.get("requestBody", {}).get("content", {}).get("application/json")
        return content["schema"] if content else None

    def fields(self) -> list[Field]:
        out = [f for name, s in self.params.items() for f in _strings(s, (f"{{{name}}}",))]
        if self.body is not None:
            out += list(_strings(self.body, ()))
        return list(dict.fromkeys(out))


def _operations() -> list[Operation]:
    return [
        Operation(method.upper(), path, spec)
        for path, ops in OPENAPI["paths"].items()
        if path.startswith(TOOL_PREFIXES)
        for method, spec in ops.items()
        if method != "get"
    ]


def _set(value: Any, path: tuple[str, ...], new: str) -> Any:
    """``value`` with the string at ``path`` replaced by ``new`` (for a map key: the key renamed)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if head == "[]":
        return [_set(value[0], rest, new)]
    if head == "<key>":
        (key, item), *_ = value.items()
        return {new: item}
    if head == "<value>":
        (key, item), *_ = value.items()
        return {key: _set(item, rest, new)}
    return {**value, head: _set(value[head], rest, new)}


def _get(value: Any, path: tuple[str, ...]) -> Any:
    for head in path:
        value = (
            value[0]
            if head == "[]"
            else next(iter(value))
            if head == "<key>"
            else (next(iter(value.values())) if head == "<value>" else value[head])
        )
    return value


def _request(api: Api, op: Operation, params: dict[str, str], body: Any) -> tuple[int, dict[str, Any]]:
    url = op.path
    for name, value in params.items():
        url = url.replace(f"{{{name}}}", urllib.parse.quote(value, safe="/@:"))
    r = api.client.request(op.method, url, json=body, headers=api.auth)
    try:
        data = r.json()
    except ValueError:
        data = {}
    return r.status_code, data if isinstance(data, dict) else {}


OPERATIONS = _operations()


def test_the_table_covers_every_tool_operation_with_a_name() -> None:
    assert len([op for op in OPERATIONS if op.fields()]) >= 15
    names = {".".join(f.path) for op in OPERATIONS for f in op.fields()}
    assert {"name", "{name}", "iqn", "clients.[]", "initiators.[]", "chap.secret", "snapshot"} <= names


@pytest.mark.parametrize(
    "op", [op for op in OPERATIONS if op.fields()], ids=lambda op: f"{op.method} {op.path}"
)
def test_injection_in_every_name_is_422_before_any_command(op: Operation, api: Api, tally: Tally) -> None:
    params = {name: str(_example(s, (f"{{{name}}}",), op.path)) for name, s in op.params.items()}
    body = _example(op.body, (), op.path) if op.body is not None else None
    before = len(api.runner.calls)
    status, data = _request(api, op, params, body)
    ran = len(api.runner.calls) > before
    before = len(api.runner.calls)
    assert status != 422 or ran or data.get("code") != "invalid_input", (
        f"{op.method} {op.path}: the baseline itself is refused: {data}"
    )
    accepted: list[str] = []
    for field in op.fields():
        in_path = field.path[0].startswith("{")
        good = params[field.path[0][1:-1]] if in_path else _get(body, field.path)
        tricks = [str(good) + t for t in TRICKS] + ALONE + ([] if in_path else BODY_ONLY)
        if in_path:  # a '/' or a control character in a URL path never reaches the route at all
            tricks = [
                t for t in tricks if t.strip() and t.isprintable() and "/" not in t.replace(str(good), "", 1)
            ]
        for trick in tricks:
            if in_path:
                status, data = _request(api, op, {**params, field.path[0][1:-1]: trick}, body)
            else:
                status, data = _request(api, op, params, _set(body, field.path, trick))
            calls = len(api.runner.calls)
            ran, before = calls > before, calls
            tally.add("injection", attempts=1)
            if status == 422 and not ran:
                tally.add("injection", refused_no_command=1)
            else:
                where = ".".join(field.path)
                tally.add("injection", accepted=1)
                tally.note(
                    "injection",
                    "accepted_examples",
                    f"{op.method} {op.path} {where}={trick!r} → {status}{' (ran a command)' if ran else ''}",
                )
                accepted.append(
                    f"{where}={trick!r} → {status} {data.get('code')}{' + a command ran' if ran else ''}"
                )
    tally.add("injection", operations=1, fields=len(op.fields()))
    assert not accepted, f"{op.method} {op.path}: {len(accepted)} not refused: {accepted[:5]}"
