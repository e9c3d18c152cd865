"""Redaction of a support bundle, in two layers that do not trust each other.

1. By structure: the value of any key whose name says secret (password, secret, CHAP, mutual, token,
   private/api keys...) in JSON and in ``name = value`` / ``name: value`` text (ganesha and LIO configs,
   ``key=value`` log lines) becomes ``<redacted>``, whether the value is known or not.
2. By value: every secret the appliance knows is masked wherever it turns up, in any file: as written,
   JSON- and URL-escaped, and base64-encoded at any alignment (HTTP Basic and SMTP AUTH put credentials
   in logs that way), so a debug line or a pasted comment cannot carry one out.

Pure functions over text: the caller gathers the secrets (api.support.service).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

REDACTED = "<redacted>"
# Shorter values would mask ordinary words all over the bundle; they are counted in the manifest instead.
MIN_SECRET = 4
_SECRET_NAME = re.compile(
    r"pass(?:word|wd|phrase)|secret|chap|mutual|token|credential|cookie|authorization"
    r"|(?:private|api|access|auth|session|encryption|signing)[_-]?key",
    re.IGNORECASE,
)
# name, an optional closing quote (JSON inside a log line), "=" or ":", then one value
_ASSIGN = re.compile(
    r"(?P<name>[A-Za-z_][\w.-]*)(?P<quote>[\"']?)(?P<sep>[ \t]*[=:][ \t]*)"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s;,\"'}\]]+)"
)


def secret_name(name: str) -> bool:
    """Whether a key of this name holds a secret."""
    return bool(_SECRET_NAME.search(name))


@dataclass
class Counts:
    """How much each layer masked (for the manifest)."""

    structural: int = 0
    by_value: int = 0


def _maybe_secret(value: Any) -> bool:
    # a flag (cookie_secure, CHAP enabled) says how, not what: only a text or a number can be a secret
    return isinstance(value, str | int | float) and not isinstance(value, bool) and value != ""


def redact_json(value: Any, counts: Counts) -> Any:
    """A copy of a parsed JSON value with every secret-named key's scalar value replaced."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, inner in value.items():
            if secret_name(str(key)) and _maybe_secret(inner):
                out[key] = REDACTED
                counts.structural += 1
            else:
                out[key] = redact_json(inner, counts)
        return out
    if isinstance(value, list):
        return [redact_json(v, counts) for v in value]
    return value


def redact_text(text: str, counts: Counts) -> str:
    """``name = value`` and ``name: value`` assignments of secret-named keys, their value replaced."""

    def one(found: re.Match[str]) -> str:
        if not secret_name(found["name"]) or found["value"].strip("\"'") in ("", REDACTED):
            return found[0]
        counts.structural += 1
        return f"{found['name']}{found['quote']}{found['sep']}{REDACTED}"

    return _ASSIGN.sub(one, text)


def redact_document(name: str, text: str, counts: Counts) -> str:
    """Structural redaction of one bundle file: as JSON when it is JSON, else as text."""
    if name.endswith(".json"):
        try:
            parsed = json.loads(text)
        except ValueError:
            return redact_text(text, counts)
        return json.dumps(redact_json(parsed, counts), indent=1, sort_keys=False) + "\n"
    return redact_text(text, counts)


def base64_cores(data: bytes) -> list[str]:
    """What ``data`` looks like inside any base64 text (standard and URL-safe alphabets): the characters
    its bytes alone decide, at each of the three alignments it can start at."""
    cores: list[str] = []
    for offset, skip in ((0, 0), (1, 2), (2, 3)):
        total = offset + len(data)
        padded = bytes(offset) + data
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            core = encode(padded).decode("ascii")[skip : total // 3 * 4]
            if len(core) >= MIN_SECRET:
                cores.append(core)
    return cores


@dataclass
class Masker:
    """Masks known secret values (layer 2)."""

    forms: list[str] = field(default_factory=list)
    known: int = 0
    too_short: int = 0

    @classmethod
    def of(cls, secrets: Iterable[str], encoded: Iterable[str] = ()) -> Masker:
        """``secrets`` masked in every form; ``encoded`` (e.g. ``user:password`` of HTTP Basic) only where
        base64 carries them, since their plain text is not secret as a whole."""
        masker = cls()
        forms: set[str] = set()
        for secret in {s for s in secrets if s}:
            if len(secret) < MIN_SECRET:
                masker.too_short += 1
                continue
            masker.known += 1
            forms.add(secret)
            forms.add(json.dumps(secret)[1:-1])
            forms.add(quote(secret, safe=""))
            data = secret.encode("utf-8")
            forms.add(base64.b64encode(data).decode("ascii"))
            forms.update(base64_cores(data))
        for plain in {e for e in encoded if e}:
            data = plain.encode("utf-8")
            forms.add(base64.b64encode(data).decode("ascii"))
            forms.update(base64_cores(data))
        # longest first: a secret's full encoding goes before a shorter core of it
        masker.forms = sorted((f for f in forms if len(f) >= MIN_SECRET), key=len, reverse=True)
        return masker

    def mask(self, text: str, counts: Counts) -> str:
        """``text`` with every form of every secret replaced."""
        for form in self.forms:
            if form in text:
                counts.by_value += text.count(form)
                text = text.replace(form, REDACTED)
        return text
