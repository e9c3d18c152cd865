"""The Prometheus text exposition format 0.0.4, written by hand (it is small; no client library needed).

A family is one metric name with its HELP and TYPE lines and its samples, one per label set. Names and
label names are checked here, label values and HELP text escaped here, so callers pass plain strings.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")

Kind = Literal["counter", "gauge"]


def escape_label(value: str) -> str:
    """A label value between double quotes: backslash, double quote and line feed escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def escape_help(text: str) -> str:
    """HELP text: backslash and line feed escaped (quotes stay as they are)."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def number(value: float) -> str:
    """A sample value as Prometheus parses it: integers exact, NaN and infinities spelt its way."""
    if isinstance(value, bool):  # a bool is an int: True would print as "True"
        value = int(value)
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value))


@dataclass
class Family:
    """One metric: counters end in ``_total`` (the convention promtool checks), units are in the name."""

    name: str
    kind: Kind
    help: str
    samples: list[tuple[tuple[tuple[str, str], ...], float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise ValueError(f"not a metric name: {self.name!r}")
        if self.kind == "counter" and not self.name.endswith("_total"):
            raise ValueError(f"a counter's name ends in _total: {self.name!r}")

    def add(self, value: float, **labels: str) -> Family:
        """Add one sample; the same label set twice is a bug (Prometheus would reject the scrape)."""
        for key in labels:
            if not _LABEL.fullmatch(key) or key.startswith("__"):
                raise ValueError(f"not a label name: {key!r}")
        pairs = tuple(labels.items())
        if any(existing == pairs for existing, _ in self.samples):
            raise ValueError(f"{self.name}: label set {labels} added twice")
        self.samples.append((pairs, value))
        return self


def render(families: Iterable[Family]) -> str:
    """The exposition text; families without samples are left out, a name used twice is a bug."""
    lines: list[str] = []
    seen: set[str] = set()
    for family in families:
        if family.name in seen:
            raise ValueError(f"metric family {family.name!r} twice")
        seen.add(family.name)
        if not family.samples:
            continue
        lines.append(f"# HELP {family.name} {escape_help(family.help)}")
        lines.append(f"# TYPE {family.name} {family.kind}")
        for pairs, value in family.samples:
            labels = ",".join(f'{k}="{escape_label(v)}"' for k, v in pairs)
            lines.append(
                f"{family.name}{{{labels}}} {number(value)}" if labels else f"{family.name} {number(value)}"
            )
    return "\n".join(lines) + "\n" if lines else ""
