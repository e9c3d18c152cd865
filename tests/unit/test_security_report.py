"""security.report's reading of tests/security's figures: one file, or one per pytest-xdist worker."""

from __future__ import annotations

import json
from pathlib import Path

from security.report import load_unit


def _write(folder: Path, name: str, doc: dict[str, object]) -> None:
    (folder / name).write_text(json.dumps(doc), encoding="utf-8")


def test_no_file_is_none(tmp_path: Path) -> None:
    assert load_unit(tmp_path) is None


def test_one_file_is_read_as_it_is(tmp_path: Path) -> None:
    doc = {"tests_failed": 0, "sections": {"fuzz": {"cases": 3, "server_error_examples": ["a"]}}}
    _write(tmp_path, "unit.json", doc)
    assert load_unit(tmp_path) == doc


def test_workers_files_are_added_up_and_their_examples_listed_once(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "unit-gw0.json",
        {"tests_failed": 1, "sections": {"fuzz": {"cases": 3, "examples": ["a", "b"]}, "tls": {"scans": 1}}},
    )
    _write(
        tmp_path,
        "unit-gw1.json",
        {"tests_failed": 0, "sections": {"fuzz": {"cases": 4, "examples": ["b", "c"]}}},
    )
    assert load_unit(tmp_path) == {
        "tests_failed": 1,
        "sections": {"fuzz": {"cases": 7, "examples": ["a", "b", "c"]}, "tls": {"scans": 1}},
    }


def test_a_worker_that_did_not_say_how_many_failed_makes_it_unknown(tmp_path: Path) -> None:
    _write(tmp_path, "unit-gw0.json", {"tests_failed": 0, "sections": {}})
    _write(tmp_path, "unit-gw1.json", {"sections": {}})
    unit = load_unit(tmp_path)
    assert unit is not None and unit["tests_failed"] is None
