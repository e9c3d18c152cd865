"""Check JSON values against the schemas of an OpenAPI 3.0 document (the subset the Horizon spec uses).

Fails closed: a schema keyword that would change the verdict and that this checker does not implement
(oneOf, anyOf, not, ...) raises NotImplementedError instead of letting a value through. With `strict`
(the default) objects may not carry properties their schema does not declare: the schema allows them, but
a real server ignores them silently, which hides a misspelt field; the stricter check catches it.
"""

from __future__ import annotations

import re
from typing import Any

#: keywords that only annotate (no effect on validity)
ANNOTATIONS = frozenset(
    {"description", "example", "examples", "format", "deprecated", "default", "title", "writeOnly", "readOnly",
     "discriminator", "xml", "externalDocs", "version"}
)  # fmt: skip
CHECKED = frozenset(
    {"type", "enum", "$ref", "properties", "items", "required", "minimum", "maximum", "uniqueItems", "maxLength",
     "minLength", "pattern", "additionalProperties", "allOf", "nullable", "minItems", "maxItems"}
)  # fmt: skip
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}


class OpenApiChecker:
    def __init__(self, document: dict[str, Any], *, strict: bool = True) -> None:
        self.doc = document
        self.strict = strict
        self._paths = [
            (re.compile("^" + re.sub(r"\{[^/]+\}", "[^/]+", p) + "$"), p) for p in document.get("paths", {})
        ]

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            ref = schema["$ref"]
            if not ref.startswith("#/"):
                raise NotImplementedError(f"external $ref {ref}")
            node: Any = self.doc
            for part in ref[2:].split("/"):
                node = node[part]
            schema = node
        return schema

    def operation(self, method: str, path: str) -> tuple[str, dict[str, Any]] | None:
        """(path template, operation object) for a request path (without the server's /rest prefix)."""
        for pattern, template in self._paths:
            if pattern.match(path):
                op = self.doc["paths"][template].get(method.lower())
                if op is not None:
                    return template, op
        return None

    def errors(
        self, schema: dict[str, Any], value: Any, where: str = "$", *, part: bool = False
    ) -> list[str]:
        """Every way `value` breaks `schema`, as 'path: reason' lines; empty when it conforms.

        `part`: `schema` is one member of an allOf, so properties of the other members are not extra.
        """
        schema = self.resolve(schema)
        unknown = set(schema) - ANNOTATIONS - CHECKED
        if unknown - {k for k in unknown if k.startswith("x-")}:
            raise NotImplementedError(f"{where}: schema keywords {sorted(unknown)} are not checked")
        if value is None:
            return [] if schema.get("nullable") else [f"{where}: null is not allowed"]
        out: list[str] = []
        for member in schema.get("allOf", []):
            out += self.errors(member, value, where, part=True)
        kind = schema.get("type")
        if kind:
            ok = isinstance(value, _TYPES[kind]) and not (
                kind in ("integer", "number") and isinstance(value, bool)
            )
            if not ok:
                return [*out, f"{where}: expected {kind}, got {type(value).__name__}"]
        if "enum" in schema and value not in schema["enum"]:
            out.append(f"{where}: {value!r} is not one of {schema['enum']}")
        if isinstance(value, str):
            out += self._string(schema, value, where)
        if isinstance(value, int | float) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                out.append(f"{where}: {value} is below the minimum {schema['minimum']}")
            if "maximum" in schema and value > schema["maximum"]:
                out.append(f"{where}: {value} is above the maximum {schema['maximum']}")
        if isinstance(value, list):
            out += self._array(schema, value, where)
        if isinstance(value, dict):
            out += self._object(schema, value, where, strict=self.strict and not part)
        return out

    def _string(self, schema: dict[str, Any], value: str, where: str) -> list[str]:
        out = []
        if "minLength" in schema and len(value) < schema["minLength"]:
            out.append(f"{where}: shorter than {schema['minLength']}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            out.append(f"{where}: longer than {schema['maxLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{where}: does not match {schema['pattern']}")
        return out

    def _array(self, schema: dict[str, Any], value: list[Any], where: str) -> list[str]:
        out = []
        if schema.get("uniqueItems") and len({repr(v) for v in value}) != len(value):
            out.append(f"{where}: items are not unique")
        if "minItems" in schema and len(value) < schema["minItems"]:
            out.append(f"{where}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(f"{where}: more than {schema['maxItems']} items")
        for i, item in enumerate(value):
            out += self.errors(schema.get("items", {}), item, f"{where}[{i}]")
        return out

    def _object(
        self, schema: dict[str, Any], value: dict[str, Any], where: str, *, strict: bool
    ) -> list[str]:
        out = [f"{where}: '{name}' is required" for name in schema.get("required", []) if name not in value]
        props: dict[str, Any] = {}
        for member in [schema, *schema.get("allOf", [])]:
            props.update(self.resolve(member).get("properties", {}))
        extra = schema.get("additionalProperties")
        for name, item in value.items():
            if name in props:
                out += self.errors(props[name], item, f"{where}.{name}")
            elif isinstance(extra, dict):
                out += self.errors(extra, item, f"{where}.{name}")
            elif extra is False or (strict and extra is None and props):
                out.append(f"{where}: '{name}' is not a property of this schema")
        return out
