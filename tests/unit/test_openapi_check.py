"""The OpenAPI subset checker behind the fake Horizon Connection Server."""

from __future__ import annotations

from typing import Any

import pytest

from lab.openapi_check import OpenApiChecker

DOC: dict[str, Any] = {
    "paths": {"/pools/{id}": {"get": {}}, "/pools": {"post": {}}},
    "components": {
        "schemas": {
            "Pool": {
                "type": "object",
                "required": ["name", "type"],
                "properties": {
                    "name": {"type": "string", "maxLength": 8, "pattern": "^[a-z]+$"},
                    "type": {"type": "string", "enum": ["AUTOMATED", "MANUAL"]},
                    "ram": {"type": "integer", "minimum": 1024},
                    "tags": {"type": "array", "uniqueItems": True, "items": {"type": "string"}},
                },
            }
        }
    },
}
POOL = {"$ref": "#/components/schemas/Pool"}


def test_a_conforming_value_passes() -> None:
    assert (
        OpenApiChecker(DOC).errors(POOL, {"name": "abc", "type": "MANUAL", "ram": 2048, "tags": ["a"]}) == []
    )


def test_every_problem_is_reported_with_its_path() -> None:
    problems = OpenApiChecker(DOC).errors(
        POOL, {"name": "ABCDEFGHIJ", "ram": True, "tags": ["a", "a"], "typo": 1}
    )
    assert problems == [
        "$: 'type' is required",
        "$.name: longer than 8",
        "$.name: does not match ^[a-z]+$",
        "$.ram: expected integer, got bool",
        "$.tags: items are not unique",
        "$: 'typo' is not a property of this schema",
    ]


def test_unknown_properties_pass_when_not_strict() -> None:
    assert OpenApiChecker(DOC, strict=False).errors(POOL, {"name": "a", "type": "MANUAL", "typo": 1}) == []


def test_a_keyword_it_cannot_check_fails_closed() -> None:
    with pytest.raises(NotImplementedError, match="oneOf"):
        OpenApiChecker(DOC).errors({"oneOf": [{"type": "string"}]}, "x")


def test_paths_match_their_templates() -> None:
    checker = OpenApiChecker(DOC)
    assert checker.operation("GET", "/pools/42") == ("/pools/{id}", {})
    assert checker.operation("GET", "/pools") is None
