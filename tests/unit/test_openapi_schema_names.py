"""Every OpenAPI schema name says what it is: no module-qualified name, no -Input/-Output split.

Pydantic qualifies a schema name with its module path as soon as two models share a class name, and
splits one model into "-Input" and "-Output" when it reads differently in each direction; both leak
an implementation detail into the web's types. The committed document and the one the code makes now
are both checked, so a new collision fails here before `make openapi` hides it in the TS client.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from api.openapi import document

COMMITTED = Path(__file__).resolve().parents[2] / "api" / "openapi.json"
UNCLEAR = re.compile(r"__|-(Input|Output)$|\.")


def unclear(names: list[str]) -> list[str]:
    return [name for name in names if UNCLEAR.search(name)]


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("ZfsPoolSpec", False),
        ("DesktopPoolSpec", False),
        ("InputOutput", False),  # the words alone are no split
        ("appliance__control__pools__PoolSpec", True),
        ("provisioning__plan__PoolSpec", True),
        ("PoolSpec-Output", True),
        ("PoolSpec-Input", True),
        ("provisioning.plan.PoolSpec", True),
    ],
)
def test_the_rule_tells_a_qualified_or_split_name(name: str, bad: bool) -> None:
    assert (unclear([name]) == [name]) is bad


def test_the_api_makes_no_qualified_or_split_schema_name() -> None:
    names = sorted(document()["components"]["schemas"])  # type: ignore[index]
    assert unclear(names) == []


def test_the_committed_document_has_no_qualified_or_split_schema_name() -> None:
    names = sorted(json.loads(COMMITTED.read_text())["components"]["schemas"])
    assert unclear(names) == []


def test_a_zfs_pool_and_a_desktop_pool_are_different_schemas() -> None:
    schemas = document()["components"]["schemas"]  # type: ignore[index]
    assert {"ZfsPoolSpec", "DesktopPoolSpec", "ZfsPoolHealth", "DesktopPoolType"} <= set(schemas)
    assert "PoolSpec" not in schemas and "PoolHealth" not in schemas
    assert schemas["ZfsPoolSpec"]["properties"].keys() != schemas["DesktopPoolSpec"]["properties"].keys()
