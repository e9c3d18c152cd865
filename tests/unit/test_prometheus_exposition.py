"""The hand-written exposition format: escaping, numbers and names, checked by promtool (Debian's
prometheus package, which parses the text as the Prometheus server does and lints its conventions)."""

from __future__ import annotations

import math
import shutil
import subprocess

import pytest

from api.prometheus.exposition import Family, escape_help, escape_label, number, render


def promtool_check(text: str) -> str:
    """promtool's complaints about ``text`` ('' when none); fails when promtool is not installed."""
    tool = shutil.which("promtool")
    assert tool, "promtool not installed: make setup installs Debian's prometheus package (mk/ops.mk)"
    done = subprocess.run([tool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
    return "" if done.returncode == 0 else f"exit {done.returncode}: {done.stdout}{done.stderr}"


def test_label_values_and_help_are_escaped_the_way_prometheus_parses_them() -> None:
    odd = 'a "quoted" C:\\path\nand a second line'
    family = Family("arcvsa_probe_bytes", "gauge", "Help with a \\ and a\nline feed").add(1, path=odd)
    text = render([family])
    assert text == (
        "# HELP arcvsa_probe_bytes Help with a \\\\ and a\\nline feed\n"
        "# TYPE arcvsa_probe_bytes gauge\n"
        'arcvsa_probe_bytes{path="a \\"quoted\\" C:\\\\path\\nand a second line"} 1\n'
    )
    assert promtool_check(text) == ""
    assert escape_label("plain") == "plain" and escape_help('say "hi"') == 'say "hi"'


def test_unescaped_text_is_what_promtool_refuses() -> None:
    """The check above can fail: the same sample without escaping is a parse error."""
    assert "unescaped new-line" in promtool_check('arcvsa_probe_bytes{path="a\nb"} 1\n')


def test_numbers_as_prometheus_spells_them() -> None:
    assert [number(v) for v in (0, 7, 2**63, True, 0.25, 1e-9)] == [
        "0",
        "7",
        "9223372036854775808",
        "1",
        "0.25",
        "1e-09",
    ]
    assert [number(v) for v in (math.nan, math.inf, -math.inf)] == ["NaN", "+Inf", "-Inf"]


def test_counters_end_in_total_and_names_are_checked() -> None:
    with pytest.raises(ValueError, match="_total"):
        Family("arcvsa_arc_hits", "counter", "no suffix")
    with pytest.raises(ValueError, match="metric name"):
        Family("arcvsa-arc", "gauge", "dash")
    with pytest.raises(ValueError, match="label name"):
        Family("arcvsa_x", "gauge", "h").add(1, __name__="reserved")


def test_a_label_set_or_family_twice_is_refused_and_empty_families_are_left_out() -> None:
    family = Family("arcvsa_pool_size_bytes", "gauge", "size").add(1, pool="tank")
    with pytest.raises(ValueError, match="twice"):
        family.add(2, pool="tank")
    with pytest.raises(ValueError, match="twice"):
        render([family, Family("arcvsa_pool_size_bytes", "gauge", "again")])
    assert render([Family("arcvsa_empty_total", "counter", "nothing yet")]) == ""
    assert render([Family("arcvsa_empty_total", "counter", "nothing"), family]).startswith(
        "# HELP arcvsa_pool"
    )
