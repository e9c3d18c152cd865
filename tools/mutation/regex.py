"""Mutants of a regular expression's text: the ways a name rule is widened or narrowed by one step."""

from __future__ import annotations

import re
from collections.abc import Iterator

# Each alone must be refused by a name rule that reaches a command line or a daemon's config.
HOSTILE = (";", "$", "@", " ", "/", ".", "'")
_QUANT = re.compile(r"\{(\d+)(,(\d*))?\}")


def _classes(pattern: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each character class: '[' to its closing ']'."""
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            j = i + 1
            if j < len(pattern) and pattern[j] == "^":
                j += 1
            if j < len(pattern) and pattern[j] == "]":
                j += 1
            while j < len(pattern) and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            yield i, j
            i = j + 1
            continue
        i += 1


def _outside_classes(pattern: str) -> Iterator[int]:
    """Indexes of the characters that are syntax, not escaped and not inside a class."""
    inside = {k for start, end in _classes(pattern) for k in range(start, end + 1)}
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
            continue
        if i not in inside:
            yield i
        i += 1


def mutants(pattern: str) -> Iterator[tuple[str, str]]:
    """(description, mutated pattern) pairs; a pattern that no longer compiles is left out."""
    for text, what in _candidates(pattern):
        if text == pattern:
            continue
        try:
            re.compile(text)
        except re.error:
            continue
        yield what, text


def _candidates(p: str) -> Iterator[tuple[str, str]]:
    for start, end in _classes(p):
        body = p[start + 1 : end]
        if body.startswith("^"):
            continue
        for c in HOSTILE:
            try:
                already = re.fullmatch(p[start : end + 1], c) is not None
            except re.error:
                already = True
            if not already:
                yield p[:end] + re.escape(c) + p[end:], f"class {p[start : end + 1]} + {c!r}"
    for m in re.finditer(r"\\\.", p):
        yield p[: m.start()] + "." + p[m.end() :], "escaped dot -> any character"
    for m in re.finditer(r"\\d", p):
        yield p[: m.start()] + r"\w" + p[m.end() :], r"\d -> \w"
    for m in _QUANT.finditer(p):
        if m.start() > 0 and p[m.start() - 1] == "\\":
            continue
        low = int(m.group(1))
        has_comma = m.group(2) is not None
        high = m.group(3)

        def at(text: str, m: re.Match[str] = m) -> str:
            return p[: m.start()] + text + p[m.end() :]

        if not has_comma:
            yield at(f"{{{low + 1}}}"), f"{{{low}}} -> {{{low + 1}}}"
            if low > 0:
                yield at(f"{{{low - 1}}}"), f"{{{low}}} -> {{{low - 1}}}"
            continue
        upper = high or ""
        if low > 0:
            yield at(f"{{{low - 1},{upper}}}"), f"{m.group(0)} lower bound - 1"
        if not high or low + 1 <= int(high):
            yield at(f"{{{low + 1},{upper}}}"), f"{m.group(0)} lower bound + 1"
        if high:
            yield at(f"{{{low},{int(high) + 1}}}"), f"{m.group(0)} upper bound + 1"
            if int(high) - 1 >= low and int(high) > 0:
                yield at(f"{{{low},{int(high) - 1}}}"), f"{m.group(0)} upper bound - 1"
    syntax = list(_outside_classes(p))
    for i in syntax:
        c = p[i]
        if c == "+":
            yield p[:i] + "*" + p[i + 1 :], "+ -> *"
        elif c == "*" and i > 0 and p[i - 1] not in "(|":
            yield p[:i] + "+" + p[i + 1 :], "* -> +"
        elif c == "?" and i > 0 and p[i - 1] not in "(*+?}":
            yield p[:i] + p[i + 1 :], "optional -> required"
        elif c == "^" and i == 0:
            yield p[1:], "start anchor removed"
        elif c == "$" and i == len(p) - 1:
            yield p[:-1], "end anchor removed"
        elif c == "|":
            yield from _drop_alternative(p, i)


def _drop_alternative(p: str, bar: int) -> Iterator[tuple[str, str]]:
    """The alternative right of a '|' removed, up to the next '|' or ')' at the same depth."""
    depth = 0
    j = bar + 1
    while j < len(p):
        c = p[j]
        if c == "\\":
            j += 2
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                break
            depth -= 1
        elif c == "|" and depth == 0:
            break
        j += 1
    yield p[:bar] + p[j:], f"alternative {p[bar + 1 : j]!r} removed"
