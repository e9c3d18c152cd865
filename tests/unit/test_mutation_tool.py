"""The mutation tool (tools/mutation): the mutants it makes, and that it tells killed from survived."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest

from tools.mutation import engine, regex
from tools.mutation.__main__ import keyed
from tools.mutation.operators import mutate, sites


def _patterns(pattern: str) -> dict[str, str]:
    return {text: what for what, text in regex.mutants(pattern)}


def test_a_class_grows_by_each_hostile_character_it_does_not_hold() -> None:
    found = _patterns("[a-z.]{1,3}")
    grown = {text for text, what in found.items() if what.startswith("class")}
    # '.' is already in the class: no mutant for it
    assert grown == {rf"[a-z.{re.escape(c)}]{{1,3}}" for c in regex.HOSTILE if c != "."}


def test_each_bound_of_a_length_limit_moves_by_one() -> None:
    found = _patterns("x{1,3}")
    assert {"x{0,3}", "x{2,3}", "x{1,4}", "x{1,2}"} <= set(found)
    assert {"x{5}", "x{3}"} <= set(_patterns("x{4}"))


def test_escaped_dots_anchors_quantifiers_and_alternatives() -> None:
    found = set(_patterns(r"^a\.(b|cd)+e?$"))
    assert r"^a.(b|cd)+e?$" in found  # escaped dot -> any character
    assert r"a\.(b|cd)+e?$" in found and r"^a\.(b|cd)+e?" in found  # anchors removed
    assert r"^a\.(b|cd)*e?$" in found  # + -> *
    assert r"^a\.(b|cd)+e$" in found  # optional -> required
    assert r"^a\.(b)+e?$" in found  # alternative removed


def test_a_mutant_that_does_not_compile_is_left_out() -> None:
    for text in _patterns(r"[a-z]{0,2}(x|y)"):
        re.compile(text)


SAMPLE = textwrap.dedent(
    '''
    """Docstring: never mutated."""
    import re

    PART = r"[a-z]{1,4}"
    NAME = re.compile(rf"{PART}(/{PART})?")
    RESERVED = {"log", "cache"}
    LIMIT: int = 8


    def check(name: str, size: int = 2) -> str:
        """Docstring."""
        if not NAME.fullmatch(name) or name in RESERVED:
            raise ValueError("bad")
        if size > LIMIT and size * 2 != 3:
            audit(name)
        return name
    '''
)


def test_sites_cover_each_kind_and_skip_docstrings_and_annotations() -> None:
    found = sites(ast.parse(SAMPLE))
    kinds = {(s.operator, s.before, s.after) for s in found}
    assert ("compare", "in", "not in") in kinds
    assert ("compare", ">", ">=") in kinds and ("compare", "!=", "==") in kinds
    assert ("boolean", "or", "and") in kinds and ("boolean", "and", "or") in kinds
    assert ("arithmetic", "*", "/") in kinds
    assert ("unary", "not", "(removed)") in kinds
    assert ("statement", "raise", "pass") in kinds and ("statement", "audit(...)", "pass") in kinds
    assert ("element", "'log'", "(removed)") in kinds and ("element", "'cache'", "(removed)") in kinds
    assert ("number", "8", "9") in kinds and ("number", "2", "1") in kinds
    # the module-level string an f-string pattern names is a regular expression
    assert any(s.operator == "regex" and s.line == 5 for s in found)
    assert not any("Docstring" in s.before for s in found)
    assert not any(s.before in ("'str'", "'int'") for s in found)  # annotations are not logic
    assert {s.scope for s in found} == {"<module>", "check"}


def test_keys_tell_apart_the_same_change_twice_in_one_scope() -> None:
    keys = [k for _, k in keyed(sites(ast.parse(SAMPLE)))]
    assert len(keys) == len(set(keys))


def test_mutate_changes_one_site_and_leaves_the_tree_alone() -> None:
    tree = ast.parse(SAMPLE)
    target = next(s for s in sites(tree) if s.operator == "compare" and s.before == "in")
    changed = ast.unparse(mutate(tree, target))
    assert "name not in RESERVED" in changed
    assert "name in RESERVED" in ast.unparse(tree)


RULE = textwrap.dedent(
    """
    def small(n: int) -> bool:
        return 0 < n <= 10
    """
)
STRONG = textwrap.dedent(
    """
    from mutsample import small

    def test_edges():
        assert small(1) and small(10)
        assert not small(0) and not small(11)
    """
)
WEAK = textwrap.dedent(
    """
    from mutsample import small

    def test_middle():
        assert small(5)
    """
)


@pytest.mark.parametrize(("test", "survivors"), [(STRONG, 0), (WEAK, 5)])
def test_a_forked_run_tells_killed_from_survived(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, test: str, survivors: int
) -> None:
    module = tmp_path / "mutsample.py"
    module.write_text(RULE)
    (tmp_path / "test_sample.py").write_text(test)
    monkeypatch.syspath_prepend(str(tmp_path))
    tree = ast.parse(RULE)
    found = keyed(sites(tree))
    tests = [str(tmp_path / "test_sample.py")]
    engine.baseline("mutsample", module, tests)
    outcomes = list(engine.run("mutsample", module, tree, found, tests, jobs=1, timeout=60))
    # < and <= two ways each, 0 -> 1, 10 -> 11 and 9: only the middle-value test misses the edges
    assert len(outcomes) == len(found) == 7
    survived = sorted(o.key for o in outcomes if o.status == engine.SURVIVED)
    assert len(survived) == survivors, survived


def test_a_failing_baseline_is_an_error_not_a_score(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = tmp_path / "mutsample.py"
    module.write_text(RULE)
    (tmp_path / "test_sample.py").write_text("def test_no():\n    assert False\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(engine.BaselineFailed):
        engine.baseline("mutsample", module, [str(tmp_path / "test_sample.py")])
