"""The backup knows no domain: api/backup imports none of the domains whose configuration it carries,
and every domain that gives a section is listed by the app, once, under a key of its own."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from api.app import BACKUP_SECTIONS
from api.backup import service
from api.backup.section import Context, Restoring, Section, Skipped
from api.errors import InvalidInput
from appliance.control.errors import NotFound

API = Path(__file__).resolve().parents[2] / "api"
# Where the backup's own needs end: the framework it stands on, not a domain's tables or services.
# api.storage: the storage routes' shared dependencies (gateway, files, refusals), which hold no table.
ALLOWED = {
    *("api", "api.appliance", "api.backup", "api.deps", "api.errors", "api.secretbox", "api.settings"),
    *("api.privileged", "api.state", "api.storage"),
}


def _domains() -> set[str]:
    """Packages of api that give a backup section."""
    return {d.name for d in API.iterdir() if (d / "backup.py").is_file()}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {name for name in found if name == "api" or name.startswith("api.")}


def test_the_backup_imports_no_domain() -> None:
    domains = _domains() | {"auth", "deployments", "users", "vcenters"}
    for source in sorted((API / "backup").glob("*.py")):
        for name in _imports(source):
            package = ".".join(name.split(".")[:2])
            assert package in ALLOWED, f"{source.name} imports {name}"
            assert name.split(".")[1:2] == [] or name.split(".")[1] not in domains, (
                f"{source.name} imports {name}"
            )


def test_the_checker_sees_a_domain_import(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from api.exports import service\nfrom api.backup.section import Section\n")
    assert _imports(probe) == {"api.exports", "api.backup.section"}


def test_every_domain_section_is_listed_once() -> None:
    given = {d: importlib.import_module(f"api.{d}.backup").SECTION for d in _domains()}
    assert all(isinstance(s, Section) for s in given.values())
    assert sorted(s.key for s in given.values()) == sorted(s.key for s in BACKUP_SECTIONS)
    assert len({s.key for s in BACKUP_SECTIONS}) == len(BACKUP_SECTIONS) == len(given)
    assert {id(s) for s in given.values()} == {id(s) for s in BACKUP_SECTIONS}


class _Converging(Section):
    key, title, model = "probe", "Probe", BaseModel

    def __init__(self, outcome: list[str] | Exception | None) -> None:
        self.outcome = outcome

    def collect(self, ctx: Context, skipped: list[Skipped]) -> BaseModel | None:
        return None

    def store(self, ctx: Context, value: object, restoring: Restoring) -> list[str]:
        return []

    def converge(self, ctx: Context, value: object) -> list[str] | None:
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [
        (None, None),  # nothing outside the database: no line in the report
        ([], {"section": "probe", "changes": [], "failure": None}),
        (["a changed"], {"section": "probe", "changes": ["a changed"], "failure": None}),
        (NotFound("zvol tank/x has no device"), {"section": "probe", "changes": [], "failure": {"error": "NotFound", "message": "zvol tank/x has no device"}}),
        (InvalidInput("not a certificate"), {"section": "probe", "changes": [], "failure": {"error": "InvalidInput", "message": "not a certificate"}}),
    ],
)  # fmt: skip
def test_a_converge_that_fails_is_its_outcome_not_the_restores(outcome: Any, expected: Any) -> None:
    ctx = Context(db=None, box=None, files=None, settings=None, gw=None)  # type: ignore[arg-type]
    found = service._converge(ctx, _Converging(outcome), None)
    assert (found.model_dump() if found is not None else None) == expected


def test_an_error_that_is_not_typed_is_not_swallowed() -> None:
    ctx = Context(db=None, box=None, files=None, settings=None, gw=None)  # type: ignore[arg-type]
    with pytest.raises(ZeroDivisionError):
        service._converge(ctx, _Converging(ZeroDivisionError()), None)


def test_a_section_without_collect_or_store_cannot_be_made() -> None:
    class Half(Section):
        key, title, model = "half", "Half", BaseModel

        def collect(self, ctx: Context, skipped: list[Skipped]) -> BaseModel | None:
            return None

    with pytest.raises(TypeError, match="store"):
        Half()  # type: ignore[abstract]
